//! The rename pass, as edits: each renamed object gets its hashed name (its base name
//! recorded, optionally immutable), a Job opted in gets a name from its pod template,
//! every reference the catalog knows is rewritten to the new names, and an old name
//! left in a field the catalog does not know is asked about.

use std::collections::HashSet;

use crate::model::catalog::SourceKind;
use crate::model::catalog::{Catalog, Form, annotations, mentions};
use crate::model::config::Config;
use crate::model::findings::{Finding, Unwritable};
use crate::model::messages;
use crate::model::name_hash;
use crate::model::names::JOB_NAME_MAX;
use crate::model::resource::{ResourceId, annotation};
use crate::model::result::KrmResult;
use crate::read::references;
use crate::resolve::renames::{AnyNamespace, RenameId, Renames};
use crate::yaml::{Editor, Kind, Layout, NewValue, NodeId, Splices, Tree};

/// The edits that rename the object itself: new name, base name recorded, optionally
/// immutable. `Err` is the error result when that cannot be done losslessly.
pub fn rename_object(
    tree: &Tree<'_>,
    item: NodeId,
    id: &ResourceId,
    base: &str,
    new_name: &str,
    config: &Config,
) -> Result<Splices, Box<KrmResult>> {
    let mut ed = Editor::new(tree, Layout::for_item(tree, item));
    let edited = (|| {
        if id.name() != new_name {
            let name = tree.get_path(item, &["metadata", "name"]).ok_or(
                crate::yaml::EditError::Layout {
                    pos: 0,
                    what: "no metadata.name",
                },
            )?;
            if tree.is_alias(name) {
                return Err(crate::yaml::EditError::ThroughAlias {
                    pos: tree.span(name).start(),
                });
            }
            ed.replace_name(name, new_name);
        }
        let mut wanted = vec![(annotations::BASE_NAME, base.to_string())];
        for w in config.gitops.iter().flat_map(|g| g.annotations()) {
            if let Some(value) = w.value(annotation(tree, item, w.key)) {
                wanted.push((w.key, value));
            }
        }
        let metadata_annotations = ["metadata", "annotations"];
        let none_yet = tree
            .get_path(item, &metadata_annotations)
            .is_none_or(|a| tree.is_null(a));
        if wanted.len() == 1 || !none_yet {
            for (key, value) in &wanted {
                ed.set_string(item, &metadata_annotations, key, value)?;
            }
        } else {
            // None yet: one new mapping with every entry (the editor inserts a missing
            // mapping once per edit, so two edits would write `annotations:` twice).
            let entries = wanted
                .into_iter()
                .map(|(k, v)| (k.to_string(), NewValue::Str(v)))
                .collect();
            ed.set_value(item, &metadata_annotations, NewValue::Map(entries))?;
        }
        if config.immutable {
            ed.set_value(item, &["immutable"], NewValue::Raw("true".into()))?;
        }
        Ok::<(), crate::yaml::EditError>(())
    })();
    match edited {
        Ok(()) => Ok(ed.into_splices()),
        Err(error) => {
            let (line, column) = tree.line_col(error.pos());
            Err(Box::new(
                KrmResult::new(Finding::CannotRename {
                    error: error.into(),
                    line,
                    column,
                })
                .about(tree, item),
            ))
        }
    }
}

/// A stamped Job that asked for a hashed name.
pub struct JobToRename<'j> {
    pub id: &'j ResourceId,
    pub template: NodeId,
    pub spec: NodeId,
    /// The pod spec's field path (`spec.template.spec`).
    pub spec_path: &'j str,
    /// The stamp's own nodes (the hash annotation, the env entries), which do not feed
    /// the name, so the function's output keeps it.
    pub stamped_nodes: &'j [NodeId],
    /// The hash stamped into the template ("" when it reads nothing).
    pub hash: &'j str,
}

/// Why a Job cannot get its hashed name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobRenameError {
    /// The new name, over [`JOB_NAME_MAX`].
    TooLong(String),
    Edit(crate::yaml::EditError),
}

