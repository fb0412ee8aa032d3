//! The `__data` convention: an env var whose `configMapKeyRef` or `secretKeyRef` names
//! the key `__data` gets the hash of that whole object as its value, recorded in a
//! pod-template annotation so that a later run on the output refreshes it.

use crate::model::catalog::{CONTAINER_LISTS, SourceKind};
use crate::model::catalog::{WHOLE_OBJECT_KEY, annotations};
use crate::yaml::{EditError, Editor, NodeId, Tree};

/// What the `__data` convention adds to a stamp: the record to write, and whether the
/// hash annotation was written already (in place of a stale record).
pub struct DataStamp<'r> {
    pub record: &'r str,
    pub hash_written: bool,
}

/// One env var under the `__data` convention.
pub struct DataRef {
    pub container: String,
    pub var: String,
    /// The env entry.
    pub entry: NodeId,
    /// The `valueFrom` key and value of a reference not yet rewritten; `None` for one an
    /// earlier run rewrote (and recorded).
    pub value_from: Option<(NodeId, NodeId)>,
    /// The name scalar of the reference, to take it out of the ordinary references.
    pub name_node: Option<NodeId>,
    /// The kind the reference (or record) names, and the name.
    pub named: SourceKind,
    pub name: String,
    pub field: String,
    /// The container's field path, for results: env indices move when the stamp's env
    /// var is inserted, so a result naming one would not read the same on the output.
    pub container_field: String,
    /// The kind found under that name, and the final name.
    pub resolved: Option<(SourceKind, String)>,
    /// The hash of that whole object, written as the variable's value.
    pub hash: Option<String>,
}

/// The `__data` env vars of one pod template.
pub struct DataRefs {
    pub refs: Vec<DataRef>,
    /// The template carries a record from an earlier run.
    pub had_record: bool,
}

/// One entry of the record: container, variable, the kind and the name it names.
type Recorded<'r> = (&'r str, &'r str, SourceKind, &'r str);

/// The record's entries (`container/VAR=Kind/name,...`, each trimmed); an entry that
/// does not read so is skipped.
fn recorded(record: &str) -> Vec<Recorded<'_>> {
    record
        .split(',')
        .filter_map(|e| {
            let (at, what) = e.trim().split_once('=')?;
            let (c, var) = at.split_once('/')?;
            let (k, name) = what.split_once('/')?;
            Some((c, var, SourceKind::from_name(k)?, name))
        })
        .collect()
}

/// Whether the record could give a variable of this container back: a variable name
/// holding `=` or `,`, or a container name holding `/` too or starting with a blank
/// (which Kubernetes refuses anyway), could not be read back, so such a variable is left
/// as written.
fn can_be_recorded(container: &str, var: &str) -> bool {
    !(var.contains(['=', ','])
        || container.contains(['/', '=', ','])
        || container.trim_start() != container)
}

/// One env entry, where it is.
struct Place<'t> {
    container: &'t str,
    var: &'t str,
    entry: NodeId,
    field: String,
    container_field: String,
}

impl DataRef {
    /// The env entry at `at`, when it is under the convention: a reference to `__data`
    /// not yet rewritten, or a variable the record lists that still holds a value.
    fn of(tree: &Tree<'_>, at: Place<'_>, recorded: &[Recorded<'_>]) -> Option<DataRef> {
        let entry = at.entry;
        let value_from = tree
            .own_entries(entry)
            .find(|&(k, _)| tree.str(k) == Some("valueFrom"));
        if let Some((named, name, name_node)) = whole_object_ref(tree, entry, value_from) {
            return Some(DataRef {
                container: at.container.to_string(),
                var: at.var.to_string(),
                entry,
                value_from,
                name_node: Some(name_node),
                named,
                name: name.to_string(),
                field: at.field,
                container_field: at.container_field,
                resolved: None,
                hash: None,
            });
        }
        let has_value = tree
            .get(entry, "value")
            .is_some_and(|v| tree.str(v).is_some());
        let &(_, _, named, name) = recorded
            .iter()
            .find(|(rc, rv, _, _)| *rc == at.container && *rv == at.var)
            .filter(|_| has_value && value_from.is_none())?;
        Some(DataRef {
            container: at.container.to_string(),
            var: at.var.to_string(),
            entry,
            value_from: None,
            name_node: None,
            named,
            name: name.to_string(),
            field: at.field,
            container_field: at.container_field,
            resolved: None,
            hash: None,
        })
    }
}

/// The kind, name and name scalar of the `configMapKeyRef` or `secretKeyRef` to key
/// `__data` that the env entry's `valueFrom` (its key and value) holds. Only a valueFrom
/// with one source: the API server refuses more, and replacing it would drop the others'
/// references from what the pod reads, so a second run would hash something else. Nor
/// beside a `value`: the API server refuses that unless the value is empty, and the
/// rewrite would write a second `value` key.
fn whole_object_ref<'t>(
    tree: &'t Tree<'_>,
    entry: NodeId,
    value_from: Option<(NodeId, NodeId)>,
) -> Option<(SourceKind, &'t str, NodeId)> {
    let has_value_key = tree.get(entry, "value").is_some();
    let (_, vf) =
        value_from.filter(|&(_, vf)| tree.own_entries(vf).count() == 1 && !has_value_key)?;
    [
        ("configMapKeyRef", SourceKind::ConfigMap),
        ("secretKeyRef", SourceKind::Secret),
    ]
    .into_iter()
    .find_map(|(site, kind)| {
        let r = tree.get(vf, site)?;
        let key = tree.get(r, "key").and_then(|k| tree.str(k))?;
        let name_node = tree.get(r, "name")?;
        let name = tree.str(name_node)?;
        // Nor a name the record could not give back: ending in a blank, or holding a
        // comma.
        let recordable = !name.contains(',') && name.trim_end() == name;
        (key == WHOLE_OBJECT_KEY && recordable).then_some((kind, name, name_node))
    })
}

