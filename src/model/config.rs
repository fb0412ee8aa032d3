//! The function's configuration: read from a ConfigMap (every value a string, as kpt
//! sends `key=value` pairs) or a typed ConfigHash object, with defaults and validation.

use crate::model::catalog::{CLUSTER_SCOPED, Extension, annotations};
use crate::model::extension::{self, EntryError, unknown_field};
pub use crate::model::gitops::GitOps;
use crate::model::resource::ResourceId;
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

/// How sources whose content changes outside git (an ExternalSecret's target, a
/// SecretProviderClass) reach the pods.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuntimeReload {
    /// Only what git holds is hashed; a result says so.
    None,
    /// Also write Reloader's explicit annotations listing exactly those sources.
    Reloader,
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
    pub runtime_reload: RuntimeReload,
    /// Workload kinds and name-reference sites the user adds to the catalog.
    pub catalog: Extension,
    /// The HMAC key for keyed hashes. Never read from a functionConfig (which lives in
    /// git): only the binary sets it, from a key file or the environment.
    pub hash_key: Option<crate::model::hash::HashKey>,
    /// Objects made at install time (by a Helm hook Job, an operator): a reference to
    /// one that is not in the input is expected, so not reported missing.
    pub install_time: Vec<InstallTime>,
    /// The namespace objects written without one are installed into (Helm's release
    /// namespace, `kubectl apply -n`): they are resolved as if written in it.
    pub namespace: Option<String>,
    /// The GitOps tool that applies the output: objects given a hashed name carry what
    /// it needs to leave deleting them to `config-hash prune`.
    pub gitops: Option<GitOps>,
}

/// One object declared as made at install time: `Secret/name`, or `Secret/ns/name` for
/// one namespace only.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallTime {
    pub kind: crate::model::catalog::SourceKind,
    pub namespace: Option<String>,
    pub name: String,
}

impl InstallTime {
    /// Reads a comma-separated list (`installTime: Secret/a, ConfigMap/ns/b`).
    pub fn parse_list(value: &str) -> Result<Vec<InstallTime>, String> {
        value
            .split(',')
            .map(str::trim)
            .filter(|entry| !entry.is_empty())
            .map(|entry| {
                let parts: Vec<&str> = entry.split('/').collect();
                let (kind, namespace, name) = match parts.as_slice() {
                    [kind, name] => (*kind, None, *name),
                    [kind, ns, name] => (*kind, Some(ns.to_string()), *name),
                    _ => return Err(format!("{entry:?} is not KIND/NAME or KIND/NAMESPACE/NAME")),
                };
                let kind = match kind {
                    "ConfigMap" => crate::model::catalog::SourceKind::ConfigMap,
                    "Secret" => crate::model::catalog::SourceKind::Secret,
                    _ => return Err(format!("{entry:?}: the kind must be ConfigMap or Secret")),
                };
                if name.is_empty() || namespace.as_deref() == Some("") {
                    return Err(format!("{entry:?} names nothing"));
                }
                Ok(InstallTime {
                    kind,
                    namespace,
                    name: name.to_string(),
                })
            })
            .collect()
    }

    /// Whether a reference to `kind` `name` in `namespace` names this object.
    pub fn matches(
        &self,
        kind: crate::model::catalog::SourceKind,
        namespace: Option<&str>,
        name: &str,
    ) -> bool {
        self.kind == kind
            && self.name == name
            && self
                .namespace
                .as_deref()
                .is_none_or(|ns| Some(ns) == namespace)
    }
}

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
    "runtimeReload",
    "installTime",
    "namespace",
    "gitops",
    "workloads",
    "references",
    "podReferences",
    "producers",
    "annotationReferences",
];

impl Default for Config {
    fn default() -> Self {
        Config {
            mode: Mode::Annotation,
            annotation_key: annotations::HASH.to_string(),
            env_name: DEFAULT_ENV_NAME.to_string(),
            granularity: Granularity::Key,
            on_missing: OnMissing::Warn,
            name_suffix: false,
            immutable: false,
            runtime_reload: RuntimeReload::None,
            catalog: Extension::default(),
            hash_key: None,
            install_time: Vec::new(),
            namespace: None,
            gitops: None,
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

/// `functionConfig FIELD: MESSAGE`, or the message alone when no field is at fault (a
/// flag, a config file that is not YAML): the error as it reads on its own, on stderr
/// or in a usage error. A result holds the field apart (kpt prints `field: message`),
/// so its message is [`ConfigError::message`] alone.
impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write_problem(f, self.field.as_deref(), &self.message)
    }
}

impl std::error::Error for ConfigError {}

/// Worded as the [`ConfigError`] it becomes.
impl std::fmt::Display for EntryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write_problem(f, Some(&self.field), &self.message)
    }
}