/// In the words of the findings it becomes (`JobNameTooLong`, `NotStamped`), after
/// their "not stamped:".
impl std::fmt::Display for JobRenameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JobRenameError::TooLong(new_name) => messages::job_name_too_long(f, new_name),
            JobRenameError::Edit(e) => write!(f, "{}", Unwritable::from(e.clone())),
        }
    }
}

impl std::error::Error for JobRenameError {}

/// Gives a Job a hashed name: its base name (recorded by an earlier run, or its name)
/// and 10 characters, in kustomize's suffix alphabet, of the hash of its pod template
/// apart from the stamp, and of the stamped hash, so a change of config, image or
/// anything else in the template makes a new Job. The base name is recorded. Nothing is
/// expected to refer to a Job by name, so nothing is rewritten. Returns the base name
/// and the Job's id in the output.
pub fn rename_job(
    tree: &Tree<'_>,
    item: NodeId,
    job: &JobToRename<'_>,
    pod_sites: &[crate::model::catalog::PodSite],
    renames: &Renames,
    ed: &mut Editor<'_, '_>,
) -> Result<(String, ResourceId), JobRenameError> {
    use sha2::{Digest, Sha256};
    let id = job.id;
    // The name comes from the template as written out: references to renamed objects
    // read as their new names, so a run on the output gives the same name.
    let replaced: Vec<(NodeId, String)> =
        references::find_all(tree, job.spec, job.spec_path, pod_sites)
            .into_iter()
            .filter_map(|r| {
                let new = renames.final_name(r.kind, id.namespace(), &r.name)?;
                (new != r.name).then(|| (r.name_node, new.to_string()))
            })
            .collect();
    let mut h = Sha256::new();
    h.update(b"config-hash.dev/job-name/v1\n");
    h.update((job.hash.len() as u64).to_be_bytes());
    h.update(job.hash.as_bytes());
    h.update(crate::read::produced::canonical_as_written(
        tree,
        job.template,
        job.stamped_nodes,
        &replaced,
    ));
    let suffix = name_hash::suffix_of_digest(&h.finalize());
    let base = annotation(tree, item, annotations::BASE_NAME)
        .filter(|b| !b.is_empty())
        .unwrap_or(id.name())
        .to_string();
    let new_name = format!("{base}-{suffix}");
    if new_name.len() > JOB_NAME_MAX {
        return Err(JobRenameError::TooLong(new_name));
    }
    if new_name != id.name() {
        if let Some(node) = tree.get_path(item, &["metadata", "name"]) {
            if tree.is_alias(node) {
                return Err(JobRenameError::Edit(crate::yaml::EditError::ThroughAlias {
                    pos: tree.span(node).start(),
                }));
            }
            ed.replace_name(node, &new_name);
        }
    }
    ed.set_string(
        item,
        &["metadata", "annotations"],
        annotations::BASE_NAME,
        &base,
    )
    .map_err(JobRenameError::Edit)?;
    let renamed = id.with_name(&new_name);
    Ok((base, renamed))
}