impl DataRefs {
    /// The `__data` env vars of the containers and init containers of the pod spec at
    /// `spec` (whose field path is `spec_path`): references not yet rewritten, and
    /// variables the record of the template at `template` says an earlier run rewrote.
    pub fn find(tree: &Tree<'_>, spec: NodeId, template: NodeId, spec_path: &str) -> DataRefs {
        let record = tree
            .get_path(template, &["metadata", "annotations"])
            .and_then(|a| tree.get(a, annotations::DATA_REFS))
            .and_then(|v| tree.str(v));
        let recorded = recorded(record.unwrap_or(""));
        let mut refs = Vec::new();
        for list in &CONTAINER_LISTS[..2] {
            for (i, c) in tree
                .get(spec, list)
                .into_iter()
                .flat_map(|s| tree.items(s))
                .enumerate()
            {
                let cname = tree.get(c, "name").and_then(|n| tree.str(n)).unwrap_or("");
                let Some(env) = tree.get(c, "env") else {
                    continue;
                };
                for (j, entry) in tree.items(env).enumerate() {
                    let Some(var) = tree.get(entry, "name").and_then(|n| tree.str(n)) else {
                        continue;
                    };
                    if !can_be_recorded(cname, var) {
                        continue;
                    }
                    let at = Place {
                        container: cname,
                        var,
                        entry,
                        field: format!("{spec_path}.{list}[{i}].env[{j}]"),
                        container_field: format!("{spec_path}.{list}[{i}]"),
                    };
                    refs.extend(DataRef::of(tree, at, &recorded));
                }
            }
        }
        DataRefs {
            refs,
            had_record: record.is_some(),
        }
    }

    /// The record to write: every resolved entry, sorted.
    pub fn record(&self) -> String {
        let mut entries: Vec<String> = self
            .refs
            .iter()
            .filter_map(|d| {
                let (kind, name) = d.resolved.as_ref()?;
                Some(format!(
                    "{}/{}={}/{name}",
                    d.container,
                    d.var,
                    kind.as_str()
                ))
            })
            .collect();
        entries.sort();
        entries.dedup();
        entries.join(",")
    }

