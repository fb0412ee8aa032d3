//! One run's configuration, assembled once: a config file (`-c`, a kpt package's Kptfile
//! step, the kustomize plugin's file), the ResourceList's own functionConfig (or the
//! Kptfile it carries), the flags and the hash key. Stamping, `--check`, `--in-place` and
//! `graph`, `diff`, `audit` and `prune` all run on the [`Settings`] this gives, so no
//! command assembles its own.
//!
//! Precedence, highest first: the flags; the config file; the input's functionConfig;
//! when the input has none, the config-hash step of a Kptfile among its items (what
//! `kpt fn source PKG` sends).

use crate::model::config::{Config, ConfigError, Overrides};
use crate::model::hash::HashKey;
use crate::model::settings::Settings;
use crate::yaml::{NodeId, Tree};

/// What a run is given besides the input: everything but the input's own functionConfig.
#[derive(Debug, Clone, Default)]
pub struct Invocation {
    /// A functionConfig document (ConfigMap or ConfigHash) from outside the input: a file
    /// named with `-c`, a kpt package's Kptfile step, the kustomize plugin's config. It
    /// replaces the input's own functionConfig.
    pub config_text: Option<String>,
    /// Field values (the command-line flags) that override everything else.
    pub overrides: Overrides,
    /// The HMAC-SHA256 key: stamp keyed hashes (`hmac-sha256:...`). The caller reads it
    /// from wherever it is kept; it never comes from a functionConfig.
    pub hash_key: Option<HashKey>,
    /// Read the whole input as one chunk (tests prove the result does not depend on it).
    pub one_chunk: bool,
}

/// Where the input keeps its own configuration.
#[derive(Clone, Copy)]
pub enum InputConfig<'t, 'a> {
    /// Nothing: a plain manifest stream, or a ResourceList without a functionConfig.
    None,
    /// A ResourceList's `functionConfig` node.
    FunctionConfig(&'t Tree<'a>, NodeId),
    /// A Kptfile item of a ResourceList without a functionConfig.
    Kptfile(&'t Tree<'a>, NodeId),
}

impl Invocation {
    /// The configuration of this run, reading `input` only where nothing outside the
    /// input configures it. Every problem is reported, not only the first.
    pub fn configure(&self, input: InputConfig<'_, '_>) -> Result<Config, Vec<ConfigError>> {
        let mut errors = Vec::new();
        let read = match (&self.config_text, input) {
            (Some(text), _) => read_text(text, "the config file"),
            (None, InputConfig::FunctionConfig(tree, node)) => {
                Config::from_function_config(tree, Some(node))
            }
            (None, InputConfig::Kptfile(tree, kptfile)) => match kptfile_step(tree, kptfile) {
                Ok(None | Some(KptStep::Bare)) => Ok(Config::default()),
                Ok(Some(KptStep::Map(text))) => read_text(&text, "the Kptfile's configMap"),
                Ok(Some(KptStep::Path(path))) => Err(vec![ConfigError {
                    field: None,
                    message: format!(
                        "the Kptfile in the input configures config-hash with configPath {path}, which cannot be read from a ResourceList; run config-hash --check PKG_DIR (or -c PKG_DIR/{path}) instead"
                    ),
                }]),
                Err(message) => Err(vec![ConfigError {
                    field: None,
                    message: format!("the Kptfile in the input: {message}"),
                }]),
            },
            (None, InputConfig::None) => Ok(Config::default()),
        };
        let mut config = read.unwrap_or_else(|e| {
            errors.extend(e);
            Config::default()
        });
        errors.extend(
            self.overrides
                .problems()
                .into_iter()
                .map(|(field, message)| ConfigError {
                    field: None,
                    message: format!("{field} (a flag): {message}"),
                }),
        );
        if !errors.is_empty() {
            return Err(errors);
        }
        self.overrides.apply(&mut config);
        config.hash_key = self.hash_key.clone();
        Ok(config)
    }

    /// The settings of this run: [`Invocation::configure`], and the catalog the
    /// configuration extends.
    pub fn settings(&self, input: InputConfig<'_, '_>) -> Result<Settings, Vec<ConfigError>> {
        self.configure(input).map(Settings::new)
    }

    /// Whether the input's own configuration matters: a Kptfile item is looked for only
    /// when nothing else configures the run.
    pub fn reads_input_config(&self) -> bool {
        self.config_text.is_none()
    }
}

fn read_text(text: &str, what: &str) -> Result<Config, Vec<ConfigError>> {
    match crate::yaml::parse(text) {
        Ok(file) => {
            let root = file.documents().first().map(|d| d.root());
            Config::from_function_config(&file, root)
        }
        Err(e) => Err(vec![ConfigError {
            field: None,
            message: format!("{what} is not YAML: {e}"),
        }]),
    }
}

/// What the first pipeline mutator of a Kptfile that runs config-hash (its `exec` or
/// `image` names config-hash) gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KptStep {
    /// No configuration: the defaults.
    Bare,
    /// `configMap:`, as a ConfigMap functionConfig document.
    Map(String),
    /// `configPath:`, relative to the package.
    Path(String),
}

