//! The JSON Schema of the functionConfig (`schema/config-hash.schema.json`, shipped in
//! each release for editors such as yaml-language-server): built here from the fields the
//! library reads (`config::FIELDS` and what `config::accepts` says each takes, the tables
//! `Overrides::set` parses with), compared byte for byte with the committed file
//! (`UPDATE_SCHEMA=1` rewrites it), and checked with a JSON Schema validator,
//! check-jsonschema from `.ci/setup-check-jsonschema.sh`: every functionConfig under
//! `examples/` is valid, and configurations the function refuses are not.

#[macro_use]
mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::harness::Need;
use config_hash::model::config::{Accepts, CONFIG_API_VERSION, CONFIG_KIND, FIELDS, accepts};
use serde_json::{Value, json};

const SCHEMA: &str = "schema/config-hash.schema.json";

fn root() -> &'static Path {
    common::repo_root()
}

/// One field's schema: in the typed form (`spec`) or in a ConfigMap's `data`, where
/// every value is a string.
fn field_schema(accepts: &Accepts, typed: bool) -> Value {
    match accepts {
        Accepts::OneOf(words) => json!({ "enum": words }),
        Accepts::Bool if typed => json!({ "enum": [true, false, "true", "false"] }),
        Accepts::Bool => json!({ "enum": ["true", "false"] }),
        Accepts::Text => json!({ "type": "string" }),
        Accepts::Entries => json!({
            "type": "array",
            "items": { "type": "object" },
            "description": "Catalog entries: see the catalog's page in the documentation"
        }),
    }
}

/// The schema, from the library's one list of fields.
fn schema() -> Value {
    let mut spec = serde_json::Map::new();
    let mut data = serde_json::Map::new();
    for &field in FIELDS {
        let accepts = accepts(field).unwrap_or_else(|| panic!("config::accepts({field:?})"));
        spec.insert(field.into(), field_schema(&accepts, true));
        // Catalog entries are lists: only the typed form holds them.
        if accepts != Accepts::Entries {
            data.insert(field.into(), field_schema(&accepts, false));
        }
    }
    json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "config-hash functionConfig",
        "description": format!(
            "config-hash's configuration: apiVersion {CONFIG_API_VERSION}, kind {CONFIG_KIND} (fields under spec), or a ConfigMap (fields under data, every value a string)"
        ),
        "type": "object",
        "required": ["apiVersion", "kind"],
        "oneOf": [
            { "$ref": "#/definitions/ConfigHash" },
            { "$ref": "#/definitions/ConfigMap" }
        ],
        "definitions": {
            "ConfigHash": {
                "type": "object",
                "properties": {
                    "apiVersion": { "const": CONFIG_API_VERSION },
                    "kind": { "const": CONFIG_KIND },
                    "metadata": { "type": "object" },
                    "spec": {
                        "type": "object",
                        "properties": spec,
                        "additionalProperties": false
                    }
                }
            },
            "ConfigMap": {
                "type": "object",
                "properties": {
                    "apiVersion": { "const": "v1" },
                    "kind": { "const": "ConfigMap" },
                    "metadata": { "type": "object" },
                    "data": {
                        "type": "object",
                        "properties": data,
                        "additionalProperties": false
                    }
                }
            }
        }
    })
}

fn schema_text() -> String {
    let mut text = serde_json::to_string_pretty(&schema()).expect("a JSON value");
    text.push('\n');
    text
}

/// The committed schema is the one the code gives (`UPDATE_SCHEMA=1` rewrites it).
fn the_committed_schema_is_the_one_the_fields_give() {
    let path = root().join(SCHEMA);
    let want = schema_text();
    if std::env::var_os("UPDATE_SCHEMA").is_some() {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(&path, &want).unwrap();
    }
    let have = fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "{SCHEMA} is not what the fields give; UPDATE_SCHEMA=1 cargo test --test schema rewrites it"
    );
}

/// Every YAML file under `examples/` (and Kptfiles), except the Helm chart's templates,
/// which are Go templates rather than YAML.
fn example_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                if !path.ends_with("chart/templates") {
                    walk(&path, out);
                }
            } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml")
                || path.file_name().is_some_and(|n| n == "Kptfile")
            {
                out.push(path);
            }
        }
    }
    let mut files = Vec::new();
    walk(&root().join("examples"), &mut files);
    files.sort();
    files
}