    /// Writes each resolved hash as its env var's value.
    pub fn rewrite(&self, ed: &mut Editor<'_, '_>) -> Result<(), EditError> {
        for d in &self.refs {
            let Some(hash) = &d.hash else {
                continue;
            };
            match d.value_from {
                Some((k, v)) => ed.rewrite_entry(k, v, "value", hash),
                None => ed.set_string(d.entry, &[], "value", hash)?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One `__data` env var as found: container, variable, kind, name, fresh (a reference
    /// not yet rewritten), field.
    type Found = (String, String, SourceKind, String, bool, String);

    /// The `__data` env vars of the pod template `template` (a flow mapping) as found,
    /// and whether it carries a record.
    fn found(template: &str) -> (Vec<Found>, bool) {
        let input = format!("template: {template}\n");
        let tree = crate::yaml::parse(&input).unwrap();
        let template = tree.get(tree.documents()[0].root(), "template").unwrap();
        let spec = tree.get(template, "spec").unwrap();
        let data = DataRefs::find(&tree, spec, template, "spec.template.spec");
        let refs = data
            .refs
            .iter()
            .map(|d| {
                assert_eq!(d.value_from.is_some(), d.name_node.is_some());
                assert!(d.resolved.is_none() && d.hash.is_none());
                assert!(d.field.starts_with(&d.container_field));
                (
                    d.container.clone(),
                    d.var.clone(),
                    d.named,
                    d.name.clone(),
                    d.value_from.is_some(),
                    d.field.clone(),
                )
            })
            .collect();
        (refs, data.had_record)
    }

    fn one(
        container: &str,
        var: &str,
        kind: SourceKind,
        name: &str,
        fresh: bool,
        field: &str,
    ) -> Found {
        let field = format!("spec.template.spec.{field}");
        (
            container.into(),
            var.into(),
            kind,
            name.into(),
            fresh,
            field,
        )
    }

    const CM: SourceKind = SourceKind::ConfigMap;
    const SECRET: SourceKind = SourceKind::Secret;

    #[test]
    fn a_key_ref_to_data_in_a_container_or_init_container_is_one() {
        let template = "{spec: {containers: [{name: app, env: [{name: PLAIN, value: x}, {name: A, valueFrom: {configMapKeyRef: {name: cfg, key: __data}}}, {name: K, valueFrom: {configMapKeyRef: {name: cfg, key: k}}}]}], initContainers: [{name: init, env: [{name: S, valueFrom: {secretKeyRef: {name: db, key: __data}}}]}], ephemeralContainers: [{name: debug, env: [{name: E, valueFrom: {secretKeyRef: {name: db, key: __data}}}]}]}}";
        let (refs, had_record) = found(template);
        assert_eq!(
            refs,
            [
                one("app", "A", CM, "cfg", true, "containers[0].env[1]"),
                one("init", "S", SECRET, "db", true, "initContainers[0].env[0]"),
            ]
        );
        assert!(!had_record);
    }

    #[test]
    fn a_reference_the_record_could_not_give_back_is_left_alone() {
        let env = |container: &str, var: &str, name: &str| {
            format!(
                "{{name: '{container}', env: [{{name: '{var}', valueFrom: {{configMapKeyRef: {{name: '{name}', key: __data}}}}}}]}}"
            )
        };
        for (container, var, name) in [
            ("a/b", "V", "cfg"),
            ("a=b", "V", "cfg"),
            ("a,b", "V", "cfg"),
            (" app", "V", "cfg"),
            ("app", "V=1", "cfg"),
            ("app", "V,1", "cfg"),
            ("app", "V", "c,fg"),
            ("app", "V", "cfg "),
        ] {
            let template = format!("{{spec: {{containers: [{}]}}}}", env(container, var, name));
            assert_eq!(found(&template).0, [], "{container:?} {var:?} {name:?}");
        }
        // A blank inside is kept, and a name may start with one.
        let template = format!("{{spec: {{containers: [{}]}}}}", env("app ", "V", " cfg"));
        assert_eq!(
            found(&template).0,
            [one("app ", "V", CM, " cfg", true, "containers[0].env[0]")]
        );
    }

    #[test]
    fn a_value_from_with_more_than_the_reference_or_beside_a_value_is_left_alone() {
        let container =
            |entry: &str| format!("{{spec: {{containers: [{{name: app, env: [{entry}]}}]}}}}");
        for entry in [
            "{name: V, valueFrom: {configMapKeyRef: {name: cfg, key: __data}, secretKeyRef: {name: s, key: k}}}",
            "{name: V, value: '', valueFrom: {configMapKeyRef: {name: cfg, key: __data}}}",
            "{name: V, valueFrom: {configMapKeyRef: {key: __data}}}",
            "{name: V, valueFrom: {configMapKeyRef: {name: [cfg], key: __data}}}",
            "{name: V, valueFrom: {configMapKeyRef: {name: cfg}}}",
            "{name: V, valueFrom: {fieldRef: {fieldPath: metadata.name}}}",
            "{name: [V], valueFrom: {configMapKeyRef: {name: cfg, key: __data}}}",
        ] {
            assert_eq!(found(&container(entry)).0, [], "{entry}");
        }
        assert_eq!(
            found(&container(
                "{name: V, valueFrom: {secretKeyRef: {name: s, key: __data}}}"
            ))
            .0
            .len(),
            1
        );
    }

    #[test]
    fn a_recorded_variable_is_one_while_it_holds_a_value_and_no_value_from() {
        let template = |envs: &str| {
            format!(
                "{{metadata: {{annotations: {{{}: ' app/A=ConfigMap/cfg , app/B=Secret/db,init/C=Secret/x,bad,app/D=Other/x,app/E=ConfigMap'}}}}, spec: {{containers: [{{name: app, env: {envs}}}], initContainers: [{{name: init, env: [{{name: C, value: h}}]}}]}}}}",
                annotations::DATA_REFS
            )
        };
        let (refs, had_record) = found(&template(
            "[{name: A, value: h1}, {name: B, value: h2}, {name: D, value: h}, {name: E, value: h}]",
        ));
        assert!(had_record);
        assert_eq!(
            refs,
            [
                one("app", "A", CM, "cfg", false, "containers[0].env[0]"),
                one("app", "B", SECRET, "db", false, "containers[0].env[1]"),
                one("init", "C", SECRET, "x", false, "initContainers[0].env[0]"),
            ]
        );
        // A variable given a valueFrom, or no string, again is not the record's.
        let (refs, _) = found(&template(
            "[{name: A, value: h1, valueFrom: {fieldRef: {fieldPath: x}}}, {name: B, value: [x]}, {name: Z, value: h}]",
        ));
        assert_eq!(
            refs,
            [one(
                "init",
                "C",
                SECRET,
                "x",
                false,
                "initContainers[0].env[0]"
            )]
        );
        // A reference not yet rewritten is read as one, record or not.
        let (refs, _) = found(&template(
            "[{name: A, valueFrom: {secretKeyRef: {name: other, key: __data}}}]",
        ));
        assert_eq!(
            refs[0],
            one("app", "A", SECRET, "other", true, "containers[0].env[0]")
        );
        // The record is read in the template's own annotations only.
        let (refs, had_record) = found(
            &template("[{name: A, value: h1}]")
                .replace("metadata: {annotations:", "metadata: {labels:"),
        );
        assert_eq!((refs.len(), had_record), (0, false));
    }

    #[test]
    fn the_record_lists_each_resolved_variable_once_sorted() {
        let input = "template: {spec: {containers: [{name: b, env: [{name: V, valueFrom: {configMapKeyRef: {name: x, key: __data}}}]}, {name: a, env: [{name: W, valueFrom: {secretKeyRef: {name: y, key: __data}}}, {name: U, valueFrom: {secretKeyRef: {name: z, key: __data}}}]}, {name: b, env: [{name: V, valueFrom: {configMapKeyRef: {name: x, key: __data}}}]}]}}\n";
        let tree = crate::yaml::parse(input).unwrap();
        let template = tree.get(tree.documents()[0].root(), "template").unwrap();
        let spec = tree.get(template, "spec").unwrap();
        let mut data = DataRefs::find(&tree, spec, template, "spec");
        assert_eq!(data.refs.len(), 4);
        assert_eq!(data.record(), "");
        for (d, resolved) in data.refs.iter_mut().zip([
            Some((CM, "x-5t7tcg6b9h")),
            Some((SECRET, "y")),
            None,
            Some((CM, "x-5t7tcg6b9h")),
        ]) {
            d.resolved = resolved.map(|(k, n)| (k, n.to_string()));
        }
        assert_eq!(data.record(), "a/W=Secret/y,b/V=ConfigMap/x-5t7tcg6b9h");
    }

    #[test]
    fn each_hash_is_written_as_its_variable_s_value() {
        let input = "template:\n  metadata:\n    annotations: {config-hash.dev/data-refs: app/B=Secret/db}\n  spec:\n    containers:\n    - name: app\n      env:\n      - name: A\n        valueFrom:\n          configMapKeyRef: {name: cfg, key: __data}\n      - name: B\n        value: old\n      - name: C\n        valueFrom:\n          configMapKeyRef: {name: other, key: __data}\n";
        let tree = crate::yaml::parse(input).unwrap();
        let template = tree.get(tree.documents()[0].root(), "template").unwrap();
        let spec = tree.get(template, "spec").unwrap();
        let mut data = DataRefs::find(&tree, spec, template, "spec");
        assert_eq!(data.refs.len(), 3);
        data.refs[0].hash = Some("h1".into());
        data.refs[1].hash = Some("h2".into());
        let mut ed = Editor::new(&tree, crate::yaml::Layout::detect(input));
        data.rewrite(&mut ed).unwrap();
        let out = ed.into_splices().apply(input).unwrap();
        let expected = input
            .replace(
                "valueFrom:\n          configMapKeyRef: {name: cfg, key: __data}",
                "value: \"h1\"",
            )
            .replace("value: old", "value: \"h2\"");
        assert_eq!(out, expected);
    }
}
