//! Installing config-hash where kustomize and Helm 4 look for plugins. The plugins link
//! to this executable rather than copy it, so upgrading the binary upgrades them; and
//! the Helm 4 plugin never goes where a Helm 3 on the same machine reads plugins, since
//! Helm 3 refuses a Helm 4 `plugin.yaml` and then fails every plugin command.

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

/// A Helm 3 on PATH (`helm` or `helm3`) that reads plugins from `dir`, and its version.
pub fn helm3_reading(dir: &Path) -> Option<(PathBuf, String)> {
    let path = std::env::var_os("PATH")?;
    let wanted = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    for bin in std::env::split_paths(&path)
        .flat_map(|d| [d.join("helm"), d.join("helm3")])
        .filter(|p| p.is_file())
    {
        let output = |args: &[&str]| {
            Command::new(&bin)
                .args(args)
                .output()
                .ok()
                .filter(|o| o.status.success())
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        };
        let Some(version) = output(&["version", "--template", "{{.Version}}"]) else {
            continue;
        };
        if !version.starts_with("v3.") {
            continue;
        }
        let Some(plugins) = output(&["env", "HELM_PLUGINS"]) else {
            continue;
        };
        let reads =
            std::env::split_paths(&plugins).any(|d| d.canonicalize().unwrap_or(d) == wanted);
        if reads {
            return Some((bin, version));
        }
    }
    None
}

/// Where the Helm 4 plugin goes when Helm 3 reads the default plugins directory: a
/// directory beside it that only Helm 4 is told about (`HELM_PLUGINS=<this>:<default>`).
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

/// `config-hash install-helm-plugin`.
pub fn helm_plugin(plugins_dir: Option<PathBuf>) -> ExitCode {
    let env = |k: &str| std::env::var(k).ok();
    let chosen = plugins_dir.is_some();
    let Some(mut dir) = super::plugin::helm_plugins_dir(
        plugins_dir,
        env("HELM_PLUGINS").as_deref(),
        env("XDG_DATA_HOME").as_deref(),
        env("HOME").as_deref(),
    ) else {
        return fail(
            "none of HELM_PLUGINS, XDG_DATA_HOME, HOME is set; pass --plugins-dir \"$(helm env HELM_PLUGINS)\"",
        );
    };
    // Helm 3 cannot load a Helm 4 plugin and then fails every plugin command.
    if let Some((helm3, version)) = helm3_reading(&dir) {
        if chosen {
            eprintln!(
                "warning: Helm {version} ({}) reads plugins from {} too and cannot load a Helm 4 plugin: \
                 its plugin commands will fail",
                helm3.display(),
                dir.display()
            );
        } else {
            let shared = dir;
            dir = helm4_only_dir(&shared);
            eprintln!(
                "config-hash: Helm {version} ({}) reads plugins from {} and cannot load a Helm 4 plugin, \
                 so the plugin goes to {} instead. Run Helm 4 with HELM_PLUGINS={}:{} (for example \
                 alias helm4='HELM_PLUGINS={}:{} helm4')",
                helm3.display(),
                shared.display(),
                dir.display(),
                dir.display(),
                shared.display(),
                dir.display(),
                shared.display(),
            );
        }
    }
    let plugin = dir.join(super::plugin::HELM_PLUGIN_NAME);
    // A link to this binary beside plugin.yaml: the plugin works whatever PATH Helm runs
    // with, and upgrading the binary upgrades it.
    if let Err(e) = link_self_to(&plugin.join("config-hash")) {
        return fail(e);
    }
    let yaml = super::plugin::helm_plugin_yaml("${HELM_PLUGIN_DIR}/config-hash");
    let manifest = plugin.join("plugin.yaml");
    // A link there is replaced, never written through: its target may be any file.
    if manifest
        .symlink_metadata()
        .is_ok_and(|m| m.file_type().is_symlink())
    {
        if let Err(e) = std::fs::remove_file(&manifest) {
            return fail(format!(
                "cannot replace the link {}: {e}",
                manifest.display()
            ));
        }
    }
    if let Err(e) = std::fs::write(&manifest, yaml) {
        return fail(format!("cannot write {}: {e}", manifest.display()));
    }
    println!("{}", plugin.display());
    ExitCode::SUCCESS
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
