//! Rollback-safe cleanup of hashed names, without talking to a cluster: from the render
//! being applied and a dump of live objects, the hashed ConfigMaps and Secrets that are
//! safe to delete. Safe means all of: it is a version of a base name the render has, in
//! its namespace (its name is that base name plus the hash of its own content); the render
//! no longer holds it; no live object names it at any site renaming rewrites (custom kinds
//! read by shape too); no copy of it has an owner; and it is not among the newest `keep`
//! old versions of its base name. A dump that cannot show every reader is refused
//! (prune/complete.rs). Nothing is deleted here.

mod complete;
mod dump;
mod error;
mod readers;
mod versions;

pub use error::{Missing, PruneError};
pub use versions::{Kept, Old};

use crate::model::settings::Settings;

/// What a prune reads besides the texts.
#[derive(Debug, Clone)]
pub struct Options {
    /// How many of the newest old versions of each base name to keep.
    pub keep: usize,
    /// The run's settings: the catalog's reference sites (with the rows the configuration
    /// adds) are what "reads it" means, and the configuration's namespace is the one
    /// render objects written without one are applied to (`None`: they stand for an
    /// object of that name in any namespace).
    pub settings: Settings,
}

/// The old hashed objects of `live` with what the rules made of each, newest first per
/// base name; those with `kept: None` are safe to delete. `render` and `live` are
/// (description, text) pairs.
pub fn plan(
    render: &[(String, String)],
    live: &[(String, String)],
    options: &Options,
) -> Result<Vec<Old>, PruneError> {
    let render = dump::Objects::read(render)?;
    let live = dump::Objects::read(live)?;
    let (catalog, namespace) = (
        &options.settings.catalog,
        &options.settings.config.namespace,
    );
    let render = render.each();
    let objects = live.each();
    let readers = readers::Readers::of(&objects, catalog);
    let groups = versions::old_versions(
        &objects,
        &versions::Render::of(&render, namespace),
        &readers,
    );
    complete::check(
        &render,
        &objects,
        &versions::in_question(&groups),
        catalog,
        namespace,
    )?;
    Ok(versions::keep_newest(groups, options.keep))
}

/// The objects safe to delete, as a stream `kubectl delete -f -` reads.
pub fn to_yaml(olds: &[Old]) -> String {
    use crate::yaml::scalar::double_quoted;
    let mut out = String::new();
    for old in olds.iter().filter(|o| o.kept.is_none()) {
        out.push_str("---\napiVersion: v1\nkind: ");
        out.push_str(old.kind.as_str());
        out.push_str("\nmetadata:\n  name: ");
        out.push_str(&double_quoted(&old.name));
        out.push('\n');
        if let Some(ns) = &old.namespace {
            out.push_str("  namespace: ");
            out.push_str(&double_quoted(ns));
            out.push('\n');
        }
    }
    out
}

/// The objects safe to delete, as a `List` `kubectl delete -f -` reads.
pub fn to_json(olds: &[Old]) -> String {
    use serde_json::json;
    let items: Vec<serde_json::Value> = olds
        .iter()
        .filter(|o| o.kept.is_none())
        .map(|o| {
            let mut metadata = json!({"name": o.name});
            if let Some(ns) = &o.namespace {
                metadata["namespace"] = json!(ns);
            }
            json!({"apiVersion": "v1", "kind": o.kind.as_str(), "metadata": metadata})
        })
        .collect();
    let list = json!({"apiVersion": "v1", "kind": "List", "items": items});
    let mut out = serde_json::to_string_pretty(&list).expect("plain JSON");
    out.push('\n');
    out
}

