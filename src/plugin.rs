//! The kustomize legacy exec-plugin protocol: where kustomize looks for the plugin, and
//! how to tell its invocation (one argument: a file holding the ConfigHash object) apart
//! from a list of manifest files.

use std::path::PathBuf;

use crate::config::{CONFIG_API_VERSION, CONFIG_KIND};
use crate::yaml::Tree;

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

/// True when `text` is a single ConfigHash object: the argument kustomize passes.
pub fn is_plugin_config(text: &str) -> bool {
    let Ok(tree) = Tree::parse(text) else {
        return false;
    };
    let [doc] = tree.docs.as_slice() else {
        return false;
    };
    let field = |k: &str| tree.get(doc.root, k).and_then(|n| tree.str(n));
    field("apiVersion") == Some(CONFIG_API_VERSION) && field("kind") == Some(CONFIG_KIND)
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
    }
}
