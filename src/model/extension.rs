//! The catalog rows a user declares in a ConfigHash functionConfig's `spec`: workload
//! kinds, name references (kustomize's `nameReference` shape), pod-spec references,
//! producers and annotations that list extra dependencies. Each becomes a row like a
//! built-in one, with paths in the catalog's one language; every bad entry is reported
//! at once, by its field path.

use crate::model::catalog::{
    AnnotationSite, Extension, FieldPath, Form, Hashed, KeySel, NameSite, Open, PodSite, Producer,
    Restart, Scoped, SourceKind, WorkloadKind,
};
use crate::yaml::{NodeId, Tree};

/// The functionConfig fields that hold catalog rows (typed form only).
pub const FIELDS: &[&str] = &[
    "workloads",
    "references",
    "podReferences",
    "producers",
    "annotationReferences",
];

/// What is wrong with a field that is not one of `accepted`: the accepted field it was
/// most likely meant to be (`mdoe`, `env_name`, `annotationkey`), as flags get from
/// clap, and the list. For the functionConfig's fields (`config.rs`) and a catalog
/// entry's (here).
pub fn unknown_field(key: &str, accepted: &[&str]) -> String {
    let meant = accepted
        .iter()
        .map(|a| {
            (
                strsim::jaro_winkler(&key.to_lowercase(), &a.to_lowercase()),
                a,
            )
        })
        .filter(|(score, _)| *score >= 0.85)
        .max_by(|a, b| a.0.total_cmp(&b.0));
    match meant {
        Some((_, field)) => format!(
            "unknown field; did you mean {field}? Accepted fields: {}",
            accepted.join(", ")
        ),
        None => format!("unknown field; accepted fields: {}", accepted.join(", ")),
    }
}

/// A problem with one user entry, naming it. Worded (`Display`) in
/// [`crate::model::config`], as the configuration error it becomes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryError {
    /// `spec.workloads[0].template`.
    pub field: String,
    pub message: String,
}

impl std::error::Error for EntryError {}

const WORKLOAD_FIELDS: &[&str] = &["group", "version", "kind", "template"];
const REFERENCE_FIELDS: &[&str] = &["kind", "version", "group", "fieldSpecs"];
const FIELD_SPEC_FIELDS: &[&str] = &["group", "version", "kind", "path", "create"];
const POD_REFERENCE_FIELDS: &[&str] = &["kind", "path", "keys", "hashed"];
const PRODUCER_FIELDS: &[&str] = &[
    "group", "version", "kind", "makes", "each", "name", "keys", "anyKey", "type", "hashed",
    "runtime", "unless", "when",
];
const UNLESS_FIELDS: &[&str] = &["path", "values"];
const ANNOTATION_FIELDS: &[&str] = &["key", "kind"];

/// Reads the catalog fields of a ConfigHash's `spec` (the mapping `fields`).
pub fn read(tree: &Tree<'_>, fields: NodeId, section: &str) -> Result<Extension, Vec<EntryError>> {
    let mut r = Reader {
        tree,
        errors: Vec::new(),
    };
    let mut ext = Extension::default();
    let list = |name: &str| tree.get(fields, name).filter(|&n| !tree.is_null(n));
    if let Some(l) = list("workloads") {
        ext.workloads = r.entries(
            l,
            &format!("{section}.workloads"),
            "{group, kind, template}",
            |r, e, at| r.workload(e, at),
        );
    }
    if let Some(l) = list("references") {
        ext.references = r
            .entries(
                l,
                &format!("{section}.references"),
                "{kind, fieldSpecs} (kustomize's nameReference shape)",
                |r, e, at| r.reference(e, at),
            )
            .into_iter()
            .flatten()
            .collect();
    }
    if let Some(l) = list("podReferences") {
        ext.pod_references = r.entries(
            l,
            &format!("{section}.podReferences"),
            "{kind, path, keys}",
            |r, e, at| r.pod_reference(e, at),
        );
    }
    if let Some(l) = list("producers") {
        ext.producers = r.entries(
            l,
            &format!("{section}.producers"),
            "{group, kind, makes, ...}",
            |r, e, at| r.producer(e, at),
        );
    }
    if let Some(l) = list("annotationReferences") {
        ext.annotation_references = r.entries(
            l,
            &format!("{section}.annotationReferences"),
            "{key, kind}",
            |r, e, at| r.annotation(e, at),
        );
    }
    if r.errors.is_empty() {
        Ok(ext)
    } else {
        Err(r.errors)
    }
}