/// Rewrites every reference in `item` the catalog knows to a renamed object. Returns the
/// nodes it recognised as references (rewritten or already right), the renamed objects
/// they point at, and a warning for each name it could not rewrite because objects of
/// several namespaces take different names under it.
pub fn rewrite_references(
    tree: &Tree<'_>,
    item: NodeId,
    id: &ResourceId,
    catalog: &Catalog,
    renames: &Renames,
    splices: &mut Splices,
) -> (HashSet<NodeId>, Vec<RenameId>, Vec<KrmResult>) {
    let mut rewritten = HashSet::new();
    let mut pointed = Vec::new();
    let mut ambiguous = Vec::new();
    // Made at the first name to rewrite: most items rewrite none.
    let mut ed = None;
    for references::NameRef {
        node,
        kind,
        form,
        namespace,
        any_namespace,
        field,
    } in references::name_refs(tree, item, id, catalog)
    {
        if any_namespace {
            let Some(text) = tree.str(node) else { continue };
            match renames.resolve_any(kind, text) {
                AnyNamespace::None => {}
                AnyNamespace::One(renamed) if renames.renamed_after_build(renamed) => {
                    rewritten.insert(node);
                }
                AnyNamespace::One(renamed) => {
                    let new_name = renames.final_of(renamed);
                    rewritten.insert(node);
                    pointed.push(renamed);
                    if text != new_name {
                        editor(&mut ed, tree).replace_name(node, new_name);
                    }
                }
                AnyNamespace::Ambiguous => {
                    rewritten.insert(node);
                    ambiguous.push(
                        KrmResult::new(Finding::AmbiguousName {
                            field: field.clone(),
                            kind,
                            name: text.to_string(),
                        })
                        .about(tree, item)
                        .at_field(field),
                    );
                }
            }
            continue;
        }
        let Some(text) = tree.str(node) else { continue };
        let (prefix, name) = match form {
            Form::MaybeNamespaced => match text.split_once('/') {
                Some((ns, n)) if Some(ns) == namespace.as_deref() => (format!("{ns}/"), n),
                Some(_) => continue,
                None => (String::new(), text),
            },
            Form::Name => (String::new(), text),
        };
        let Some(renamed) = renames.resolve(kind, namespace.as_deref(), name) else {
            continue;
        };
        let new_name = renames.final_of(renamed);
        rewritten.insert(node);
        if renames.renamed_after_build(renamed) {
            continue;
        }
        pointed.push(renamed);
        if name == new_name {
            continue;
        }
        editor(&mut ed, tree).replace_name(node, &format!("{prefix}{new_name}"));
    }
    if let Some(ed) = ed {
        ed.into_splices().append_to(splices);
    }
    (rewritten, pointed, ambiguous)
}

/// The editor that rewrites names in `tree`, made when first asked for.
fn editor<'e, 't, 'a>(
    ed: &'e mut Option<Editor<'t, 'a>>,
    tree: &'t Tree<'a>,
) -> &'e mut Editor<'t, 'a> {
    ed.get_or_insert_with(|| Editor::new(tree, Layout::detect(tree.src())))
}

/// Whether an object of this kind is asked about old names it holds: not a Secret,
/// whose values are never quoted in a message, even one that equals a name.
pub fn asked_about_old_names(kind: SourceKind) -> bool {
    kind != SourceKind::Secret
}

/// Warns about scalars of `item` that still carry an old name in fields that can name a
/// ConfigMap or Secret the catalog does not know (a CRD's field, an env var or flag that
/// names configuration), asking the user whether it is a reference. `rewritten` are the
/// reference nodes already handled. Labels, selectors, the names of containers, volumes
/// and ports, and every field of Kubernetes' own kinds outside free text are never asked
/// about: the answer there is known.
pub fn warn_unknown_mentions(
    tree: &Tree<'_>,
    config: &Config,
    catalog: &Catalog,
    item: NodeId,
    id: &ResourceId,
    renames: &Renames,
    rewritten: &HashSet<NodeId>,
) -> Vec<KrmResult> {
    let mut results = Vec::new();
    if SourceKind::from_kind(id.api_version(), id.kind()).is_some_and(|k| !asked_about_old_names(k))
    {
        return results;
    }
    let builtin =
        mentions::BUILTIN_GROUPS.contains(&crate::model::catalog::group_of(id.api_version()));
    let mut hits = Vec::new();
    scan(tree, item, &mut |node, path| {
        if rewritten.contains(&node) {
            return;
        }
        let Some(text) = tree.str(node) else { return };
        let Some(new) = renames.renamed_from(id.namespace(), text) else {
            return;
        };
        if new != text && may_name_a_source(tree, path, builtin) {
            hits.push((render(path), text.to_string(), new.to_string()));
        }
    });
    // An env entry is numbered among the user's entries, as in every finding.
    let positions = if hits.is_empty() {
        None
    } else {
        crate::read::env_shift::user_positions_of(tree, item, config, catalog)
    };
    for (field, text, new) in hits {
        let field = positions
            .as_ref()
            .and_then(|s| s.user_field(&field))
            .unwrap_or(field);
        results.push(
            KrmResult::new(Finding::OldName {
                field: field.clone(),
                text,
                new,
            })
            .about(tree, item)
            .at_field(field),
        );
    }
    results
}