/// The config-hash step of the Kptfile `text`, if its pipeline has one. `Err` is a
/// message without the Kptfile's name.
pub fn kptfile_text_step(text: &str) -> Result<Option<KptStep>, String> {
    let tree = crate::yaml::parse(text).map_err(|e| format!("not YAML: {e}"))?;
    match tree.documents().first() {
        Some(doc) => kptfile_step(&tree, doc.root()),
        None => Ok(None),
    }
}

/// The config-hash step of the Kptfile at `root`, if its pipeline has one.
pub fn kptfile_step(tree: &Tree<'_>, root: NodeId) -> Result<Option<KptStep>, String> {
    let mutators = tree
        .get(root, "pipeline")
        .and_then(|p| tree.get(p, "mutators"))
        .map(|m| tree.items(m).collect::<Vec<_>>())
        .unwrap_or_default();
    let runs_us = |step| {
        ["exec", "image"].iter().any(|k| {
            tree.get(step, k)
                .and_then(|n| tree.str(n))
                .is_some_and(|v| v.contains("config-hash"))
        })
    };
    let Some(step) = mutators.into_iter().find(|&s| runs_us(s)) else {
        return Ok(None);
    };
    if let Some(path) = tree.get(step, "configPath").and_then(|n| tree.str(n)) {
        return Ok(Some(KptStep::Path(path.to_string())));
    }
    let Some(map) = tree.get(step, "configMap").filter(|&m| tree.is_map(m)) else {
        return Ok(Some(KptStep::Bare));
    };
    let mut text =
        String::from("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Kptfile\ndata:\n");
    for (k, v) in tree.entries(map) {
        let (Some(k), Some(v)) = (tree.str(k), tree.str(v)) else {
            return Err("pipeline step configMap must map names to strings".to_string());
        };
        text.push_str(&format!(
            "  {}: {}\n",
            crate::yaml::scalar::double_quoted(k),
            crate::yaml::scalar::double_quoted(v)
        ));
    }
    Ok(Some(KptStep::Map(text)))
}

/// Whether `item` is the package's own Kptfile, as `kpt fn source` sends it (its path
/// annotation says `Kptfile`, at the package root).
pub fn is_package_kptfile(tree: &Tree<'_>, item: NodeId) -> bool {
    let str_of = |node, key: &str| tree.get(node, key).and_then(|n| tree.str(n));
    let path = tree
        .get(item, "metadata")
        .and_then(|m| tree.get(m, "annotations"))
        .and_then(|a| {
            crate::model::catalog::annotations::PATH
                .iter()
                .find_map(|k| str_of(a, k))
        });
    str_of(item, "kind") == Some("Kptfile") && path == Some("Kptfile")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::config::Mode;

    fn kptfile(pipeline: &str) -> String {
        format!(
            "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata: {{name: p}}\npipeline:\n{pipeline}"
        )
    }

    #[test]
    fn the_first_mutator_that_runs_config_hash_gives_the_configuration() {
        let text = kptfile(
            "  mutators:\n  - exec: other\n    configMap: {mode: both}\n  - image: localhost/config-hash:latest\n    configMap: {mode: env, 'a\"b': 'c'}\n",
        );
        let Some(KptStep::Map(map)) = kptfile_text_step(&text).unwrap() else {
            panic!("a configMap step")
        };
        assert!(map.contains("  \"mode\": \"env\"\n"), "{map}");
        assert!(map.contains("  \"a\\\"b\": \"c\"\n"), "{map}");
        assert_eq!(
            kptfile_text_step(&kptfile(
                "  mutators:\n  - exec: config-hash\n    configPath: c.yaml\n"
            )),
            Ok(Some(KptStep::Path("c.yaml".into())))
        );
        assert_eq!(
            kptfile_text_step(&kptfile("  mutators:\n  - exec: config-hash\n")),
            Ok(Some(KptStep::Bare))
        );
        assert_eq!(
            kptfile_text_step(&kptfile("  mutators:\n  - exec: other\n")),
            Ok(None)
        );
        assert!(
            kptfile_text_step(&kptfile(
                "  mutators:\n  - exec: config-hash\n    configMap: {mode: [env]}\n"
            ))
            .is_err()
        );
    }

    #[test]
    fn flags_override_the_config_file_which_replaces_the_input_config() {
        let input = crate::yaml::parse(
            "apiVersion: v1\nkind: ConfigMap\ndata: {mode: env, granularity: object}\n",
        )
        .unwrap();
        let node = input.documents()[0].root();
        let mut inv = Invocation::default();
        let config = inv
            .configure(InputConfig::FunctionConfig(&input, node))
            .unwrap();
        assert_eq!(config.mode, Mode::Env);
        inv.config_text = Some("apiVersion: v1\nkind: ConfigMap\ndata: {mode: both}\n".into());
        let config = inv
            .configure(InputConfig::FunctionConfig(&input, node))
            .unwrap();
        // The file replaces the input's config whole: its granularity is the default.
        assert_eq!(config.mode, Mode::Both);
        assert_eq!(config.granularity, crate::model::config::Granularity::Key);
        inv.overrides.mode = Some(Mode::Annotation);
        let config = inv
            .configure(InputConfig::FunctionConfig(&input, node))
            .unwrap();
        assert_eq!(config.mode, Mode::Annotation);
        inv.overrides.env_name = Some("1BAD".into());
        let errors = inv.configure(InputConfig::None).unwrap_err();
        assert!(
            errors[0].message.starts_with("envName (a flag):"),
            "{errors:?}"
        );
    }
}
