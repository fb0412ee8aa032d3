//! The plugin protocols config-hash speaks: kustomize's legacy exec plugin (where
//! kustomize looks for it, and how to tell its invocation, one argument naming a file
//! that holds the ConfigHash object, apart from a list of manifest files), and Helm 4's
//! `postrenderer/v1` plugin (where Helm looks for it and its `plugin.yaml`).

use std::path::PathBuf;

use config_hash::model::config::{CONFIG_API_VERSION, CONFIG_KIND};

/// Where `kubectl kustomize --enable-alpha-plugins` looks for the ConfigHash plugin:
/// `<plugin home>/config-hash.dev/v1alpha1/confighash/ConfigHash`, the plugin home being
/// `$XDG_CONFIG_HOME/kustomize/plugin`, with XDG_CONFIG_HOME defaulting to `$HOME/.config`.
pub fn plugin_path(
    plugin_home: Option<PathBuf>,
    xdg_config_home: Option<&str>,
    home: Option<&str>,
) -> Option<PathBuf> {
    let base = match (plugin_home, xdg_config_home.filter(|s| !s.is_empty()), home) {
        (Some(dir), _, _) => dir,
        (None, Some(xdg), _) => PathBuf::from(xdg).join("kustomize").join("plugin"),
        (None, None, Some(home)) => PathBuf::from(home)
            .join(".config")
            .join("kustomize")
            .join("plugin"),
        (None, None, None) => return None,
    };
    let (group, version) = CONFIG_API_VERSION.split_once('/')?;
    Some(
        base.join(group)
            .join(version)
            .join(CONFIG_KIND.to_lowercase())
            .join(CONFIG_KIND),
    )
}

/// True when `text` is a single ConfigHash object: the argument kustomize passes. Only
/// a text that spells the kind, or could spell it with an escape, is parsed: the one
/// file of `config-hash manifests.yaml` is not parsed whole on one thread before the run.
pub fn is_plugin_config(text: &str) -> bool {
    let may_spell = |needle: &[u8]| memchr::memmem::find(text.as_bytes(), needle).is_some();
    if !may_spell(CONFIG_KIND.as_bytes()) && !may_spell(b"\\") {
        return false;
    }
    let Ok(tree) = config_hash::yaml::parse(text) else {
        return false;
    };
    let [doc] = tree.documents() else {
        return false;
    };
    let field = |k: &str| tree.get(doc.root(), k).and_then(|n| tree.str(n));
    field("apiVersion") == Some(CONFIG_API_VERSION) && field("kind") == Some(CONFIG_KIND)
}

/// The name Helm 4 knows the post-renderer plugin by: `--post-renderer config-hash`.
pub const HELM_PLUGIN_NAME: &str = "config-hash";

/// Where Helm 4 looks for plugins, per `helm env HELM_PLUGINS` on Linux: `$HELM_PLUGINS`,
/// else `$XDG_DATA_HOME/helm/plugins`, XDG_DATA_HOME defaulting to `$HOME/.local/share`.
/// (macOS and Windows use other defaults; there, pass `--plugins-dir "$(helm env
/// HELM_PLUGINS)"`.) The plugin itself goes in `<dir>/config-hash`.
pub fn helm_plugins_dir(
    plugins_dir: Option<PathBuf>,
    helm_plugins: Option<&str>,
    xdg_data_home: Option<&str>,
    home: Option<&str>,
) -> Option<PathBuf> {
    let nonempty = |s: Option<&str>| s.filter(|s| !s.is_empty()).map(PathBuf::from);
    if let Some(dir) = plugins_dir {
        return Some(dir);
    }
    if let Some(dir) = nonempty(helm_plugins) {
        // Helm reads HELM_PLUGINS as a PATH-like list and installs into its first entry.
        let first = dir
            .to_str()
            .and_then(|s| s.split(':').next())
            .map(PathBuf::from);
        return first.or(Some(dir));
    }
    let data = nonempty(xdg_data_home)
        .or_else(|| nonempty(home).map(|h| h.join(".local").join("share")))?;
    Some(data.join("helm").join("plugins"))
}

/// Helm 4's `plugin.yaml` for a `postrenderer/v1` plugin whose command is `command`
/// (Helm expands `${HELM_PLUGIN_DIR}` in it). Helm runs the command with the rendered
/// manifests on stdin and the `--post-renderer-args` as its arguments, and reads the
/// stamped manifests from stdout.
pub fn helm_plugin_yaml(command: &str) -> String {
    format!(
        "# Written by `config-hash install-helm-plugin`: lets Helm 4 run config-hash as a\n\
         # post-renderer (`helm template|install|upgrade --post-renderer config-hash`).\n\
         apiVersion: v1\n\
         type: postrenderer/v1\n\
         name: {HELM_PLUGIN_NAME}\n\
         version: {version}\n\
         runtime: subprocess\n\
         runtimeConfig:\n\
         \x20 platformCommand:\n\
         \x20 - command: {command}\n",
        version = env!("CARGO_PKG_VERSION"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_xdg_then_home() {
        let p = plugin_path(None, Some("/x"), Some("/h")).unwrap();
        assert_eq!(
            p,
            PathBuf::from("/x/kustomize/plugin/config-hash.dev/v1alpha1/confighash/ConfigHash")
        );
        let p = plugin_path(None, None, Some("/h")).unwrap();
        assert_eq!(
            p,
            PathBuf::from(
                "/h/.config/kustomize/plugin/config-hash.dev/v1alpha1/confighash/ConfigHash"
            )
        );
        assert!(plugin_path(None, None, None).is_none());
    }

    #[test]
    fn recognises_the_config_object() {
        assert!(is_plugin_config(
            "apiVersion: config-hash.dev/v1alpha1\nkind: ConfigHash\nmetadata: {name: x}\n"
        ));
        assert!(!is_plugin_config("apiVersion: v1\nkind: ConfigMap\n"));
        // The kind spelled with an escape is still the kind.
        assert!(is_plugin_config(
            "{\"apiVersion\": \"config-hash.dev/v1alpha1\", \"kind\": \"Config\\u0048ash\"}"
        ));
        assert!(is_plugin_config(
            "apiVersion: config-hash.dev/v1alpha1\nkind: \"Config\\x48ash\"\n"
        ));
    }

    #[test]
    fn finds_helm_plugins_like_helm_env() {
        let dir = |a, b, c, d| helm_plugins_dir(a, b, c, d).unwrap();
        assert_eq!(
            dir(Some("/p".into()), Some("/e"), None, None),
            PathBuf::from("/p")
        );
        assert_eq!(
            dir(None, Some("/e:/f"), Some("/x"), None),
            PathBuf::from("/e")
        );
        assert_eq!(
            dir(None, Some(""), Some("/x"), Some("/h")),
            PathBuf::from("/x/helm/plugins")
        );
        assert_eq!(
            dir(None, None, None, Some("/h")),
            PathBuf::from("/h/.local/share/helm/plugins")
        );
        assert!(helm_plugins_dir(None, None, None, None).is_none());
    }

    #[test]
    fn helm_plugin_yaml_names_the_command() {
        let text = helm_plugin_yaml("${HELM_PLUGIN_DIR}/config-hash");
        assert!(text.contains("\ntype: postrenderer/v1\n"), "{text}");
        assert!(
            text.ends_with("  platformCommand:\n  - command: ${HELM_PLUGIN_DIR}/config-hash\n"),
            "{text}"
        );
    }
}