/// Whether the scalar at `path` (each step with the node it leads to) can name a
/// ConfigMap or Secret: see [`mentions`]. `builtin`: the object is of a Kubernetes kind.
fn may_name_a_source(tree: &Tree<'_>, path: &[PathStep<'_>], builtin: bool) -> bool {
    let key = |i: usize| match path.get(i) {
        Some((Step::Key(k), _)) => Some(*k),
        _ => None,
    };
    let last = path.len().saturating_sub(1);
    if key(0) == Some(ANNOTATIONS_STEP) {
        return true;
    }
    if path
        .iter()
        .any(|(s, _)| matches!(s, Step::Key(k) if mentions::LABEL_KEYS.contains(k)))
    {
        return false;
    }
    let says_config = |word: &str| {
        let word = word.to_ascii_lowercase();
        mentions::CONFIG_WORDS.iter().any(|w| word.contains(w))
    };
    // An env var's value: a reference when the var's name says it names configuration
    // (Knative's `CONFIG_LOGGING_NAME`), not when it is a host name or a flag.
    if key(last) == Some("value") && last >= 2 && key(last - 2) == Some("env") {
        let entry = path[last - 1].1;
        return tree
            .get(entry, "name")
            .and_then(|n| tree.str(n))
            .is_some_and(says_config);
    }
    // A command-line argument: a reference when it follows a flag that says so.
    if let (Some((Step::Index(i), _)), Some(list)) = (path.get(last), key(last.wrapping_sub(1))) {
        if list == "args" || list == "command" {
            let seq = path[last - 1].1;
            return i
                .checked_sub(1)
                .and_then(|p| tree.items(seq).nth(p))
                .and_then(|flag| tree.str(flag))
                .is_some_and(|flag| flag.starts_with('-') && says_config(flag));
        }
    }
    if builtin {
        return false;
    }
    match key(last) {
        Some(k) if mentions::OTHER_NAMES.contains(&k) => false,
        Some("name") if last >= 2 => !matches!(
            (&path[last - 1].0, key(last - 2)),
            (Step::Index(_), Some(list)) if mentions::NAMED_LISTS.contains(&list)
        ),
        _ => true,
    }
}

/// The first step of a scalar under the object's annotations.
const ANNOTATIONS_STEP: &str = "metadata.annotations";

