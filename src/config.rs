//! The function's configuration: read from a ConfigMap (every value a string, as kpt
//! sends `key=value` pairs) or a typed ConfigHash object, with defaults and validation.

use crate::catalog::{self, Extension};
use crate::yaml::{NodeId, Tree};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Annotation,
    Env,
    Both,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Granularity {
    Key,
    Object,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnMissing {
    Warn,
    Error,
    Ignore,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    pub mode: Mode,
    pub annotation_key: String,
    pub env_name: String,
    pub granularity: Granularity,
    pub on_missing: OnMissing,
    /// Give every ConfigMap/Secret a kustomize-compatible hashed name.
    pub name_suffix: bool,
    /// Mark suffixed objects `immutable: true`.
    pub immutable: bool,
    /// Workload kinds and name-reference sites the user adds to the catalog.
    pub catalog: Extension,
    /// The HMAC key for keyed hashes. Never read from a functionConfig (which lives in
    /// git): only the binary sets it, from a key file or the environment.
    pub hash_key: Option<crate::hashing::HashKey>,
}

pub const DEFAULT_ANNOTATION_KEY: &str = "config-hash.dev/hash";
pub const DEFAULT_ENV_NAME: &str = "CONFIG_HASH";
pub const CONFIG_API_VERSION: &str = "config-hash.dev/v1alpha1";
pub const CONFIG_KIND: &str = "ConfigHash";

/// Every field, in the order the messages list them.
pub const FIELDS: &[&str] = &[
    "mode",
    "annotationKey",
    "envName",
    "granularity",
    "onMissing",
    "nameSuffix",
    "immutable",
    "workloads",
    "references",
];

/// Fields that hold structures, accepted only in a ConfigHash's `spec`.
const CATALOG_FIELDS: &[&str] = &["workloads", "references"];

impl Default for Config {
    fn default() -> Self {
        Config {
            mode: Mode::Annotation,
            annotation_key: DEFAULT_ANNOTATION_KEY.to_string(),
            env_name: DEFAULT_ENV_NAME.to_string(),
            granularity: Granularity::Key,
            on_missing: OnMissing::Warn,
            name_suffix: false,
            immutable: false,
            catalog: Extension::default(),
            hash_key: None,
        }
    }
}

/// A configuration problem, worded for the user: it names the field and what is accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// Field path in the functionConfig, e.g. `data.mode` or `spec.mode`.
    pub field: Option<String>,
    pub message: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

const BOOLS: &[(&str, bool)] = &[("true", true), ("false", false)];

fn one_of<T: Copy>(field: &str, value: &str, choices: &[(&str, T)]) -> Result<T, String> {
    choices
        .iter()
        .find(|(name, _)| *name == value)
        .map(|&(_, v)| v)
        .ok_or_else(|| {
            let names: Vec<&str> = choices.iter().map(|c| c.0).collect();
            format!(
                "{field}: {value:?} is not accepted; use one of: {}",
                names.join(", ")
            )
        })
}

impl Config {
    /// Sets one field from its string form. `Err` is a message naming the field.
    pub fn set(&mut self, field: &str, value: &str) -> Result<(), String> {
        match field {
            "mode" => {
                self.mode = one_of(
                    field,
                    value,
                    &[
                        ("annotation", Mode::Annotation),
                        ("env", Mode::Env),
                        ("both", Mode::Both),
                    ],
                )?
            }
            "granularity" => {
                self.granularity = one_of(
                    field,
                    value,
                    &[("key", Granularity::Key), ("object", Granularity::Object)],
                )?
            }
            "onMissing" => {
                self.on_missing = one_of(
                    field,
                    value,
                    &[
                        ("warn", OnMissing::Warn),
                        ("error", OnMissing::Error),
                        ("ignore", OnMissing::Ignore),
                    ],
                )?
            }
            "annotationKey" => {
                valid_annotation_key(value).map_err(|why| {
                    format!("annotationKey: {value:?} is not a valid annotation key: {why}")
                })?;
                self.annotation_key = value.to_string();
            }
            "envName" => {
                if !valid_env_name(value) {
                    return Err(format!(
                        "envName: {value:?} is not a valid environment variable name (letters, digits, '_', '-', '.', not starting with a digit)"
                    ));
                }
                self.env_name = value.to_string();
            }
            "nameSuffix" => self.name_suffix = one_of(field, value, BOOLS)?,
            "immutable" => self.immutable = one_of(field, value, BOOLS)?,
            _ => {
                return Err(format!(
                    "{field}: unknown field; accepted fields: {}",
                    FIELDS.join(", ")
                ));
            }
        }
        Ok(())
    }

    pub fn writes_annotation(&self) -> bool {
        matches!(self.mode, Mode::Annotation | Mode::Both)
    }

    pub fn writes_env(&self) -> bool {
        matches!(self.mode, Mode::Env | Mode::Both)
    }

    /// Reads the functionConfig item, if any.
    pub fn from_function_config(
        tree: &Tree<'_>,
        node: Option<NodeId>,
    ) -> Result<Config, ConfigError> {
        let mut config = Config::default();
        let Some(node) = node.filter(|&n| !tree.is_null(n)) else {
            return Ok(config);
        };
        let text = |key: &str| tree.get(node, key).and_then(|n| tree.str(n)).unwrap_or("");
        let (api_version, kind) = (text("apiVersion"), text("kind"));
        let section = match (api_version, kind) {
            ("v1", "ConfigMap") => "data",
            (CONFIG_API_VERSION, CONFIG_KIND) => "spec",
            _ => {
                return Err(ConfigError {
                    field: Some("kind".into()),
                    message: format!(
                        "functionConfig {api_version}/{kind} is not accepted; use apiVersion: v1, kind: ConfigMap (fields under data) or apiVersion: {CONFIG_API_VERSION}, kind: {CONFIG_KIND} (fields under spec)"
                    ),
                });
            }
        };
        let Some(fields) = tree.get(node, section).filter(|&n| !tree.is_null(n)) else {
            return Ok(config);
        };
        if !tree.is_map(fields) {
            return Err(ConfigError {
                field: Some(section.into()),
                message: format!(
                    "functionConfig {section} must be a mapping of fields; accepted fields: {}",
                    FIELDS.join(", ")
                ),
            });
        }
        if section == "spec" {
            config.catalog = catalog::read_extension(
                tree,
                tree.get(fields, "workloads"),
                tree.get(fields, "references"),
                section,
            )
            .map_err(|errors| {
                let first = errors[0].field.clone();
                let messages: Vec<String> = errors.into_iter().map(|e| e.message).collect();
                ConfigError {
                    field: Some(first),
                    message: format!("functionConfig {}", messages.join("; ")),
                }
            })?;
        }
        for (k, v) in tree.entries(fields) {
            let key = tree.str(k).unwrap_or("");
            if CATALOG_FIELDS.contains(&key) {
                if section == "spec" {
                    continue;
                }
                return Err(ConfigError {
                    field: Some(format!("{section}.{key}")),
                    message: format!(
                        "functionConfig {section}.{key}: lists of entries need the typed form: apiVersion: {CONFIG_API_VERSION}, kind: {CONFIG_KIND}, with {key} under spec"
                    ),
                });
            }
            let path = format!("{section}.{key}");
            let value = tree.str(v).ok_or_else(|| ConfigError {
                field: Some(path.clone()),
                message: format!("functionConfig {path} must be a string"),
            })?;
            config.set(key, value).map_err(|message| ConfigError {
                field: Some(path.clone()),
                message: format!("functionConfig {section}.{message}"),
            })?;
        }
        Ok(config)
    }
}

/// Kubernetes annotation key rules: an optional DNS-subdomain prefix and `/`, then a
/// name of at most 63 characters of alphanumerics, `-`, `_`, `.`, starting and ending
/// alphanumeric.
pub fn valid_annotation_key(key: &str) -> Result<(), &'static str> {
    let (prefix, name) = match key.split_once('/') {
        Some((p, n)) => (Some(p), n),
        None => (None, key),
    };
    if let Some(p) = prefix {
        let label_ok = |l: &str| {
            !l.is_empty()
                && l.len() <= 63
                && l.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
                && !l.starts_with('-')
                && !l.ends_with('-')
        };
        if p.is_empty() || p.len() > 253 || !p.split('.').all(label_ok) {
            return Err(
                "the prefix before '/' must be a lowercase DNS subdomain such as example.com",
            );
        }
    }
    let alnum = |b: u8| b.is_ascii_alphanumeric();
    let bytes = name.as_bytes();
    if name.is_empty() || name.len() > 63 {
        return Err("the name after the prefix must be 1 to 63 characters");
    }
    if !alnum(bytes[0]) || !alnum(bytes[bytes.len() - 1]) {
        return Err("the name must start and end with a letter or digit");
    }
    if !bytes
        .iter()
        .all(|&b| alnum(b) || b == b'-' || b == b'_' || b == b'.')
    {
        return Err("the name may contain only letters, digits, '-', '_' and '.'");
    }
    Ok(())
}

