//! Installing config-hash where kustomize and Helm 4 look for plugins. The plugins link
//! to this executable rather than copy it, so upgrading the binary upgrades them; and
//! the Helm 4 plugin never goes where a Helm 3 reads plugins (on PATH or not), since
//! Helm 3 refuses a Helm 4 `plugin.yaml` and then fails every plugin command: it goes
//! beside Helm's default directory, and the installer prints the alias that points
//! the Helm 4 it found there.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use super::exit::fail;

/// This executable, with symlinks resolved: what the plugins link to.
fn this_executable() -> Result<PathBuf, String> {
    std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .map_err(|e| format!("cannot find this executable: {e}"))
}

/// Makes `dest` a symbolic link to this executable (replacing what was there, such as a
/// copy an older config-hash installed). Where links are not available, a copy.
pub fn link_self_to(dest: &Path) -> Result<(), String> {
    let exe = this_executable()?;
    let fail = |e: std::io::Error| format!("cannot install to {}: {e}", dest.display());
    if let Some(dir) = dest.parent() {
        std::fs::create_dir_all(dir).map_err(fail)?;
    }
    match std::fs::remove_file(dest) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(fail(e)),
        _ => {}
    }
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(&exe, dest).map_err(fail)
    }
    #[cfg(not(unix))]
    {
        std::fs::copy(&exe, dest).map(|_| ()).map_err(fail)
    }
}

/// Where users get Helm.
const HELM_INSTALL_DOCS: &str = "https://helm.sh/docs/intro/install/";

/// A Helm binary: the name a user types for it (or its path, when it is not on PATH
/// under a name), where it is, and its version (`v3.17.2`).
struct Helm {
    name: String,
    path: PathBuf,
    version: String,
}

impl Helm {
    fn major(&self) -> Option<u32> {
        self.version
            .strip_prefix('v')?
            .split('.')
            .next()?
            .parse()
            .ok()
    }

    /// `helm <args>`'s stdout, when it succeeds.
    fn output(&self, args: &[&str]) -> Option<String> {
        Command::new(&self.path)
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    }

    /// The directories it reads plugins from, as `helm env HELM_PLUGINS` says.
    fn plugin_dirs(&self) -> Vec<PathBuf> {
        self.output(&["env", "HELM_PLUGINS"])
            .map(|dirs| {
                std::env::split_paths(&dirs)
                    .map(|d| canonical(&d))
                    .collect()
            })
            .unwrap_or_default()
    }

    fn at(name: String, path: PathBuf) -> Option<Helm> {
        let mut helm = Helm {
            name,
            path,
            version: String::new(),
        };
        helm.version = helm.output(&["version", "--template", "{{.Version}}"])?;
        Some(helm)
    }
}

fn canonical(dir: &Path) -> PathBuf {
    dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf())
}

/// The Helm binaries on PATH under the names Helm is installed as (`helm`, `helm4`,
/// `helm3`): the first of each name.
fn helms_on_path() -> Vec<Helm> {
    let Some(path) = std::env::var_os("PATH") else {
        return Vec::new();
    };
    ["helm", "helm4", "helm3"]
        .iter()
        .filter_map(|name| {
            let bin = std::env::split_paths(&path)
                .map(|d| d.join(name))
                .find(|p| p.is_file())?;
            Helm::at(name.to_string(), bin)
        })
        .collect()
}

/// Where the Helm 4 plugin goes when the user did not choose: a directory beside Helm's
/// default plugins directory that no Helm reads by default. Helm 3 reads the default one
/// and fails every plugin command when a Helm 4 plugin is there, and a Helm 3 may be on
/// the machine without being on PATH (or arrive later).
pub fn helm4_only_dir(shared: &Path) -> PathBuf {
    let name = shared
        .file_name()
        .map_or_else(|| "plugins".into(), |n| n.to_string_lossy().into_owned());
    shared.with_file_name(format!("{name}-helm4"))
}