impl From<EntryError> for ConfigError {
    fn from(e: EntryError) -> Self {
        ConfigError {
            field: Some(e.field),
            message: e.message,
        }
    }
}

/// A configuration problem, with the functionConfig field at fault if one is.
fn write_problem(
    f: &mut std::fmt::Formatter<'_>,
    field: Option<&str>,
    message: &str,
) -> std::fmt::Result {
    match field {
        Some(field) => write!(f, "functionConfig {field}: {message}"),
        None => f.write_str(message),
    }
}

/// Field values typed as the configuration holds them: what a functionConfig's fields
/// and the command-line flags both parse into. Each `Some` replaces that field.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Overrides {
    pub mode: Option<Mode>,
    pub annotation_key: Option<String>,
    pub env_name: Option<String>,
    pub granularity: Option<Granularity>,
    pub on_missing: Option<OnMissing>,
    pub name_suffix: Option<bool>,
    pub immutable: Option<bool>,
    pub runtime_reload: Option<RuntimeReload>,
    pub install_time: Option<Vec<InstallTime>>,
    pub namespace: Option<String>,
    /// `Some(None)`: no GitOps hand-off (`none`), replacing what a config file says.
    pub gitops: Option<Option<GitOps>>,
}

// The words each field accepts, and what they mean: what `Overrides::set` parses and
// what `accepts` tells the JSON Schema of the functionConfig.
const BOOLS: &[(&str, bool)] = &[("true", true), ("false", false)];
const MODES: &[(&str, Mode)] = &[
    ("annotation", Mode::Annotation),
    ("env", Mode::Env),
    ("both", Mode::Both),
];
const GRANULARITIES: &[(&str, Granularity)] =
    &[("key", Granularity::Key), ("object", Granularity::Object)];
const ON_MISSING: &[(&str, OnMissing)] = &[
    ("warn", OnMissing::Warn),
    ("error", OnMissing::Error),
    ("ignore", OnMissing::Ignore),
];
const RUNTIME_RELOADS: &[(&str, RuntimeReload)] = &[
    ("none", RuntimeReload::None),
    ("reloader", RuntimeReload::Reloader),
];
const GITOPS: &[(&str, Option<GitOps>)] = &[
    ("argocd", Some(GitOps::ArgoCd)),
    ("flux", Some(GitOps::Flux)),
    ("none", None),
];

/// What a field's value may be, as a schema states it (the JSON Schema of the
/// functionConfig is built from [`FIELDS`] and this).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Accepts {
    /// One of these words.
    OneOf(Vec<&'static str>),
    /// `true` or `false` (in a ConfigMap's data, the strings).
    Bool,
    /// Any text; what it must look like is checked when the run reads it.
    Text,
    /// A list of catalog entries (the typed form only): see the catalog's page.
    Entries,
}