/// Environment variable names as Kubernetes has always accepted them.
pub fn valid_env_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    matches!(bytes.next(), Some(b) if b.is_ascii_alphabetic() || b == b'_' || b == b'-' || b == b'.')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-' || b == b'.')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(src: &str) -> Result<Config, ConfigError> {
        let tree = Tree::parse(src).unwrap();
        Config::from_function_config(&tree, Some(tree.docs[0].root))
    }

    #[test]
    fn reads_both_forms() {
        let cm =
            parse("apiVersion: v1\nkind: ConfigMap\ndata: {mode: env, onMissing: error}").unwrap();
        assert_eq!(cm.mode, Mode::Env);
        assert_eq!(cm.on_missing, OnMissing::Error);
        let typed = parse("apiVersion: config-hash.dev/v1alpha1\nkind: ConfigHash\nspec: {granularity: object, annotationKey: example.com/h}").unwrap();
        assert_eq!(typed.granularity, Granularity::Object);
        assert_eq!(typed.annotation_key, "example.com/h");
    }

    #[test]
    fn errors_name_the_field_and_the_choices() {
        let e = parse("apiVersion: v1\nkind: ConfigMap\ndata: {mode: sideways}").unwrap_err();
        assert_eq!(e.field.as_deref(), Some("data.mode"));
        assert!(e.message.contains("annotation, env, both"), "{}", e.message);
        let e = parse("apiVersion: v1\nkind: ConfigMap\ndata: {colour: red}").unwrap_err();
        assert!(e.message.contains("accepted fields: mode"), "{}", e.message);
        let e = parse("apiVersion: v1\nkind: Secret").unwrap_err();
        assert!(e.message.contains("ConfigHash"), "{}", e.message);
    }

    #[test]
    fn validates_keys_and_env_names() {
        assert!(valid_annotation_key("config-hash.dev/hash").is_ok());
        assert!(valid_annotation_key("hash").is_ok());
        assert!(valid_annotation_key("Bad.Prefix/x").is_err());
        assert!(valid_annotation_key("x/-bad").is_err());
        assert!(valid_annotation_key("a/b/c").is_err());
        assert!(valid_env_name("CONFIG_HASH"));
        assert!(!valid_env_name("1X"));
        assert!(!valid_env_name("A=B"));
    }
}