/// `config-hash install-kustomize-plugin`.
pub fn kustomize_plugin(plugin_home: Option<PathBuf>) -> ExitCode {
    let xdg = std::env::var("XDG_CONFIG_HOME").ok();
    let home = std::env::var("HOME").ok();
    let Some(dest) = super::plugin::plugin_path(plugin_home, xdg.as_deref(), home.as_deref())
    else {
        return fail("neither XDG_CONFIG_HOME nor HOME is set; pass --plugin-home DIR");
    };
    if let Err(e) = link_self_to(&dest) {
        return fail(e);
    }
    println!("{}", dest.display());
    ExitCode::SUCCESS
}

/// The command Helm 3 runs config-hash with: no plugin, the binary as the post-renderer.
fn helm3_command(name: &str) -> String {
    format!("{name} template my-release ./chart --post-renderer \"$(command -v config-hash)\"")
}

/// `config-hash install-helm-plugin [--plugins-dir DIR] [--helm PATH]`.
///
/// Without `--plugins-dir` (and `HELM_PLUGINS`), the plugin goes to a directory only Helm
/// 4 is told about, and the advice is an alias for the Helm 4 found (`helm` or `helm4`)
/// that points it there: Helm 3 keeps working whatever is on PATH. With a directory
/// chosen, it goes there, unless a Helm 3 on PATH reads that directory.
pub fn helm_plugin(plugins_dir: Option<PathBuf>, helm: Option<PathBuf>) -> ExitCode {
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let on_path = helms_on_path();
    let helm4 = match helm {
        Some(path) => match given_helm4(path, &on_path) {
            Ok(given) => Some(given),
            Err(code) => return code,
        },
        None => on_path.iter().find(|h| h.major() == Some(4)).map(|h| Helm {
            name: h.name.clone(),
            path: h.path.clone(),
            version: h.version.clone(),
        }),
    };
    let helm3s: Vec<&Helm> = on_path.iter().filter(|h| h.major() == Some(3)).collect();
    let chosen = plugins_dir.or_else(|| {
        // Helm reads HELM_PLUGINS as a PATH-like list and installs into its first entry.
        env("HELM_PLUGINS").and_then(|v| std::env::split_paths(&v).next())
    });
    let dir = match (chosen, &helm4) {
        (Some(dir), _) => {
            // The user's choice, unless a Helm 3 on PATH reads it too.
            if let Some(helm3) = helm3s
                .iter()
                .find(|h| h.plugin_dirs().contains(&canonical(&dir)))
            {
                if helm4.is_none() {
                    return helm3_needs_no_plugin(helm3);
                }
                return fail(format!(
                    "Helm {} ({}) reads plugins from {} too, and cannot load a Helm 4 plugin: every \
                     Helm 3 plugin command would fail. Install into a directory only Helm 4 reads:\n\n  \
                     env -u HELM_PLUGINS config-hash install-helm-plugin\n\n(Helm 3 itself needs no \
                     plugin: {})",
                    helm3.version,
                    helm3.path.display(),
                    dir.display(),
                    helm3_command(&helm3.name)
                ));
            }
            return install_helm_plugin(&dir).unwrap_or_else(|code| code);
        }
        (None, None) => {
            return match helm3s.first() {
                Some(helm3) => helm3_needs_no_plugin(helm3),
                None => fail(format!(
                    "no Helm on PATH (helm, helm4, helm3). Install Helm 4 ({HELM_INSTALL_DOCS}), then run \
                     this again; or name it: config-hash install-helm-plugin --helm PATH/TO/HELM4"
                )),
            };
        }
        (None, Some(_)) => {
            let Some(shared) = super::plugin::helm_plugins_dir(
                None,
                None,
                env("XDG_DATA_HOME").as_deref(),
                env("HOME").as_deref(),
            ) else {
                return fail(
                    "neither XDG_DATA_HOME nor HOME is set; pass --plugins-dir DIR (a directory only Helm 4 reads)",
                );
            };
            (helm4_only_dir(&shared), shared)
        }
    };
    let (own, shared) = dir;
    if let Err(code) = install_helm_plugin(&own) {
        return code;
    }
    let helm4 = helm4.expect("a Helm 4 when no directory was chosen");
    if helm4.plugin_dirs().contains(&canonical(&own)) {
        eprintln!(
            "config-hash: Helm {} ({}) reads {}: {} template my-release ./chart --post-renderer config-hash",
            helm4.version,
            helm4.name,
            own.display(),
            helm4.name
        );
        return ExitCode::SUCCESS;
    }
    let (alias, command) = match helm4.name.as_str() {
        name @ ("helm" | "helm4") => (name.to_string(), name.to_string()),
        path => ("helm4".to_string(), path.to_string()),
    };
    eprintln!(
        "config-hash: the plugin is in {}, where no Helm looks by default: Helm 3 reads {} and fails \
         every plugin command when a Helm 4 plugin is there. Let Helm 4 ({alias}: {}, {}) read both: \
         add this line to your shell's startup file (~/.bashrc, ~/.zshrc), and run it once now:\n\n  \
         alias {alias}='HELM_PLUGINS=\"{}:{}\" {command}'\n\nThen: {alias} template my-release ./chart \
         --post-renderer config-hash",
        own.display(),
        shared.display(),
        helm4.path.display(),
        helm4.version,
        own.display(),
        shared.display(),
    );
    ExitCode::SUCCESS
}