/// Every old hashed object, deleted or kept, and why: for review.
pub fn to_table(olds: &[Old]) -> String {
    let header = ["ACTION", "KIND", "NAMESPACE", "NAME", "CREATED", "WHY"].map(str::to_string);
    let rows: Vec<[String; 6]> = olds
        .iter()
        .map(|o| {
            let (action, why) = match &o.kept {
                None => ("delete", format!("an old version of {}", o.base)),
                Some(Kept::InRender) => ("keep", "in the render".to_string()),
                Some(Kept::ReadBy { by, field }) => ("keep", format!("read by {by} at {field}")),
                Some(Kept::Owned { by }) => ("keep", format!("owned by {by}")),
                Some(Kept::Newest { rank }) => (
                    "keep",
                    format!("newest old version {rank} of {} (--keep)", o.base),
                ),
                Some(Kept::NotAVersion { content_gives }) => (
                    "keep",
                    match content_gives {
                        Some(name) => format!(
                            "not a version of {}: its content gives the name {name}",
                            o.base
                        ),
                        None => format!(
                            "not a version of {}: kustomize's hash cannot read its content",
                            o.base
                        ),
                    },
                ),
            };
            [
                action.to_string(),
                o.kind.as_str().to_string(),
                o.namespace.clone().unwrap_or_else(|| "-".to_string()),
                o.name.clone(),
                o.created.clone().unwrap_or_else(|| "-".to_string()),
                why,
            ]
        })
        .collect();
    let mut widths = [0usize; 6];
    for row in std::iter::once(&header).chain(&rows) {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(&header).chain(&rows) {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            line.push_str(cell);
            if i < 5 {
                line.extend(std::iter::repeat_n(
                    ' ',
                    widths[i] - cell.chars().count() + 2,
                ));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    if rows.is_empty() {
        out.push_str("(no old hashed ConfigMap or Secret in the dump)\n");
    }
    out
}

/// One line for stderr: how many are listed, and why the others are kept.
pub fn summary(olds: &[Old]) -> String {
    let count = |f: &dyn Fn(&Option<Kept>) -> bool| olds.iter().filter(|o| f(&o.kept)).count();
    format!(
        "config-hash prune: {} to delete; kept: {} in the render, {} read by live objects, {} owned, {} newest old versions (--keep), {} not versions (their content does not give their name)",
        count(&|k| k.is_none()),
        count(&|k| matches!(k, Some(Kept::InRender))),
        count(&|k| matches!(k, Some(Kept::ReadBy { .. }))),
        count(&|k| matches!(k, Some(Kept::Owned { .. }))),
        count(&|k| matches!(k, Some(Kept::Newest { .. }))),
        count(&|k| matches!(k, Some(Kept::NotAVersion { .. }))),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::catalog::SourceKind;
    use crate::model::resource::ResourceId;

    fn options(keep: usize) -> Options {
        Options {
            keep,
            settings: Settings::default(),
        }
    }

    /// The name `base`'s version holding `value` has: the base name and the hash of its
    /// content, as `--name-suffix` names it.
    fn named(kind: &str, base: &str, value: &str) -> String {
        let text = format!("apiVersion: v1\nkind: {kind}\ndata: {{v: {value}}}\n");
        let tree = crate::yaml::parse(&text).unwrap();
        let kind = SourceKind::from_name(kind).unwrap();
        let suffix =
            crate::resolve::renames::content_suffix(&tree, tree.documents()[0].root(), kind);
        format!("{base}-{}", suffix.unwrap())
    }

    /// A live ConfigMap or Secret of `base` holding `value` under `name`.
    fn object(kind: &str, name: &str, base: &str, value: &str, created: &str) -> String {
        format!(
            "---\napiVersion: v1\nkind: {kind}\nmetadata:\n  name: {name}\n  namespace: shop\n  creationTimestamp: \"{created}\"\n  annotations: {{config-hash.dev/base-name: {base}}}\ndata: {{v: {value}}}\n"
        )
    }

    /// The live version of `app` holding `value`, named as its content gives.
    fn cm(value: &str, created: &str) -> String {
        object("ConfigMap", &app(value), "app", value, created)
    }

    fn app(value: &str) -> String {
        named("ConfigMap", "app", value)
    }

    /// The render: the version of `app` holding `value`.
    fn render_of(value: &str) -> String {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {}\n  namespace: shop\n  annotations: {{config-hash.dev/base-name: app}}\ndata: {{v: {value}}}\n",
            app(value)
        )
    }

    fn listed(render: &str, live: &str, keep: usize) -> Vec<String> {
        kept(render, live, keep)
            .into_iter()
            .filter(|o| o.kept.is_none())
            .map(|o| o.name)
            .collect()
    }

    fn kept(render: &str, live: &str, keep: usize) -> Vec<Old> {
        plan(
            &[("render".into(), render.into())],
            &[("live".into(), live.into())],
            &options(keep),
        )
        .unwrap()
    }

    fn pod_reading(name: &str) -> String {
        format!(
            "---\napiVersion: v1\nkind: Pod\nmetadata: {{name: p, namespace: shop}}\nspec:\n  containers:\n  - name: c\n    envFrom: [{{configMapRef: {{name: {name}}}}}]\n"
        )
    }

    #[test]
    fn the_newest_old_versions_are_kept_and_what_a_pod_reads() {
        let live = [
            cm("d", "2026-01-05T00:00:00Z"),
            cm("c", "2026-01-04T00:00:00Z"),
            cm("b", "2026-01-03T00:00:00Z"),
            cm("9", "2026-01-02T00:00:00Z"),
            cm("8", "2026-01-01T00:00:00Z"),
            pod_reading(&app("c")),
        ]
        .concat();
        let render = render_of("d");
        // d is in the render, c is read by the Pod; of the rest, b is kept by --keep 1.
        assert_eq!(listed(&render, &live, 1), [app("9"), app("8")]);
        assert_eq!(listed(&render, &live, 0), [app("b"), app("9"), app("8")]);
        assert!(listed(&render, &live, 3).is_empty());
    }

    #[test]
    fn a_kustomize_suffix_counts_only_on_a_base_name_the_render_has() {
        // kustomize's own test vector: this content's suffix is 6b56fdfggc.
        let render = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web-6b56fdfggc}\ndata: {A: \"1\", B: two}\n";
        let (web, other) = (
            named("ConfigMap", "web", "x"),
            named("ConfigMap", "other", "x"),
        );
        let live = format!(
            "apiVersion: v1\nkind: List\nitems:\n- {{apiVersion: v1, kind: ConfigMap, metadata: {{name: {web}, namespace: a}}, data: {{v: x}}}}\n- {{apiVersion: v1, kind: ConfigMap, metadata: {{name: {other}, namespace: a}}, data: {{v: x}}}}\n- {{apiVersion: v1, kind: ConfigMap, metadata: {{name: web-not-a-hash, namespace: a}}, data: {{v: x}}}}\n- {{apiVersion: v1, kind: Pod, metadata: {{name: p, namespace: a}}, spec: {{containers: []}}}}\n"
        );
        assert_eq!(listed(render, &live, 0), [web]);
        assert_eq!(versions::kustomize_base("web-6b56fdfggc"), Some("web"));
        assert_eq!(versions::kustomize_base("web-6b56fdfgga"), None);
        assert_eq!(versions::kustomize_base("-6b56fdfggc"), None);
    }

    /// A name or an annotation proves nothing: an object is a version of a base name only
    /// when its name is that base name plus the hash of its own content. A foreign
    /// object that says it has the base name, and one whose name only looks suffixed,
    /// are kept, saying what their content would give.
    #[test]
    fn only_content_that_gives_the_name_makes_a_version() {
        let render = render_of("d");
        let foreign = object(
            "ConfigMap",
            "db-credentials",
            "app",
            "x",
            "2026-01-02T00:00:00Z",
        );
        let lookalike = "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: app-bbbbbbbbbb, namespace: shop, creationTimestamp: \"2026-01-03T00:00:00Z\"}\ndata: {v: y}\n";
        let live = [
            cm("d", "2026-01-05T00:00:00Z"),
            cm("c", "2026-01-04T00:00:00Z"),
            lookalike.to_string(),
            foreign,
            pod_reading("none"),
        ]
        .concat();
        assert_eq!(listed(&render, &live, 0), [app("c")]);
        let olds = kept(&render, &live, 0);
        let why: Vec<(&str, Option<&Kept>)> = olds
            .iter()
            .map(|o| (o.name.as_str(), o.kept.as_ref()))
            .collect();
        let (y, x) = (app("y"), app("x"));
        assert_eq!(
            why[2..],
            [
                (
                    "app-bbbbbbbbbb",
                    Some(&Kept::NotAVersion {
                        content_gives: Some(y)
                    })
                ),
                (
                    "db-credentials",
                    Some(&Kept::NotAVersion {
                        content_gives: Some(x)
                    })
                ),
            ]
        );
        // Content kustomize's hash cannot read gives no name at all.
        let nested = "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: app-bbbbbbbbbb, namespace: shop}\ndata: {v: {nested: y}}\n";
        let olds = kept(&render, &format!("{nested}{}", pod_reading("none")), 0);
        assert_eq!(
            olds[0].kept,
            Some(Kept::NotAVersion {
                content_gives: None
            })
        );
    }

    /// A live workload's pod template annotations name what its app reads through the
    /// API (Reloader's reload list here): read below the template, not only on the object.
    #[test]
    fn a_reload_annotation_on_a_live_pod_template_keeps_what_it_names() {
        let live = [
            cm("c", "2026-01-04T00:00:00Z"),
            cm("b", "2026-01-03T00:00:00Z"),
            format!("---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web, namespace: shop, uid: d-1}}\nspec:\n  template:\n    metadata:\n      annotations: {{configmap.reloader.stakater.com/reload: {}}}\n    spec: {{containers: [{{name: web}}]}}\n", app("c")),
            "---\napiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: web-1, namespace: shop, uid: r-1, ownerReferences: [{kind: Deployment, name: web, uid: d-1}]}\nspec:\n  template:\n    spec: {containers: [{name: web}]}\nstatus: {replicas: 0}\n".to_string(),
        ]
        .concat();
        let render = render_of("d");
        assert_eq!(listed(&render, &live, 0), [app("b")]);
        match &kept(&render, &live, 0)[0].kept {
            Some(Kept::ReadBy { by, field }) => {
                assert_eq!(by.to_string(), "Deployment shop/web");
                assert_eq!(
                    field,
                    "metadata.annotations[configmap.reloader.stakater.com/reload]"
                );
            }
            other => panic!("{other:?}"),
        }
    }

    /// An owner reference without a uid (as hand-written or older dumps have) finds its
    /// owner by kind, namespace and name: a dump that holds it is complete.
    #[test]
    fn an_owner_named_without_a_uid_is_found_by_its_name() {
        let pod = |owner: &str| {
            format!(
                "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: web-1\n  namespace: shop\n  ownerReferences: [{{kind: ReplicaSet, name: {owner}}}]\nspec:\n  containers: [{{name: c, envFrom: [{{configMapRef: {{name: {}}}}}]}}]\n",
                app("c")
            )
        };
        let rs = "---\napiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: web-7d, namespace: shop, uid: r-1}\nspec: {template: {spec: {containers: [{name: c}]}}}\nstatus: {replicas: 1}\n";
        let sources = [
            cm("c", "2026-01-04T00:00:00Z"),
            cm("b", "2026-01-03T00:00:00Z"),
        ]
        .concat();
        let render = render_of("d");
        let live = format!("{sources}{}{rs}", pod("web-7d"));
        assert_eq!(listed(&render, &live, 0), [app("b")]);
        // Another name is another owner, which the dump lacks.
        let live = format!("{sources}{}{rs}", pod("web-8e"));
        let err = plan(
            &[("render".into(), render.clone())],
            &[("live".into(), live)],
            &options(0),
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .contains("Pod shop/web-1 is owned by ReplicaSet web-8e, which is not in it"),
            "{err}"
        );
    }

    /// A live Pod mounting a volume whose plugin reads a Secret (its credentials) keeps
    /// that Secret, whichever in-tree plugin names it.
    #[test]
    fn a_volume_plugin_credentials_secret_is_kept() {
        let creds = |value: &str| named("Secret", "creds", value);
        let render = format!(
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: {}\n  namespace: shop\n  annotations: {{config-hash.dev/base-name: creds}}\ndata: {{v: ZA==}}\n",
            creds("ZA==")
        );
        let c = creds("Yw==");
        let volumes = [
            format!(
                "{{iscsi: {{targetPortal: 'a:3260', iqn: q, lun: 0, secretRef: {{name: {c}}}}}}}"
            ),
            format!("{{flexVolume: {{driver: d, secretRef: {{name: {c}}}}}}}"),
            format!("{{cephfs: {{monitors: [m], secretRef: {{name: {c}}}}}}}"),
            format!("{{rbd: {{monitors: [m], image: i, secretRef: {{name: {c}}}}}}}"),
            format!("{{scaleIO: {{gateway: g, system: s, secretRef: {{name: {c}}}}}}}"),
            format!("{{storageos: {{volumeName: v, secretRef: {{name: {c}}}}}}}"),
            format!("{{azureFile: {{secretName: {c}, shareName: s}}}}"),
        ];
        for volume in volumes {
            let live = format!(
                "{}{}---\napiVersion: v1\nkind: Pod\nmetadata: {{name: p, namespace: shop}}\nspec:\n  containers: [{{name: c}}]\n  volumes:\n  - {volume}\n",
                object("Secret", &c, "creds", "Yw==", "2026-01-04T00:00:00Z"),
                object(
                    "Secret",
                    &creds("Yg=="),
                    "creds",
                    "Yg==",
                    "2026-01-03T00:00:00Z"
                ),
            );
            assert_eq!(listed(&render, &live, 0), [creds("Yg==")], "{volume}");
        }
    }

    /// The same object twice in a dump (two dumps joined, one taken later) is one
    /// object: kept when any copy keeps it (an owner on one copy), as newest as its
    /// newest copy, and newest of all when a copy has no time.
    #[test]
    fn copies_of_one_object_are_judged_together() {
        let render = render_of("d");
        let owned = format!(
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {}\n  namespace: shop\n  creationTimestamp: \"2026-01-03T00:00:00Z\"\n  annotations: {{config-hash.dev/base-name: app}}\n  ownerReferences: [{{apiVersion: example.com/v1, kind: Widget, name: w, uid: w-1}}]\ndata: {{v: b}}\n",
            app("b")
        );
        let live = [cm("b", "2026-01-03T00:00:00Z"), owned, pod_reading("none")].concat();
        let olds = kept(&render, &live, 0);
        assert_eq!(olds.len(), 1, "{olds:?}");
        assert_eq!(
            olds[0].kept,
            Some(Kept::Owned {
                by: "Widget w".into()
            })
        );
        // Times: the newest copy's, or none when a copy has none.
        let live = [
            cm("b", "2026-01-03T00:00:00Z"),
            cm("b", "2026-01-07T00:00:00Z"),
            cm("c", "2026-01-05T00:00:00Z"),
            pod_reading("none"),
        ]
        .concat();
        let olds = kept(&render, &live, 1);
        assert_eq!(olds[0].name, app("b"));
        assert_eq!(olds[0].created.as_deref(), Some("2026-01-07T00:00:00Z"));
        assert_eq!(listed(&render, &live, 1), [app("c")]);
        let untimed = cm("b", "").replace("  creationTimestamp: \"\"\n", "");
        let live = format!(
            "{}{untimed}{}",
            cm("b", "2026-01-03T00:00:00Z"),
            pod_reading("none")
        );
        assert_eq!(kept(&render, &live, 0)[0].created, None);
        // A copy whose content does not give the name makes it no version.
        let changed = cm("b", "2026-01-03T00:00:00Z").replace("{v: b}", "{v: other}");
        let live = format!(
            "{}{changed}{}",
            cm("b", "2026-01-03T00:00:00Z"),
            pod_reading("none")
        );
        assert!(matches!(
            kept(&render, &live, 0)[0].kept,
            Some(Kept::NotAVersion { .. })
        ));
    }

    /// Lists in a list, and the lists the API server answers with (`PodList`), stand
    /// for their objects; an object whose kind only ends in List is itself.
    #[test]
    fn nested_lists_are_read_to_their_objects() {
        let render = render_of("d");
        let pod = |name: &str, reads: &str| {
            format!(
                "{{apiVersion: v1, kind: Pod, metadata: {{name: {name}, namespace: shop}}, spec: {{containers: [{{name: c, envFrom: [{{configMapRef: {{name: {reads}}}}}]}}]}}}}"
            )
        };
        let live = format!(
            "{}{}{}---\napiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: List\n  items:\n  - {}\n- apiVersion: v1\n  kind: PodList\n  metadata: {{resourceVersion: \"1\"}}\n  items:\n  - {}\n- apiVersion: example.com/v1\n  kind: AllowList\n  metadata: {{name: named, namespace: shop}}\n  items:\n  - {}\n",
            cm("c", "2026-01-04T00:00:00Z"),
            cm("b", "2026-01-03T00:00:00Z"),
            cm("a", "2026-01-02T00:00:00Z"),
            pod("p1", &app("c")),
            pod("p2", &app("b")),
            pod("p3", "none"),
        );
        assert_eq!(listed(&render, &live, 0), [app("a")]);
    }

    /// A custom resource keeps what it reads: one whose kind the configuration declares
    /// (its reference rows), and one it does not (read by shape, wherever it puts its
    /// containers).
    #[test]
    fn custom_kinds_keep_what_they_read() {
        let render = render_of("d");
        let workflow = |name: &str, reads: &str| {
            format!(
                "---\napiVersion: argoproj.io/v1alpha1\nkind: CronWorkflow\nmetadata: {{name: {name}, namespace: shop}}\nspec:\n  workflowSpec:\n    templates:\n    - name: main\n      container:\n        env:\n        - {{name: A, valueFrom: {{configMapKeyRef: {{name: {reads}, key: v}}}}}}\n"
            )
        };
        let live = [
            cm("c", "2026-01-04T00:00:00Z"),
            cm("b", "2026-01-03T00:00:00Z"),
            workflow("nightly", &app("c")),
            pod_reading("none"),
        ]
        .concat();
        let olds = kept(&render, &live, 0);
        assert_eq!(
            olds[0].kept,
            Some(Kept::ReadBy {
                by: ResourceId::new(
                    "argoproj.io/v1alpha1",
                    "CronWorkflow",
                    Some("shop"),
                    "nightly"
                ),
                field: "spec.workflowSpec.templates[0].container.env[0].valueFrom.configMapKeyRef"
                    .into()
            })
        );
        assert_eq!(listed(&render, &live, 0), [app("b")]);
        // Declared: its rows read it (a kind with no pod template of its own).
        let config = "apiVersion: config-hash.dev/v1alpha1\nkind: ConfigHash\nspec:\n  references:\n  - kind: ConfigMap\n    fieldSpecs:\n    - {group: argoproj.io, kind: CronWorkflow, path: spec/workflowSpec/templates/container/env/valueFrom/configMapKeyRef/name}\n";
        let tree = crate::yaml::parse(config).unwrap();
        let config = crate::model::config::Config::from_function_config(
            &tree,
            Some(tree.documents()[0].root()),
        )
        .unwrap();
        let options = Options {
            keep: 0,
            settings: Settings::new(config),
        };
        let olds = plan(
            &[("render".into(), render.clone())],
            &[("live".into(), live.clone())],
            &options,
        )
        .unwrap();
        assert_eq!(
            olds[0].kept,
            Some(Kept::ReadBy {
                by: ResourceId::new(
                    "argoproj.io/v1alpha1",
                    "CronWorkflow",
                    Some("shop"),
                    "nightly"
                ),
                field:
                    "spec.workflowSpec.templates[0].container.env[0].valueFrom.configMapKeyRef.name"
                        .into()
            })
        );
    }

    /// Every place the rename pass rewrites (each pod site, name site and annotation
    /// site of the catalog, built in or declared) keeps what a live object names there:
    /// by construction, each built from the catalog's own rows.
    #[test]
    fn every_site_the_rename_pass_knows_keeps_its_target() {
        use crate::model::catalog::{FieldPath, Scoped};
        // The path filled with nested mappings (the walker reads a mapping where a list
        // may be), a container list as a list; `name` at the end.
        fn filled(path: &FieldPath, name: &str) -> String {
            let mut out = format!("\"{name}\"");
            for step in path.steps().iter().rev() {
                let key = serde_json::to_string(step).unwrap();
                out = if crate::model::catalog::CONTAINER_LISTS.contains(&step.as_str()) {
                    format!("{{{key}: [{{name: c, {}}}]}}", &out[1..out.len() - 1])
                } else {
                    format!("{{{key}: {out}}}")
                };
            }
            out
        }
        // A declared pod site and name site, as users add them.
        let config = "apiVersion: config-hash.dev/v1alpha1\nkind: ConfigHash\nspec:\n  podReferences:\n  - {kind: Secret, path: containers/env/valueFrom/vaultRef/name, keys: key}\n  references:\n  - kind: ConfigMap\n    fieldSpecs: [{group: example.com, kind: Widget, path: spec/settings/configMapName}]\n";
        let tree = crate::yaml::parse(config).unwrap();
        let config = crate::model::config::Config::from_function_config(
            &tree,
            Some(tree.documents()[0].root()),
        )
        .unwrap();
        let settings = Settings::new(config);
        let catalog = settings.catalog.clone();
        let options = Options { keep: 0, settings };
        let kinds = [SourceKind::ConfigMap, SourceKind::Secret];
        // (what names it, the kind it names)
        let mut readers: Vec<(String, SourceKind)> = Vec::new();
        for site in catalog.pod_sites.iter().filter(|s| kinds.contains(&s.kind)) {
            let mut spec = filled(&site.path, "OLD");
            // A key the API server requires beside the name (`configMapKeyRef.key`).
            if let crate::model::catalog::KeySel::Field(key) = &site.keys {
                spec = spec.replace("\"name\": \"OLD\"", &format!("\"name\": \"OLD\", {key}: k"));
            }
            readers.push((
                format!("apiVersion: v1\nkind: Pod\nmetadata: {{name: reader, namespace: shop}}\nspec: {spec}\n"),
                site.kind,
            ));
        }
        for site in &catalog.name_sites {
            let group = &site.groups[0];
            let api = if group.is_empty() {
                "v1".to_string()
            } else {
                format!("{group}/v1")
            };
            let ns = match site.scope {
                Scoped::Namespaced => ", namespace: shop",
                Scoped::Cluster => "",
            };
            let mut body = filled(&site.path, "OLD");
            if site.rule_resource.is_some() {
                body = body.replacen(
                    "{\"rules\": {",
                    "{\"rules\": {\"resources\": [configmaps, secrets], ",
                    1,
                );
            }
            // The name site's fields beside the object's name and kind.
            let body = &body[1..body.len() - 1];
            let metadata = if body.starts_with("\"metadata\"") {
                body.replacen(
                    "\"metadata\": {",
                    &format!("\"metadata\": {{name: reader{ns}, "),
                    1,
                )
            } else {
                format!("\"metadata\": {{name: reader{ns}}}, {body}")
            };
            readers.push((
                format!("{{apiVersion: {api}, kind: {}, {metadata}}}\n", site.kind),
                site.target,
            ));
        }
        for site in catalog
            .annotation_sites
            .iter()
            .filter(|s| kinds.contains(&s.kind))
        {
            readers.push((
                format!("apiVersion: v1\nkind: Pod\nmetadata: {{name: reader, namespace: shop, annotations: {{\"{}\": OLD}}}}\nspec: {{containers: [{{name: c}}]}}\n", site.key),
                site.kind,
            ));
        }
        assert!(readers.len() > 30, "{}", readers.len());
        for (reader, kind) in readers {
            let kind_name = kind.as_str();
            let base = match kind {
                SourceKind::ConfigMap => "app",
                _ => "creds",
            };
            let (old, new) = (named(kind_name, base, "old"), named(kind_name, base, "new"));
            let render = object(kind_name, &new, base, "new", "2026-01-05T00:00:00Z");
            let live = format!(
                "{}---\n{}---\napiVersion: v1\nkind: Pod\nmetadata: {{name: bystander, namespace: shop}}\nspec: {{containers: [{{name: c}}]}}\n",
                object(kind_name, &old, base, "old", "2026-01-04T00:00:00Z"),
                reader.replace("OLD", &old),
            );
            let olds = plan(
                &[("render".into(), render)],
                &[("live".into(), live.clone())],
                &options,
            )
            .unwrap_or_else(|e| panic!("{e}\n{live}"));
            assert!(
                matches!(olds[0].kept, Some(Kept::ReadBy { .. })),
                "{:?}\n{live}",
                olds[0].kept
            );
        }
    }

    #[test]
    fn a_dump_without_the_owners_of_its_pods_is_refused() {
        let live = format!(
            "{}---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: web-1\n  namespace: shop\n  ownerReferences: [{{kind: ReplicaSet, name: web-7d, uid: u1}}]\nspec: {{containers: []}}\n",
            cm("8", "2026-01-01T00:00:00Z")
        );
        let err = plan(
            &[("render".into(), render_of("d"))],
            &[("live".into(), live)],
            &options(0),
        )
        .unwrap_err();
        assert!(
            matches!(
                &err,
                PruneError::Incomplete { missing } if missing[0].resource == "replicasets"
            ),
            "{err}"
        );
        assert!(
            err.to_string()
                .contains("Pod shop/web-1 is owned by ReplicaSet web-7d"),
            "{err}"
        );
    }
}