/// A scalar's field path: `spec.containers[0].env[1].value`.
fn render(path: &[PathStep<'_>]) -> String {
    let mut s = String::new();
    for (step, _) in path {
        match step {
            Step::Key(k) if s.is_empty() => s.push_str(k),
            Step::Key(k) => {
                s.push('.');
                s.push_str(k);
            }
            Step::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

/// One step of the path to a scalar.
enum Step<'t> {
    Key(&'t str),
    Index(usize),
}

/// A step with the node it leads to.
type PathStep<'t> = (Step<'t>, NodeId);

/// Visits every scalar value (not keys) under `item`, skipping `metadata` except its
/// annotations: names in labels and the object's own name are not references. Iterative,
/// so nesting depth cannot overflow the stack. The visitor gets the path to the scalar,
/// each step with the node it leads to.
fn scan<'t>(tree: &'t Tree<'_>, item: NodeId, f: &mut dyn FnMut(NodeId, &[PathStep<'t>])) {
    // (node, depth of its step in `path`, the step that leads to it)
    let mut stack: Vec<(NodeId, usize, Option<Step<'t>>)> = vec![(item, 0, None)];
    let mut path: Vec<PathStep<'t>> = Vec::new();
    while let Some((node, depth, step)) = stack.pop() {
        path.truncate(depth);
        if let Some(step) = step {
            path.push((step, node));
        }
        let depth = path.len();
        match tree.kind(node) {
            Kind::Scalar(_) => f(node, &path),
            Kind::Map { .. } => {
                for (k, v) in tree.own_entries(node).collect::<Vec<_>>().into_iter().rev() {
                    let Some(key) = tree.str(k) else { continue };
                    if depth == 0 && key == "metadata" {
                        if let Some(anns) = tree.get(v, "annotations") {
                            stack.push((anns, 0, Some(Step::Key(ANNOTATIONS_STEP))));
                        }
                        continue;
                    }
                    stack.push((v, depth, Some(Step::Key(key))));
                }
            }
            Kind::Seq { .. } => {
                for (i, it) in tree
                    .items(node)
                    .collect::<Vec<_>>()
                    .into_iter()
                    .enumerate()
                    .rev()
                {
                    stack.push((it, depth, Some(Step::Index(i))));
                }
            }
            Kind::Alias => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The error reads as the findings it becomes do, after their "not stamped: ".
    #[test]
    fn a_job_rename_error_is_worded_as_its_finding() {
        let job = ResourceId::new("batch/v1", "Job", Some("shop"), "migrate");
        let new_name = format!("{}-5h2k8m4b9d", "m".repeat(60));
        let too_long = JobRenameError::TooLong(new_name.clone());
        assert_eq!(
            Finding::JobNameTooLong { new_name }.message(Some(&job)),
            format!("Job shop/migrate: not stamped: {too_long}")
        );
        let alias = crate::yaml::EditError::ThroughAlias { pos: 40 };
        let not_stamped = Finding::NotStamped {
            error: Unwritable::from(alias.clone()),
            line: 3,
            column: 9,
        };
        assert_eq!(
            not_stamped.message(Some(&job)),
            format!(
                "Job shop/migrate: not stamped: {} (line 3 column 9)",
                JobRenameError::Edit(alias)
            )
        );
    }

    #[test]
    fn the_old_name_warning_names_the_field_and_skips_what_was_rewritten() {
        let src = "apiVersion: example.com/v1\nkind: Tool\nmetadata:\n  name: app\n  labels: {x: app}\n  annotations: {note: app}\nspec:\n  args: [--config, app, --host, app]\n  deep: {list: [{ref: app}]}\n";
        let tree = crate::yaml::parse(src).unwrap();
        let root = tree.documents()[0].root();
        let id = ResourceId::of(&tree, root);
        let mut r = Renames::default();
        r.add(SourceKind::ConfigMap, None, "app", "app", "app-5t7tcg6b9h");
        let (config, catalog) = (Config::default(), Catalog::builtin());
        let results =
            warn_unknown_mentions(&tree, &config, &catalog, root, &id, &r, &HashSet::new());
        let fields: Vec<&str> = results.iter().filter_map(|r| r.field.as_deref()).collect();
        // Not the object's own name, nor its labels.
        assert_eq!(
            fields,
            [
                "metadata.annotations.note",
                "spec.args[1]",
                "spec.deep.list[0].ref"
            ]
        );
    }

    /// From a cluster-scoped object too, a name kustomize renames after the run is
    /// recognised (not asked about) but left for kustomize to rewrite; one this run
    /// renames is rewritten.
    #[test]
    fn a_cluster_role_leaves_what_kustomize_renames_to_kustomize() {
        let src = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: r}\nrules:\n- resources: [configmaps]\n  resourceNames: [gen, own]\n";
        let tree = crate::yaml::parse(src).unwrap();
        let root = tree.documents()[0].root();
        let id = ResourceId::of(&tree, root);
        let (cm, ns) = (SourceKind::ConfigMap, Some("a".to_string()));
        let mut r = Renames::default();
        r.add_after_build(cm, ns.as_deref(), "gen", "gen-5t7tcg6b9h");
        r.add(cm, ns.as_deref(), "own", "own", "own-2b4m8f9gh7");
        let mut splices = Splices::default();
        let (rewritten, pointed, ambiguous) =
            rewrite_references(&tree, root, &id, &Catalog::builtin(), &r, &mut splices);
        assert_eq!(rewritten.len(), 2);
        assert_eq!(pointed, [r.resolve(cm, ns.as_deref(), "own").unwrap()]);
        assert!(ambiguous.is_empty());
        assert_eq!(
            splices.apply(src).unwrap(),
            src.replace("own]", "own-2b4m8f9gh7]")
        );
    }

    /// An annotation that may name `namespace/name` (nginx's auth-secret) is rewritten
    /// only when the namespace is the object's own: a Secret of that name in another
    /// namespace is another object.
    #[test]
    fn a_namespaced_annotation_reference_is_rewritten_in_its_own_namespace_only() {
        let ingress = |value: &str| {
            format!(
                "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: i\n  namespace: shop\n  annotations:\n    nginx.ingress.kubernetes.io/auth-secret: {value}\n"
            )
        };
        let mut r = Renames::default();
        let shop = Some("shop".to_string());
        r.add(
            SourceKind::Secret,
            shop.as_deref(),
            "auth",
            "auth",
            "auth-2b4m8f9gh7",
        );
        let rewritten = |src: &str| {
            let tree = crate::yaml::parse(src).unwrap();
            let root = tree.documents()[0].root();
            let id = ResourceId::of(&tree, root);
            let mut splices = Splices::default();
            let (nodes, pointed, _) =
                rewrite_references(&tree, root, &id, &Catalog::builtin(), &r, &mut splices);
            assert_eq!(nodes.len(), pointed.len());
            splices.apply(src).unwrap()
        };
        for (value, after) in [
            ("auth", "auth-2b4m8f9gh7"),
            ("shop/auth", "shop/auth-2b4m8f9gh7"),
            ("other/auth", "other/auth"),
        ] {
            assert_eq!(rewritten(&ingress(value)), ingress(after), "{value}");
        }
    }

    /// The fields where an old name is asked about, of a Kubernetes kind and of another.
    fn asked(src: &str) -> Vec<String> {
        let tree = crate::yaml::parse(src).unwrap();
        let root = tree.documents()[0].root();
        let id = ResourceId::of(&tree, root);
        let mut r = Renames::default();
        r.add(SourceKind::ConfigMap, None, "web", "web", "web-5t7tcg6b9h");
        let (config, catalog) = (Config::default(), Catalog::builtin());
        warn_unknown_mentions(&tree, &config, &catalog, root, &id, &r, &HashSet::new())
            .into_iter()
            .filter_map(|r| r.field)
            .collect()
    }

    #[test]
    fn old_names_are_asked_about_only_where_a_field_can_name_a_source() {
        let pod = "spec:\n  selector: {matchLabels: {app: web}}\n  serviceName: web\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      serviceAccountName: web\n      containers:\n      - name: web\n        image: web\n        args: [--upstream, web, --secret-name, web, web]\n        env:\n        - {name: HOST, value: web}\n        - {name: Config_File, value: web}\n        volumeMounts: [{name: web, mountPath: web}]\n      volumes:\n      - {name: web, persistentVolumeClaim: {claimName: web}}\n  other: web\n  ports: [{name: web}]\n";
        // Kubernetes' own kind: every field is known; only free text is asked about.
        let builtin = format!(
            "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {{name: web, annotations: {{a: web}}}}\n{pod}"
        );
        let free_text = [
            "metadata.annotations.a",
            "spec.template.spec.containers[0].args[3]",
            "spec.template.spec.containers[0].env[1].value",
        ];
        assert_eq!(asked(&builtin), free_text);
        // Another kind: any field but labels, selectors, names of list items, and keys
        // that name something else.
        let custom = format!(
            "apiVersion: example.com/v1\nkind: Web\nmetadata: {{name: web, annotations: {{a: web}}}}\n{pod}"
        );
        let mut expected = free_text.to_vec();
        expected.push("spec.other");
        assert_eq!(asked(&custom), expected);
        // In a command as in args, after a flag that says so; in another kind, any item
        // of a list of strings, a `name` outside a named list, a `value` outside env.
        let command = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    command: [run, --config-name, web]\n";
        assert_eq!(asked(command), ["spec.containers[0].command[2]"]);
        let other = "apiVersion: example.com/v1\nkind: Web\nmetadata: {name: w}\nspec:\n  hosts: [web]\n  name: web\n  value: web\n  list: [{name: web}]\n";
        assert_eq!(
            asked(other),
            [
                "spec.hosts[0]",
                "spec.name",
                "spec.value",
                "spec.list[0].name"
            ]
        );
    }
}