/// The Helm 4 named with `--helm PATH`, or the refusal that says what it is instead.
fn given_helm4(path: PathBuf, on_path: &[Helm]) -> Result<Helm, ExitCode> {
    // Named as on PATH when it is the binary PATH finds under that name.
    let name = on_path
        .iter()
        .find(|h| canonical(&h.path) == canonical(&path))
        .map_or_else(|| path.display().to_string(), |h| h.name.clone());
    let Some(given) = Helm::at(name, path.clone()) else {
        return Err(fail(format!(
            "--helm {}: `{} version` did not answer as Helm does",
            path.display(),
            path.display()
        )));
    };
    match given.major() {
        Some(4) => Ok(given),
        Some(3) => Err(fail(format!(
            "--helm {}: Helm {} needs no plugin; run it with config-hash as its post-renderer:\n\n  {}",
            path.display(),
            given.version,
            helm3_command(&given.name)
        ))),
        _ => Err(fail(format!(
            "--helm {}: Helm {} has no postrenderer/v1 plugins (Helm 4 has)",
            path.display(),
            given.version
        ))),
    }
}

/// Refuses to install for a Helm 3, giving the command that runs config-hash with it.
fn helm3_needs_no_plugin(helm3: &Helm) -> ExitCode {
    fail(format!(
        "the Helm on PATH is Helm {} ({}), which needs no plugin: it runs config-hash as its \
         post-renderer:\n\n  {}\n\nFor a Helm 4 that is not on PATH: config-hash \
         install-helm-plugin --helm PATH/TO/HELM4",
        helm3.version,
        helm3.path.display(),
        helm3_command(&helm3.name)
    ))
}

/// Writes the Helm 4 plugin into `dir` (`dir/config-hash/plugin.yaml` and a link to this
/// binary beside it) and prints its directory.
fn install_helm_plugin(dir: &Path) -> Result<ExitCode, ExitCode> {
    let plugin = dir.join(super::plugin::HELM_PLUGIN_NAME);
    // A link to this binary beside plugin.yaml: the plugin works whatever PATH Helm runs
    // with, and upgrading the binary upgrades it.
    link_self_to(&plugin.join("config-hash")).map_err(fail)?;
    let yaml = super::plugin::helm_plugin_yaml("${HELM_PLUGIN_DIR}/config-hash");
    let manifest = plugin.join("plugin.yaml");
    // A link there is replaced, never written through: its target may be any file.
    if manifest
        .symlink_metadata()
        .is_ok_and(|m| m.file_type().is_symlink())
    {
        std::fs::remove_file(&manifest).map_err(|e| {
            fail(format!(
                "cannot replace the link {}: {e}",
                manifest.display()
            ))
        })?;
    }
    std::fs::write(&manifest, yaml)
        .map_err(|e| fail(format!("cannot write {}: {e}", manifest.display())))?;
    println!("{}", plugin.display());
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_helm4_only_dir_sits_beside_the_shared_one() {
        assert_eq!(
            helm4_only_dir(Path::new("/h/.local/share/helm/plugins")),
            PathBuf::from("/h/.local/share/helm/plugins-helm4")
        );
    }
}