/// What `field`, one of [`FIELDS`], accepts: read off the tables `Overrides::set`
/// parses with. `None` for a field that is not one.
pub fn accepts(field: &str) -> Option<Accepts> {
    fn words<T>(table: &[(&'static str, T)]) -> Accepts {
        Accepts::OneOf(table.iter().map(|&(word, _)| word).collect())
    }
    Some(match field {
        "mode" => words(MODES),
        "granularity" => words(GRANULARITIES),
        "onMissing" => words(ON_MISSING),
        "runtimeReload" => words(RUNTIME_RELOADS),
        "gitops" => words(GITOPS),
        "nameSuffix" | "immutable" => Accepts::Bool,
        "annotationKey" | "envName" | "installTime" | "namespace" => Accepts::Text,
        f if extension::FIELDS.contains(&f) => Accepts::Entries,
        _ => return None,
    })
}

fn one_of<T: Copy>(value: &str, choices: &[(&str, T)]) -> Result<T, String> {
    choices
        .iter()
        .find(|(name, _)| *name == value)
        .map(|&(_, v)| v)
        .ok_or_else(|| {
            let names: Vec<&str> = choices.iter().map(|c| c.0).collect();
            format!(
                "{value:?} is not accepted; use one of: {}",
                names.join(", ")
            )
        })
}

impl Overrides {
    /// Sets one field from its string form (a functionConfig value). `Err` says what is
    /// wrong with the value; the caller names the field.
    pub fn set(&mut self, field: &str, value: &str) -> Result<(), String> {
        match field {
            "mode" => self.mode = Some(one_of(value, MODES)?),
            "granularity" => self.granularity = Some(one_of(value, GRANULARITIES)?),
            "onMissing" => self.on_missing = Some(one_of(value, ON_MISSING)?),
            "annotationKey" => self.annotation_key = Some(value.to_string()),
            "envName" => self.env_name = Some(value.to_string()),
            "nameSuffix" => self.name_suffix = Some(one_of(value, BOOLS)?),
            "immutable" => self.immutable = Some(one_of(value, BOOLS)?),
            "runtimeReload" => self.runtime_reload = Some(one_of(value, RUNTIME_RELOADS)?),
            "installTime" => self.install_time = Some(InstallTime::parse_list(value)?),
            "namespace" => self.namespace = Some(value.to_string()),
            "gitops" => self.gitops = Some(one_of(value, GITOPS)?),
            _ => return Err(unknown_field(field, FIELDS)),
        }
        Ok(())
    }

    /// What is wrong with the values that are set, by field name.
    pub fn problems(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        if let Some(key) = &self.annotation_key {
            if let Err(why) = crate::model::names::valid_annotation_key(key) {
                out.push((
                    "annotationKey",
                    format!("{key:?} is not a valid annotation key: {why}"),
                ));
            }
        }
        if let Some(ns) = &self.namespace {
            if !ns.is_empty() && !crate::model::names::valid_namespace(ns) {
                out.push((
                    "namespace",
                    format!(
                        "{ns:?} is not a valid namespace name (lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters)"
                    ),
                ));
            }
        }
        if let Some(name) = &self.env_name {
            if !crate::model::names::valid_env_name(name) {
                out.push((
                    "envName",
                    format!(
                        "{name:?} is not a valid environment variable name (letters, digits, '_', '-', '.', not starting with a digit)"
                    ),
                ));
            }
        }
        out
    }

    /// Replaces the fields that are set.
    pub fn apply(&self, config: &mut Config) {
        let Overrides {
            mode,
            annotation_key,
            env_name,
            granularity,
            on_missing,
            name_suffix,
            immutable,
            runtime_reload,
            install_time,
            namespace,
            gitops,
        } = self;
        if let Some(v) = gitops {
            config.gitops = *v;
        }
        if let Some(v) = install_time {
            config.install_time.clone_from(v);
        }
        if let Some(v) = namespace {
            config.namespace = (!v.is_empty()).then(|| v.clone());
        }
        if let Some(v) = runtime_reload {
            config.runtime_reload = *v;
        }
        if let Some(v) = mode {
            config.mode = *v;
        }
        if let Some(v) = annotation_key {
            config.annotation_key.clone_from(v);
        }
        if let Some(v) = env_name {
            config.env_name.clone_from(v);
        }
        if let Some(v) = granularity {
            config.granularity = *v;
        }
        if let Some(v) = on_missing {
            config.on_missing = *v;
        }
        if let Some(v) = name_suffix {
            config.name_suffix = *v;
        }
        if let Some(v) = immutable {
            config.immutable = *v;
        }
    }
}

impl Config {
    /// The object as installed: written without a namespace, a namespaced object lands
    /// in the one the configuration names (Helm's release namespace, `kubectl apply
    /// -n`), so it is resolved there.
    pub fn placed(&self, id: ResourceId) -> ResourceId {
        match &self.namespace {
            Some(ns) if id.namespace().is_none() && !CLUSTER_SCOPED.contains(&id.kind()) => {
                id.with_namespace(Some(ns))
            }
            _ => id,
        }
    }

    pub fn writes_annotation(&self) -> bool {
        matches!(self.mode, Mode::Annotation | Mode::Both)
    }

    pub fn writes_env(&self) -> bool {
        matches!(self.mode, Mode::Env | Mode::Both)
    }

    /// Reads the functionConfig item, if any. Every problem is reported, each once: the
    /// field path is in `field`, not repeated in the message.
    pub fn from_function_config(
        tree: &Tree<'_>,
        node: Option<NodeId>,
    ) -> Result<Config, Vec<ConfigError>> {
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
                return Err(vec![ConfigError {
                    field: Some("kind".into()),
                    message: format!(
                        "functionConfig {api_version}/{kind} is not accepted; use apiVersion: v1, kind: ConfigMap (fields under data) or apiVersion: {CONFIG_API_VERSION}, kind: {CONFIG_KIND} (fields under spec)"
                    ),
                }]);
            }
        };
        let Some(fields) = tree.get(node, section).filter(|&n| !tree.is_null(n)) else {
            return Ok(config);
        };
        if !tree.is_map(fields) {
            return Err(vec![ConfigError {
                field: Some(section.into()),
                message: format!(
                    "must be a mapping of fields; accepted fields: {}",
                    FIELDS.join(", ")
                ),
            }]);
        }
        let mut set = Overrides::default();
        let mut errors = Vec::new();
        if section == "spec" {
            match extension::read(tree, fields, section) {
                Ok(ext) => config.catalog = ext,
                Err(entries) => errors.extend(entries.into_iter().map(ConfigError::from)),
            }
        }
        for (k, v) in tree.entries(fields) {
            let key = tree.str(k).unwrap_or("");
            let path = format!("{section}.{key}");
            if extension::FIELDS.contains(&key) {
                if section != "spec" {
                    errors.push(ConfigError {
                        field: Some(path),
                        message: format!(
                            "a list of entries needs the typed form: apiVersion: {CONFIG_API_VERSION}, kind: {CONFIG_KIND}, with {key} under spec"
                        ),
                    });
                }
                continue;
            }
            let result = match tree.str(v) {
                Some(value) => set.set(key, value),
                None => Err("must be a string".to_string()),
            };
            if let Err(message) = result {
                errors.push(ConfigError {
                    field: Some(path),
                    message,
                });
            }
        }
        errors.extend(
            set.problems()
                .into_iter()
                .map(|(key, message)| ConfigError {
                    field: Some(format!("{section}.{key}")),
                    message,
                }),
        );
        if !errors.is_empty() {
            return Err(errors);
        }
        set.apply(&mut config);
        Ok(config)
    }
}