struct Reader<'t, 'a> {
    tree: &'t Tree<'a>,
    errors: Vec<EntryError>,
}

impl Reader<'_, '_> {
    fn error(&mut self, field: String, message: String) {
        self.errors.push(EntryError { field, message });
    }

    /// Each entry of the list `list` (at `at`), read by `read`; `None` from `read`
    /// drops the entry (its errors are recorded).
    fn entries<T>(
        &mut self,
        list: NodeId,
        at: &str,
        shape: &str,
        mut read: impl FnMut(&mut Self, NodeId, &str) -> Option<T>,
    ) -> Vec<T> {
        let tree = self.tree;
        if !tree.is_seq(list) {
            self.error(
                at.to_string(),
                format!("{at} must be a list of {shape} entries"),
            );
            return Vec::new();
        }
        let mut out = Vec::new();
        for (i, entry) in tree.items(list).enumerate() {
            let at = format!("{at}[{i}]");
            if !tree.is_map(entry) {
                self.error(at.clone(), format!("{at} must be a mapping: {shape}"));
                continue;
            }
            out.extend(read(self, entry, &at));
        }
        out
    }

    fn unknown_fields(&mut self, node: NodeId, at: &str, allowed: &[&str]) {
        let tree = self.tree;
        for (k, _) in tree.entries(node) {
            let key = tree.str(k).unwrap_or("");
            if !allowed.contains(&key) {
                self.error(
                    format!("{at}.{key}"),
                    format!("{at}.{key}: {}", unknown_field(key, allowed)),
                );
            }
        }
    }

