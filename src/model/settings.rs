//! One run's settings: the configuration, and the catalog it extends. Built once from
//! the invocation (see [`crate::model::invocation`]); every command reads this value, so
//! none assembles its own.

use crate::model::catalog::Catalog;
use crate::model::config::Config;

/// The configuration and the catalog: what every command runs on.
#[derive(Debug, Clone)]
pub struct Settings {
    pub config: Config,
    /// The built-in catalog with the rows the configuration declares.
    pub catalog: Catalog,
}

impl Settings {
    pub fn new(config: Config) -> Settings {
        let mut catalog = Catalog::builtin();
        catalog.extend(&config.catalog);
        Settings { config, catalog }
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings::new(Config::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalog_has_the_rows_the_configuration_declares() {
        let tree = crate::yaml::parse(
            "apiVersion: config-hash.dev/v1alpha1\nkind: ConfigHash\nspec:\n  workloads:\n  - {group: example.com, kind: Widget, template: spec/template}\n",
        )
        .unwrap();
        let config = Config::from_function_config(&tree, Some(tree.documents()[0].root())).unwrap();
        let settings = Settings::new(config);
        assert!(
            settings
                .catalog
                .workload("example.com/v1", "Widget")
                .is_some()
        );
        assert!(
            Settings::default()
                .catalog
                .workload("example.com/v1", "Widget")
                .is_none()
        );
        assert_eq!(Settings::default().catalog, Catalog::builtin());
    }
}