/// Whether `item` looks like config-hash's own configuration: a `config-hash.dev/v1alpha1`
/// ConfigHash, or a ConfigMap marked `config.kubernetes.io/local-config` whose `data`
/// holds only config-hash's fields. Among plain manifests such an object is passed
/// through, not read: the user most likely forgot `-c`.
pub fn looks_like_function_config(tree: &Tree<'_>, item: NodeId) -> bool {
    let field = |k: &str| tree.get(item, k).and_then(|n| tree.str(n));
    match (field("apiVersion"), field("kind")) {
        (Some(CONFIG_API_VERSION), Some(CONFIG_KIND)) => true,
        (Some("v1"), Some("ConfigMap")) => {
            let data = tree
                .get(item, "data")
                .map(|d| tree.entries(d))
                .unwrap_or_default();
            crate::model::resource::is_local_config(tree, item)
                && !data.is_empty()
                && data
                    .iter()
                    .all(|&(k, _)| tree.str(k).is_some_and(|k| FIELDS.contains(&k)))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_unknown_field_names_the_one_it_was_likely_meant_to_be() {
        for (typed, meant) in [
            ("mdoe", "mode"),
            ("env_name", "envName"),
            ("annotationkey", "annotationKey"),
            ("onmissing", "onMissing"),
        ] {
            let message = super::unknown_field(typed, super::FIELDS);
            assert!(
                message.starts_with(&format!("unknown field; did you mean {meant}? ")),
                "{typed}: {message}"
            );
        }
        let message = super::unknown_field("colour", super::FIELDS);
        assert!(
            message.starts_with("unknown field; accepted fields: "),
            "{message}"
        );
    }

    use super::*;

    fn parse(src: &str) -> Result<Config, Vec<ConfigError>> {
        let tree = crate::yaml::parse(src).unwrap();
        Config::from_function_config(&tree, Some(tree.documents()[0].root()))
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
        assert_eq!(e[0].field.as_deref(), Some("data.mode"));
        assert!(
            e[0].message.contains("annotation, env, both"),
            "{}",
            e[0].message
        );
        let e = parse("apiVersion: v1\nkind: ConfigMap\ndata: {colour: red}").unwrap_err();
        assert!(
            e[0].message.contains("accepted fields: mode"),
            "{}",
            e[0].message
        );
        let e = parse("apiVersion: v1\nkind: Secret").unwrap_err();
        assert!(e[0].message.contains("ConfigHash"), "{}", e[0].message);
    }

    /// Every problem once, the path in `field` only (kpt prints `field: message`).
    #[test]
    fn every_error_reported_and_worded_once() {
        let e = parse(
            "apiVersion: v1\nkind: ConfigMap\ndata: {mode: sideways, colour: red, annotationKey: 'a b', immutable: yes}",
        )
        .unwrap_err();
        let fields: Vec<&str> = e.iter().filter_map(|e| e.field.as_deref()).collect();
        assert_eq!(
            fields,
            [
                "data.mode",
                "data.colour",
                "data.immutable",
                "data.annotationKey"
            ]
        );
        for e in &e {
            assert!(!e.message.contains("data."), "{}", e.message);
            assert!(!e.message.contains("functionConfig"), "{}", e.message);
        }
    }

    /// On its own (stderr, a usage error) an error names its field once, as an entry of
    /// the catalog's lists does, which becomes one.
    #[test]
    fn an_error_on_its_own_names_the_functionconfig_field() {
        let e = parse("apiVersion: v1\nkind: ConfigMap\ndata: {colour: red}").unwrap_err();
        assert_eq!(
            e[0].to_string(),
            format!("functionConfig data.colour: {}", e[0].message)
        );
        let flag = ConfigError {
            field: None,
            message: "envName (a flag): \"1X\" is not a name".into(),
        };
        assert_eq!(flag.to_string(), flag.message);
        let entry = EntryError {
            field: "spec.workloads[0].template".into(),
            message: "must be a path".into(),
        };
        assert_eq!(
            entry.to_string(),
            "functionConfig spec.workloads[0].template: must be a path"
        );
        assert_eq!(
            ConfigError::from(entry.clone()).to_string(),
            entry.to_string()
        );
    }

    #[test]
    fn config_lookalikes_are_confighash_objects_and_local_function_configs() {
        let looks = |src: &str| {
            let tree = crate::yaml::parse(src).unwrap();
            looks_like_function_config(&tree, tree.documents()[0].root())
        };
        assert!(looks(
            "apiVersion: config-hash.dev/v1alpha1\nkind: ConfigHash\nmetadata: {name: a}\n"
        ));
        let local = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  annotations: {config.kubernetes.io/local-config: \"true\"}\n";
        assert!(looks(&format!("{local}data: {{mode: env}}\n")));
        assert!(!looks(&format!("{local}data: {{mode: env, other: x}}\n")));
        assert!(!looks(&format!("{local}data: {{}}\n")));
        assert!(!looks(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: d}\ndata: {mode: env}\n"
        ));
        assert!(!looks(
            "apiVersion: example.com/v1\nkind: ConfigHash\nmetadata: {name: e}\n"
        ));
    }

    /// `accepts` says what `set` does: every word it lists is taken, a word it does not
    /// list is refused, and every field has an answer (the JSON Schema relies on it).
    #[test]
    fn accepts_tells_what_set_takes() {
        for &field in FIELDS {
            let accepts = accepts(field).unwrap_or_else(|| panic!("{field}: no answer"));
            let set = |value: &str| Overrides::default().set(field, value);
            match accepts {
                Accepts::OneOf(words) => {
                    for word in &words {
                        assert_eq!(set(word), Ok(()), "{field}: {word}");
                    }
                    assert!(set("sideways").is_err(), "{field} takes a word not listed");
                }
                Accepts::Bool => {
                    assert_eq!((set("true"), set("false")), (Ok(()), Ok(())), "{field}");
                    assert!(set("yes").is_err(), "{field}");
                }
                Accepts::Text => {
                    assert!(!extension::FIELDS.contains(&field), "{field}");
                    assert_ne!(
                        set("Secret/a").map_err(|e| e.contains("unknown field")),
                        Err(true),
                        "{field}"
                    );
                }
                Accepts::Entries => assert!(extension::FIELDS.contains(&field), "{field}"),
            }
        }
        assert_eq!(accepts("colour"), None);
    }
}