    fn text<'t>(&'t self, node: NodeId, key: &str) -> Option<&'t str> {
        self.tree.get(node, key).and_then(|n| self.tree.str(n))
    }

    /// A required field, or an error saying what it is for.
    fn required(&mut self, node: NodeId, at: &str, key: &str, what: &str) -> Option<String> {
        match self.text(node, key).filter(|t| !t.is_empty()) {
            Some(t) => Some(t.to_string()),
            None => {
                self.error(
                    format!("{at}.{key}"),
                    format!("{at}.{key} is required ({what})"),
                );
                None
            }
        }
    }

    /// A path field, or an error with an example.
    fn path(&mut self, node: NodeId, at: &str, key: &str, example: &str) -> Option<FieldPath> {
        let text = self.text(node, key).unwrap_or("").to_string();
        match FieldPath::parse(&text) {
            Ok(p) => Some(p),
            Err(why) => {
                self.error(
                    format!("{at}.{key}"),
                    format!("{at}.{key} must be {why}, such as {example}"),
                );
                None
            }
        }
    }

    /// An optional path field.
    fn optional_path(
        &mut self,
        node: NodeId,
        at: &str,
        key: &str,
        example: &str,
    ) -> Option<Option<FieldPath>> {
        if self
            .tree
            .get(node, key)
            .is_none_or(|n| self.tree.is_null(n))
        {
            return Some(None);
        }
        self.path(node, at, key, example).map(Some)
    }

    /// A ConfigMap or Secret.
    fn source_kind(&mut self, node: NodeId, at: &str, key: &str, what: &str) -> Option<SourceKind> {
        let kind = self.text(node, key).and_then(SourceKind::from_name);
        if kind.is_none() {
            self.error(
                format!("{at}.{key}"),
                format!("{at}.{key} must be ConfigMap or Secret ({what})"),
            );
        }
        kind
    }

    /// A boolean written as `true`/`false` (a ConfigHash's fields may be quoted).
    fn boolean(&mut self, node: NodeId, at: &str, key: &str, default: bool) -> bool {
        match self.text(node, key) {
            None => default,
            Some("true") => true,
            Some("false") => false,
            Some(other) => {
                self.error(
                    format!("{at}.{key}"),
                    format!("{at}.{key} must be true or false, not {other:?}"),
                );
                default
            }
        }
    }

    fn workload(&mut self, entry: NodeId, at: &str) -> Option<WorkloadKind> {
        self.unknown_fields(entry, at, WORKLOAD_FIELDS);
        let kind = self.required(entry, at, "kind", "the kind that carries a pod template");
        let template = self.path(
            entry,
            at,
            "template",
            "spec/template (the path to the pod template)",
        );
        Some(WorkloadKind {
            groups: vec![self.text(entry, "group").unwrap_or("").to_string()],
            kind: kind?,
            template: template?,
            env_allowed: true,
            restart: Restart::Template,
            delegate: None,
            // A declared row of a built-in kind keeps the built-in row's rolling rules
            // (see `Catalog::extend`).
            rolls: true,
            holds: Vec::new(),
            declared_at: Some(at.to_string()),
        })
    }

    /// kustomize's `nameReference` entry: the kind named, and the fields naming it.
    fn reference(&mut self, entry: NodeId, at: &str) -> Option<Vec<NameSite>> {
        let tree = self.tree;
        self.unknown_fields(entry, at, REFERENCE_FIELDS);
        let target = self.source_kind(entry, at, "kind", "the kind the fields name")?;
        let specs = tree.get(entry, "fieldSpecs");
        if specs.is_none_or(|s| !tree.is_seq(s) || tree.items(s).next().is_none()) {
            self.error(
                format!("{at}.fieldSpecs"),
                format!("{at}.fieldSpecs must be a non-empty list of {{group, kind, path}}"),
            );
            return None;
        }
        let specs = specs.unwrap_or(entry);
        let sites = self.entries(
            specs,
            &format!("{at}.fieldSpecs"),
            "{group, kind, path}",
            |r, spec, at| {
                r.unknown_fields(spec, at, FIELD_SPEC_FIELDS);
                let kind = r.required(
                    spec,
                    at,
                    "kind",
                    &format!("the kind whose field names a {}", target.as_str()),
                );
                let path = r.path(
                    spec,
                    at,
                    "path",
                    "spec/configRef/name (the path to the name)",
                );
                Some(NameSite {
                    groups: vec![r.text(spec, "group").unwrap_or("").to_string()],
                    kind: kind?,
                    path: path?,
                    namespace_key: None,
                    target,
                    form: Form::Name,
                    scope: Scoped::Namespaced,
                    rule_resource: None,
                    declared_at: Some(at.to_string()),
                })
            },
        );
        Some(sites)
    }

    fn pod_reference(&mut self, entry: NodeId, at: &str) -> Option<PodSite> {
        self.unknown_fields(entry, at, POD_REFERENCE_FIELDS);
        let kind = self.source_kind(entry, at, "kind", "the kind the field names");
        let path = self.path(
            entry,
            at,
            "path",
            "containers/env/valueFrom/vaultRef/name (from the pod spec to the name)",
        );
        let keys = KeySel::of(self.text(entry, "keys").unwrap_or(""));
        let visible = self.boolean(entry, at, "hashed", true);
        Some(PodSite {
            path: path?,
            kind: kind?,
            keys,
            visible,
            declared_at: Some(at.to_string()),
        })
    }

    fn producer(&mut self, entry: NodeId, at: &str) -> Option<Producer> {
        let tree = self.tree;
        self.unknown_fields(entry, at, PRODUCER_FIELDS);
        let kind = self.required(entry, at, "kind", "the kind that makes the object");
        let produces = self.source_kind(entry, at, "makes", "the kind it makes");
        let each = self.optional_path(entry, at, "each", "spec/secretObjects");
        let name = self.optional_path(entry, at, "name", "spec/secretName");
        let secret_type = self.optional_path(entry, at, "type", "spec/template/type");
        let mut keys = Some(Vec::new());
        if let Some(list) = tree.get(entry, "keys").filter(|&n| !tree.is_null(n)) {
            let read = self.entries_of_strings(list, &format!("{at}.keys"));
            keys = read.map(|paths| paths.into_iter().flatten().collect());
        }
        let open = match (self.text(entry, "anyKey"), tree.get(entry, "anyKey")) {
            (_, None) | (Some("false"), _) => Some(Open::Never),
            (Some("true"), _) => Some(Open::Always),
            (Some(_), Some(_)) => self
                .path(
                    entry,
                    at,
                    "anyKey",
                    "spec/dataFrom (when present, any key may exist)",
                )
                .map(Open::When),
            (None, Some(_)) => {
                self.error(
                    format!("{at}.anyKey"),
                    format!("{at}.anyKey must be true, false or a path"),
                );
                None
            }
        };
        let hashed = match self.text(entry, "hashed") {
            None | Some("spec") => Some(Hashed::Spec),
            Some("values") => Some(Hashed::Values),
            Some(other) => {
                self.error(
                    format!("{at}.hashed"),
                    format!("{at}.hashed must be spec or values, not {other:?}"),
                );
                None
            }
        };
        let runtime = self.boolean(entry, at, "runtime", false);
        let unless = self.condition(entry, at, "unless", "spec/target/creationPolicy");
        let when = self.condition(entry, at, "when", "spec/destination/create");
        Some(Producer {
            group: self.text(entry, "group").unwrap_or("").to_string(),
            kind: kind?,
            produces: produces?,
            each: each?,
            name: name?,
            keys: keys?,
            open: open?,
            secret_type: secret_type?,
            default_type: "Opaque".to_string(),
            hashed: hashed?,
            runtime,
            unless: unless?,
            when: when?,
            declared_at: Some(at.to_string()),
        })
    }

    /// A producer's `unless` or `when`: `{path, values}`; `Some(None)` when absent.
    fn condition(
        &mut self,
        entry: NodeId,
        at: &str,
        key: &str,
        example: &str,
    ) -> Option<Option<(FieldPath, Vec<String>)>> {
        let tree = self.tree;
        match tree.get(entry, key).filter(|&n| !tree.is_null(n)) {
            None => Some(None),
            Some(u) if tree.is_map(u) => {
                let uat = format!("{at}.{key}");
                self.unknown_fields(u, &uat, UNLESS_FIELDS);
                let path = self.path(u, &uat, "path", example);
                let values: Vec<String> = tree
                    .get(u, "values")
                    .map(|v| {
                        tree.items(v)
                            .filter_map(|i| tree.str(i))
                            .map(str::to_string)
                            .collect()
                    })
                    .unwrap_or_default();
                path.map(|p| Some((p, values)))
            }
            Some(_) => {
                self.error(
                    format!("{at}.{key}"),
                    format!("{at}.{key} must be a mapping: {{path, values}}"),
                );
                None
            }
        }
    }

    /// A list of paths.
    fn entries_of_strings(&mut self, list: NodeId, at: &str) -> Option<Vec<Option<FieldPath>>> {
        let tree = self.tree;
        if !tree.is_seq(list) {
            self.error(at.to_string(), format!("{at} must be a list of paths"));
            return None;
        }
        Some(
            tree.items(list)
                .enumerate()
                .map(|(i, p)| {
                    let text = tree.str(p).unwrap_or("");
                    FieldPath::parse(text)
                        .map_err(|why| {
                            self.error(
                                format!("{at}[{i}]"),
                                format!("{at}[{i}] must be {why}, such as spec/encryptedData"),
                            )
                        })
                        .ok()
                })
                .collect(),
        )
    }

    fn annotation(&mut self, entry: NodeId, at: &str) -> Option<AnnotationSite> {
        self.unknown_fields(entry, at, ANNOTATION_FIELDS);
        let key = self.required(entry, at, "key", "the annotation key on the workload");
        let kind = self.source_kind(entry, at, "kind", "the kind its names name");
        if let Some(k) = &key {
            if let Err(why) = crate::model::names::valid_annotation_key(k) {
                self.error(
                    format!("{at}.key"),
                    format!("{at}.key {k:?} is not a valid annotation key: {why}"),
                );
                return None;
            }
        }
        Some(AnnotationSite {
            key: key?,
            kind: kind?,
            tool: "the functionConfig".to_string(),
            regex: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::catalog::Catalog;

    fn ext(src: &str) -> Result<Extension, Vec<EntryError>> {
        let tree = crate::yaml::parse(src).unwrap();
        read(&tree, tree.documents()[0].root(), "spec")
    }

    #[test]
    fn user_entries_extend_the_catalog() {
        let e = ext("workloads:\n- {group: example.com, kind: Widget, template: spec/podTemplate}\nreferences:\n- kind: Secret\n  fieldSpecs:\n  - {group: example.com, kind: Widget, path: spec/auth/secretName}\n").unwrap();
        let mut c = Catalog::builtin();
        c.extend(&e);
        let w = c.workload("example.com/v1", "Widget").unwrap();
        assert_eq!(w.template.steps(), ["spec", "podTemplate"]);
        assert_eq!(w.spec_field(), "spec.podTemplate.spec");
        assert_eq!(w.declared_at.as_deref(), Some("spec.workloads[0]"));
        let site = c.name_sites_for("example.com/v1", "Widget").next().unwrap();
        assert_eq!(
            (site.path.to_string(), site.target),
            ("spec/auth/secretName".to_string(), SourceKind::Secret)
        );
        assert!(!c.has_name_sites("other.com/v1", "Widget"));
    }

    #[test]
    fn pod_references_producers_and_annotations_are_rows_like_the_built_in_ones() {
        let e = ext("podReferences:\n- {kind: Secret, path: containers/env/valueFrom/vaultRef/name, keys: key}\n- {kind: ConfigMap, path: volumes/settings/name, keys: 'items[].key', hashed: 'false'}\nproducers:\n- {group: cert-manager.io, kind: Certificate, makes: Secret, name: spec/secretName, anyKey: 'true', runtime: 'true'}\n- group: bitnami.com\n  kind: SealedSecret\n  makes: Secret\n  keys: [spec/encryptedData]\n  hashed: values\n  unless: {path: spec/template/type, values: [skip]}\n  when: {path: spec/make, values: ['yes']}\nannotationReferences:\n- {key: example.com/reload-secrets, kind: Secret}\n").unwrap();
        assert_eq!(e.pod_references[0].keys, KeySel::Field("key".into()));
        assert!(e.pod_references[0].in_containers());
        assert_eq!(e.pod_references[1].keys, KeySel::Items);
        assert!(!e.pod_references[1].visible && !e.pod_references[1].in_containers());
        assert_eq!(e.producers[0].open, Open::Always);
        assert!(e.producers[0].runtime);
        assert_eq!(e.producers[0].hashed, Hashed::Spec);
        assert_eq!(e.producers[1].hashed, Hashed::Values);
        assert_eq!(
            e.producers[1].unless,
            Some((
                FieldPath::of("spec/template/type"),
                vec!["skip".to_string()]
            ))
        );
        assert_eq!(
            e.producers[1].when,
            Some((FieldPath::of("spec/make"), vec!["yes".to_string()]))
        );
        assert_eq!(e.producers[0].when, None);
        let mut c = Catalog::builtin();
        c.extend(&e);
        // A declared producer replaces the built-in rows of its kind and group.
        let sealed: Vec<_> = c
            .producers_for("bitnami.com/v1alpha1", "SealedSecret")
            .collect();
        assert_eq!(sealed.len(), 1);
        assert_eq!(sealed[0].declared_at.as_deref(), Some("spec.producers[1]"));
        assert_eq!(
            c.producers_for("cert-manager.io/v1", "Certificate").count(),
            1
        );
        assert!(
            c.annotation_sites
                .iter()
                .any(|s| s.key == "example.com/reload-secrets" && s.kind == SourceKind::Secret)
        );
        assert_eq!(c.pod_sites.len(), Catalog::builtin().pod_sites.len() + 2);
    }

    #[test]
    fn the_last_entry_for_a_group_and_kind_wins() {
        // A user row for apps/Deployment replaces the built-in row for that group only;
        // a later user row for the same group and kind replaces the earlier one.
        let e = ext("workloads:\n- {group: apps, kind: Deployment, template: spec/a}\n- {group: example.com, kind: Deployment, template: spec/b}\n- {group: apps, kind: Deployment, template: spec/c}\n").unwrap();
        let mut c = Catalog::builtin();
        c.extend(&e);
        let template = |api: &str| {
            c.workload(api, "Deployment")
                .map(|w| w.template.to_string())
        };
        assert_eq!(template("apps/v1").as_deref(), Some("spec/c"));
        assert_eq!(template("example.com/v1").as_deref(), Some("spec/b"));
        assert_eq!(
            template("extensions/v1beta1").as_deref(),
            Some("spec/template")
        );
        let deployments: Vec<&str> = c
            .workloads
            .iter()
            .filter(|w| w.kind == "Deployment")
            .map(|w| w.declared_at.as_deref().unwrap_or("built-in"))
            .collect();
        assert_eq!(
            deployments,
            ["built-in", "spec.workloads[1]", "spec.workloads[2]"]
        );
    }

    #[test]
    fn a_declared_row_of_a_built_in_kind_rolls_and_is_held_back_as_that_kind() {
        use crate::model::catalog::Hold;
        let e = ext("workloads:\n- {group: apps, kind: Deployment, template: spec/a}\n- {group: batch, kind: CronJob, template: spec/t}\n- {group: example.com, kind: Deployment, template: spec/b}\n").unwrap();
        let mut c = Catalog::builtin();
        c.extend(&e);
        let rules = |api: &str, kind: &str| {
            let w = c.workload(api, kind).unwrap();
            (w.declared_at.is_some(), w.rolls, w.holds.clone())
        };
        assert_eq!(
            rules("apps/v1", "Deployment"),
            (true, true, vec![Hold::Paused])
        );
        assert_eq!(
            rules("batch/v1", "CronJob"),
            (true, false, vec![Hold::NextSchedule])
        );
        // Another group's kind of the same name is a kind of its own.
        assert_eq!(rules("example.com/v1", "Deployment"), (true, true, vec![]));
    }

    #[test]
    fn every_bad_entry_is_reported_by_name() {
        let errs = ext("workloads:\n- {kind: Widget, template: ''}\n- {kind: Gadget, template: spec/t, colour: red}\nreferences:\n- kind: Pod\n  fieldSpecs: [{kind: X, path: a}]\n- kind: ConfigMap\n  fieldSpecs: []\npodReferences:\n- {kind: Secret, path: 'a//b'}\nproducers:\n- {kind: Certificate, makes: Pod, hashed: all, unless: [x]}\nannotationReferences:\n- {key: 'Bad Key', kind: Secret}\n").unwrap_err();
        let fields: Vec<&str> = errs.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "spec.workloads[0].template",
                "spec.workloads[1].colour",
                "spec.references[0].kind",
                "spec.references[1].fieldSpecs",
                "spec.podReferences[0].path",
                "spec.producers[0].makes",
                "spec.producers[0].hashed",
                "spec.producers[0].unless",
                "spec.annotationReferences[0].key",
            ]
        );
        assert!(
            errs[1].message.contains("accepted fields: group"),
            "{errs:?}"
        );
    }
}
