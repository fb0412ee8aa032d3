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

impl DataRefs {
    pub fn find(tree: &Tree<'_>, spec: NodeId, template: NodeId, spec_path: &str) -> DataRefs {
        let record = tree
            .get_path(template, &["metadata", "annotations"])
            .and_then(|a| tree.get(a, annotations::DATA_REFS))
            .and_then(|v| tree.str(v));
        let recorded: Vec<(&str, &str, SourceKind, &str)> = record
            .unwrap_or("")
            .split(',')
            .filter_map(|e| {
                let (at, what) = e.trim().split_once('=')?;
                let (c, var) = at.split_once('/')?;
                let (k, name) = what.split_once('/')?;
                Some((c, var, SourceKind::from_name(k)?, name))
            })
            .collect();
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
                    // The record is `container/VAR=Kind/name,...`, each entry read back
                    // trimmed: a variable name holding `=` or `,`, or a container name
                    // holding `/` too or starting with a blank (which Kubernetes refuses
                    // anyway), could not be read back, so such a variable is left as
                    // written.
                    if var.contains(['=', ','])
                        || cname.contains(['/', '=', ','])
                        || cname.trim_start() != cname
                    {
                        continue;
                    }
                    let field = format!("{spec_path}.{list}[{i}].env[{j}]");
                    let container_field = format!("{spec_path}.{list}[{i}]");
                    let value_from = tree
                        .own_entries(entry)
                        .find(|&(k, _)| tree.str(k) == Some("valueFrom"));
                    // Only a valueFrom with one source: the API server refuses more, and
                    // replacing it would drop the others' references from what the pod
                    // reads, so a second run would hash something else. Nor beside a
                    // `value`: the API server refuses that unless the value is empty, and
                    // the rewrite would write a second `value` key.
                    let has_value_key = tree.get(entry, "value").is_some();
                    let single = value_from
                        .filter(|&(_, vf)| tree.own_entries(vf).count() == 1 && !has_value_key);
                    let fresh = single.and_then(|(_, vf)| {
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
                            // Nor a name the record could not give back: ending in a
                            // blank, or holding a comma.
                            let recordable = !name.contains(',') && name.trim_end() == name;
                            (key == WHOLE_OBJECT_KEY && recordable)
                                .then_some((kind, name, name_node))
                        })
                    });
                    if let Some((named, name, name_node)) = fresh {
                        refs.push(DataRef {
                            container: cname.to_string(),
                            var: var.to_string(),
                            entry,
                            value_from,
                            name_node: Some(name_node),
                            named,
                            name: name.to_string(),
                            field,
                            container_field,
                            resolved: None,
                            hash: None,
                        });
                        continue;
                    }
                    let has_value = tree
                        .get(entry, "value")
                        .is_some_and(|v| tree.str(v).is_some());
                    if let Some(&(_, _, named, name)) = recorded
                        .iter()
                        .find(|(rc, rv, _, _)| *rc == cname && *rv == var)
                        .filter(|_| has_value && value_from.is_none())
                    {
                        refs.push(DataRef {
                            container: cname.to_string(),
                            var: var.to_string(),
                            entry,
                            value_from: None,
                            name_node: None,
                            named,
                            name: name.to_string(),
                            field,
                            container_field,
                            resolved: None,
                            hash: None,
                        });
                    }
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