fn str_at<'v>(v: &'v Value, key: &str) -> &'v str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// Every functionConfig the examples hold, named by where it is: ConfigHash objects, a
/// ResourceList's functionConfig, and a Kptfile's `configMap:` as the ConfigMap kpt makes
/// of it (a `configPath:` names a file that is read as any other).
fn example_function_configs() -> Vec<(String, Value)> {
    let mut found = Vec::new();
    for file in example_files() {
        let text = fs::read_to_string(&file).unwrap();
        let name = file.strip_prefix(root()).unwrap().display().to_string();
        for (i, document) in yaml_serde::Deserializer::from_str(&text).enumerate() {
            let value: yaml_serde::Value = serde::Deserialize::deserialize(document)
                .unwrap_or_else(|e| panic!("{name}: document {i}: {e}"));
            let value: Value = serde_json::to_value(value).expect("YAML as JSON");
            let at = format!("{name}[{i}]");
            match (str_at(&value, "apiVersion"), str_at(&value, "kind")) {
                (CONFIG_API_VERSION, CONFIG_KIND) => found.push((at, value)),
                (_, "ResourceList") => {
                    if let Some(config) = value.get("functionConfig").filter(|c| !c.is_null()) {
                        found.push((format!("{at}.functionConfig"), config.clone()));
                    }
                }
                (_, "Kptfile") => {
                    let pipeline = value.get("pipeline");
                    for list in ["mutators", "validators"] {
                        let steps = pipeline.and_then(|p| p.get(list)).and_then(Value::as_array);
                        for (n, step) in steps.into_iter().flatten().enumerate() {
                            if let Some(map) = step.get("configMap") {
                                found.push((
                                    format!("{at}.pipeline.{list}[{n}].configMap"),
                                    json!({
                                        "apiVersion": "v1",
                                        "kind": "ConfigMap",
                                        "metadata": { "name": "function-input" },
                                        "data": map
                                    }),
                                ));
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }
    found
}

fn check_jsonschema() -> PathBuf {
    root().join("target/tools/check-jsonschema/bin/check-jsonschema")
}

fn need_check_jsonschema() -> Need {
    Need::File(
        check_jsonschema(),
        "run .ci/setup-check-jsonschema.sh (check-jsonschema from PyPI)".into(),
    )
}

/// check-jsonschema's verdict on `instances`, each written to a JSON file named after it.
fn validate(instances: &[(String, Value)]) -> (bool, String) {
    let dir = common::TempDir::new("schema");
    let schema = dir.path().join("config-hash.schema.json");
    fs::write(&schema, schema_text()).unwrap();
    let mut command = Command::new(check_jsonschema());
    command.arg("--schemafile").arg(&schema);
    for (n, (name, value)) in instances.iter().enumerate() {
        let file_name: String = name
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let file = dir.path().join(format!("{n:03}-{file_name}.json"));
        fs::write(&file, serde_json::to_string(value).unwrap()).unwrap();
        command.arg(&file);
    }
    let out = command.output().expect("run check-jsonschema");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// Every functionConfig of the examples is valid under the schema.
fn every_example_function_config_is_valid() {
    let configs = example_function_configs();
    let names: Vec<&str> = configs.iter().map(|(n, _)| n.as_str()).collect();
    // The examples' ConfigHash objects (kustomize, custom-resource, pipes, container,
    // argocd-cmp) and the Kptfiles' configMaps (env-mode, name-suffix).
    assert!(configs.len() >= 7, "only {names:?}");
    for form in [
        "examples/env-mode/Kptfile",
        "examples/custom-resource/config-hash.yaml",
    ] {
        assert!(
            names.iter().any(|n| n.starts_with(form)),
            "{form} not among {names:?}"
        );
    }
    let (valid, report) = validate(&configs);
    assert!(valid, "{names:?}:\n{report}");
}

/// Configurations the function refuses are refused by the schema too, each by name.
fn refused_configurations_are_invalid() {
    let typed = |spec: Value| json!({ "apiVersion": CONFIG_API_VERSION, "kind": CONFIG_KIND, "spec": spec });
    let map = |data: Value| json!({ "apiVersion": "v1", "kind": "ConfigMap", "data": data });
    let refused = [
        ("a-mode-not-listed", typed(json!({ "mode": "sideways" }))),
        ("an-unknown-field", typed(json!({ "colour": "red" }))),
        ("a-bool-as-yes", map(json!({ "nameSuffix": "yes" }))),
        ("a-bool-not-a-string", map(json!({ "immutable": true }))),
        ("entries-in-a-configmap", map(json!({ "workloads": "[]" }))),
        ("entries-not-a-list", typed(json!({ "workloads": "x" }))),
        (
            "another-kind",
            json!({ "apiVersion": "v1", "kind": "Secret" }),
        ),
    ];
    for (name, value) in refused {
        let (valid, report) = validate(&[(name.to_string(), value)]);
        assert!(!valid, "{name} passed the schema:\n{report}");
    }
    // The same validator, on the two forms the function accepts, says yes.
    let accepted = [
        (
            "typed".to_string(),
            typed(json!({ "mode": "env", "nameSuffix": true })),
        ),
        (
            "map".to_string(),
            map(json!({ "mode": "both", "nameSuffix": "false" })),
        ),
    ];
    let (valid, report) = validate(&accepted);
    assert!(valid, "{report}");
}

fn main() -> std::process::ExitCode {
    common::harness::run(vec![
        trial!(the_committed_schema_is_the_one_the_fields_give),
        trial!(
            every_example_function_config_is_valid,
            need_check_jsonschema()
        ),
        trial!(refused_configurations_are_invalid, need_check_jsonschema()),
    ])
}
