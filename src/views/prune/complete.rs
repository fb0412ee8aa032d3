//! Whether a live dump can show every reader of an old version, worked out from the
//! render and the dump by the catalog's owners-and-rollbacks rows: the render's workloads
//! are there with what keeps their old templates (a Deployment's ReplicaSets, a
//! StatefulSet's ControllerRevisions, a CronJob itself); in a namespace holding old
//! versions, every reader's owner is there (or its revisions), every object that runs
//! Pods has them there, every Job a CronJob runs is there, and something could read at
//! all. A kubectl dump names none of the kinds it was asked for, so only such evidence
//! can show that a kind is missing: the dump is refused, naming every kind it lacks.

use std::collections::HashSet;

use super::dump::{Owner, owners, text_at};
use super::error::{Missing, PruneError};
use crate::model::catalog::{Catalog, KeptIn, Lineage, group_of, mentions};
use crate::model::resource::ResourceId;
use crate::read::references::path_strs;
use crate::yaml::{NodeId, Tree};

/// The namespaces that hold old versions the rules may list: where the dump must show
/// every reader.
pub(super) type Scope = HashSet<Option<String>>;

/// Refuses a dump that cannot show every reader of an old version, naming each kind it
/// lacks and why. `namespace`: where render objects written without one go (`None`: any).
pub(super) fn check(
    render: &[(&Tree<'_>, NodeId)],
    objects: &[(&Tree<'_>, NodeId)],
    scope: &Scope,
    catalog: &Catalog,
    namespace: &Option<String>,
) -> Result<(), PruneError> {
    let dump = Dump::of(objects);
    let mut needs = Needs::default();
    let in_scope: Vec<(&Tree<'_>, NodeId, ResourceId)> = objects
        .iter()
        .map(|&(tree, item)| (tree, item, ResourceId::of(tree, item)))
        .filter(|(_, _, id)| scope.contains(&id.namespace().map(str::to_string)))
        .collect();
    render_workloads_shown(render, &dump, catalog, namespace, &mut needs);
    owners_present(&in_scope, &dump, catalog, &mut needs);
    histories_present(&in_scope, &dump, catalog, &mut needs);
    running_objects_present(&in_scope, &dump, catalog, &mut needs);
    pods_present(&in_scope, &dump, catalog, &mut needs);
    readers_present(&in_scope, scope, catalog, &mut needs);
    if needs.missing.is_empty() {
        Ok(())
    } else {
        Err(PruneError::Incomplete {
            missing: needs.missing,
        })
    }
}

/// What the dump holds: its objects by uid and by kind, namespace and name, and what
/// they are owned by.
#[derive(Default)]
struct Dump {
    uids: HashSet<String>,
    names: HashSet<(String, Option<String>, String)>,
    /// (kind, name): for an owner in any namespace (a render object written without one).
    names_anywhere: HashSet<(String, String)>,
    /// (owned kind, owner uid).
    owned_by_uid: HashSet<(String, String)>,
    /// (owned kind, owner kind, namespace, owner name).
    owned_by_name: HashSet<(String, String, Option<String>, String)>,
    /// (owned kind, owner kind, owner name), in any namespace.
    owned_anywhere: HashSet<(String, String, String)>,
}

impl Dump {
    fn of(objects: &[(&Tree<'_>, NodeId)]) -> Dump {
        let mut dump = Dump::default();
        for &(tree, item) in objects {
            let id = ResourceId::of(tree, item);
            let uid = text_at(tree, item, &["metadata", "uid"]);
            if !uid.is_empty() {
                dump.uids.insert(uid);
            }
            let (kind, ns, name) = id.kind_namespace_name();
            dump.names_anywhere.insert((kind.clone(), name.clone()));
            dump.names.insert((kind.clone(), ns.clone(), name));
            for o in owners(tree, item) {
                if !o.uid.is_empty() {
                    dump.owned_by_uid.insert((kind.clone(), o.uid));
                }
                dump.owned_anywhere
                    .insert((kind.clone(), o.kind.clone(), o.name.clone()));
                dump.owned_by_name
                    .insert((kind.clone(), o.kind, ns.clone(), o.name));
            }
        }
        dump
    }

    /// It holds the object of this uid (when there is one), or of this kind and name in
    /// `namespace` (`None`: in any namespace).
    fn holds(&self, uid: &str, kind: &str, namespace: Option<&str>, name: &str) -> bool {
        if !uid.is_empty() && self.uids.contains(uid) {
            return true;
        }
        match namespace {
            Some(ns) => {
                self.names
                    .contains(&(kind.to_string(), Some(ns.to_string()), name.to_string()))
            }
            None => self
                .names_anywhere
                .contains(&(kind.to_string(), name.to_string())),
        }
    }

    /// It holds an object of kind `owned` owned by the object of this uid, or of this kind
    /// and name in `namespace` (`None`: in any namespace).
    fn holds_owned(
        &self,
        owned: &str,
        uid: &str,
        kind: &str,
        namespace: Option<&str>,
        name: &str,
    ) -> bool {
        if !uid.is_empty()
            && self
                .owned_by_uid
                .contains(&(owned.to_string(), uid.to_string()))
        {
            return true;
        }
        match namespace {
            Some(ns) => self.owned_by_name.contains(&(
                owned.to_string(),
                kind.to_string(),
                Some(ns.to_string()),
                name.to_string(),
            )),
            None => self.owned_anywhere.contains(&(
                owned.to_string(),
                kind.to_string(),
                name.to_string(),
            )),
        }
    }
}

/// The kinds the dump lacks, each once with the first reason found, in the order found.
#[derive(Default)]
struct Needs {
    missing: Vec<Missing>,
}

impl Needs {
    fn add(&mut self, resource: String, because: impl FnOnce() -> String) {
        if !self.missing.iter().any(|m| m.resource == resource) {
            self.missing.push(Missing {
                resource,
                because: because(),
            });
        }
    }
}

/// Where an object's pod templates are kept: its kind's row, or itself (a workload
/// kind without a row: a CronJob-like custom kind).
fn kept_in<'c>(
    catalog: &'c Catalog,
    api_version: &str,
    kind: &str,
) -> (Option<&'c Lineage>, KeptIn) {
    let row = catalog.lineage(api_version, kind);
    (row, row.map_or(KeptIn::Itself, |r| r.kept_in.clone()))
}

/// Whether objects of this kind may read a ConfigMap or Secret for a pod: a Pod, a kind
/// that carries or keeps a pod template, or a kind outside Kubernetes' own groups (read
/// by shape: it may embed containers).
fn reads(catalog: &Catalog, api_version: &str, kind: &str) -> bool {
    catalog.workload(api_version, kind).is_some()
        || catalog.lineage(api_version, kind).is_some()
        || !mentions::BUILTIN_GROUPS.contains(&group_of(api_version))
}

/// The render's workloads, applied, are in the dump with what keeps their old pod
/// templates: a Deployment's ReplicaSets (what a rollback scales up again), a
/// StatefulSet's ControllerRevisions, a CronJob or a custom kind itself. A Job is not
/// asked for: once finished it reads nothing and may be gone.
fn render_workloads_shown(
    render: &[(&Tree<'_>, NodeId)],
    dump: &Dump,
    catalog: &Catalog,
    namespace: &Option<String>,
    needs: &mut Needs,
) {
    for &(tree, item) in render {
        let id = ResourceId::of(tree, item);
        let (api, kind) = (id.api_version(), id.kind());
        if catalog.workload(api, kind).is_none() {
            continue;
        }
        let ns = id.namespace().or(namespace.as_deref());
        let (row, kept) = kept_in(catalog, api, kind);
        if row.is_some_and(|r| r.finishes) {
            continue;
        }
        match kept {
            KeptIn::Owned(history) => {
                if !dump.holds_owned(&history, "", kind, ns, id.name()) {
                    needs.add(catalog.resource_of_kind(&history), || {
                        format!(
                            "the render holds {id}, and none of its {history}s (what a rollback restores) is in it"
                        )
                    });
                }
            }
            KeptIn::Itself => {
                if !dump.holds("", kind, ns, id.name()) {
                    needs.add(catalog.resource(api, kind), || {
                        format!("the render holds {id}, which is not in it (dump after applying the render)")
                    });
                }
            }
        }
    }
}

/// The owner's row, its apiVersion (when its reference gives one), and whether the
/// catalog knows it as a workload.
fn owner_facts<'c>(catalog: &'c Catalog, owner: &Owner) -> (Option<&'c Lineage>, bool, bool) {
    if owner.api_version.is_empty() {
        // Without an apiVersion (a dump written by hand): by kind alone, and a kind the
        // catalog does not know is taken for a custom one.
        let row = catalog.lineage_of_kind(&owner.kind).next();
        let workload = catalog.workloads.iter().any(|w| w.kind == owner.kind);
        return (row, workload, row.is_none() && !workload);
    }
    let row = catalog.lineage(&owner.api_version, &owner.kind);
    let workload = catalog.workload(&owner.api_version, &owner.kind).is_some();
    let custom = !mentions::BUILTIN_GROUPS.contains(&group_of(&owner.api_version));
    (row, workload, custom)
}

/// Every reader's owner is in the dump (a Pod's ReplicaSet or Job, a Job's CronJob, a
/// custom kind that starts Pods), or for an owner that keeps its pod templates in objects
/// it owns, those (a StatefulSet's ControllerRevisions): what it would start next reads
/// what its template says.
fn owners_present(
    in_scope: &[(&Tree<'_>, NodeId, ResourceId)],
    dump: &Dump,
    catalog: &Catalog,
    needs: &mut Needs,
) {
    for (tree, item, id) in in_scope {
        if !reads(catalog, id.api_version(), id.kind()) {
            continue;
        }
        for owner in owners(tree, *item) {
            let (row, workload, custom) = owner_facts(catalog, &owner);
            let kept = match row {
                Some(row) => row.kept_in.clone(),
                None if workload || custom => KeptIn::Itself,
                None => continue,
            };
            let resource = if owner.api_version.is_empty() {
                catalog.resource_of_kind(&owner.kind)
            } else {
                catalog.resource(&owner.api_version, &owner.kind)
            };
            match kept {
                KeptIn::Owned(history) => {
                    let ns = id.namespace();
                    if !dump.holds_owned(&history, &owner.uid, &owner.kind, ns, &owner.name) {
                        needs.add(catalog.resource_of_kind(&history), || {
                            format!(
                                "{id} belongs to {} {}, whose revisions (what a rollback restores) are not in it",
                                owner.kind, owner.name
                            )
                        });
                    }
                }
                KeptIn::Itself => {
                    if !dump.holds(&owner.uid, &owner.kind, id.namespace(), &owner.name) {
                        needs.add(resource, || {
                            format!(
                                "{id} is owned by {} {}, which is not in it",
                                owner.kind, owner.name
                            )
                        });
                    }
                }
            }
        }
    }
}

/// Every object that keeps its pod templates in objects it owns has them in the dump:
/// a Deployment's ReplicaSets, a StatefulSet's ControllerRevisions.
fn histories_present(
    in_scope: &[(&Tree<'_>, NodeId, ResourceId)],
    dump: &Dump,
    catalog: &Catalog,
    needs: &mut Needs,
) {
    for (tree, item, id) in in_scope {
        let Some(KeptIn::Owned(history)) = catalog
            .lineage(id.api_version(), id.kind())
            .map(|r| r.kept_in.clone())
        else {
            continue;
        };
        let uid = text_at(tree, *item, &["metadata", "uid"]);
        if !dump.holds_owned(&history, &uid, id.kind(), id.namespace(), id.name()) {
            needs.add(catalog.resource_of_kind(&history), || {
                format!("it holds {id}, whose {history}s (old ones included) are not in it")
            });
        }
    }
}

/// Every object another runs now (a CronJob's `status.active` Jobs) is in the dump.
fn running_objects_present(
    in_scope: &[(&Tree<'_>, NodeId, ResourceId)],
    dump: &Dump,
    catalog: &Catalog,
    needs: &mut Needs,
) {
    for (tree, item, id) in in_scope {
        let Some(runs) = catalog
            .lineage(id.api_version(), id.kind())
            .and_then(|r| r.runs.as_ref())
        else {
            continue;
        };
        let listed = tree
            .get_path(*item, &path_strs(runs))
            .into_iter()
            .flat_map(|l| tree.items(l));
        for run in listed {
            let field = |key: &str| text_at(tree, run, &[key]);
            let (kind, name, uid) = (field("kind"), field("name"), field("uid"));
            let ns = Some(field("namespace"))
                .filter(|n| !n.is_empty())
                .or_else(|| id.namespace().map(str::to_string));
            if !dump.holds(&uid, &kind, ns.as_deref(), &name) {
                let api = field("apiVersion");
                let resource = if api.is_empty() {
                    catalog.resource_of_kind(&kind)
                } else {
                    catalog.resource(&api, &kind)
                };
                needs.add(resource, || {
                    format!(
                        "{id} runs {kind} {name} now (its {}), which is not in it",
                        runs.dotted()
                    )
                });
            }
        }
    }
}

/// Every object whose status counts Pods it runs (a ReplicaSet's replicas, a Job's
/// active Pods) has Pods of its own in the dump.
fn pods_present(
    in_scope: &[(&Tree<'_>, NodeId, ResourceId)],
    dump: &Dump,
    catalog: &Catalog,
    needs: &mut Needs,
) {
    for (tree, item, id) in in_scope {
        let Some(pods) = catalog
            .lineage(id.api_version(), id.kind())
            .and_then(|r| r.pods.as_ref())
        else {
            continue;
        };
        let count = text_at(tree, *item, &path_strs(pods));
        if !count.parse::<u64>().is_ok_and(|n| n > 0) {
            continue;
        }
        let uid = text_at(tree, *item, &["metadata", "uid"]);
        if !dump.holds_owned("Pod", &uid, id.kind(), id.namespace(), id.name()) {
            needs.add(catalog.resource("v1", "Pod"), || {
                format!("{id} runs {count} Pod(s), and none of them is in it")
            });
        }
    }
}

/// Every namespace holding old versions holds something that could read them.
fn readers_present(
    in_scope: &[(&Tree<'_>, NodeId, ResourceId)],
    scope: &Scope,
    catalog: &Catalog,
    needs: &mut Needs,
) {
    let read: HashSet<Option<&str>> = in_scope
        .iter()
        .filter(|(_, _, id)| reads(catalog, id.api_version(), id.kind()))
        .map(|(_, _, id)| id.namespace())
        .collect();
    let mut bare: Vec<&Option<String>> = scope
        .iter()
        .filter(|ns| !read.contains(&ns.as_deref()))
        .collect();
    bare.sort();
    if let Some(ns) = bare.first() {
        let ns = ns.as_deref().unwrap_or("(no namespace)");
        needs.add(catalog.resource("v1", "Pod"), || {
            format!(
                "it holds old versions in namespace {ns} and nothing there that could read them (no Pod, no workload)"
            )
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::model::settings::Settings;
    use crate::views::prune::{Options, PruneError, plan};

    /// A version of `app-config` in shop (its real name), old unless the render holds it.
    fn version(value: &str) -> String {
        let text = format!("apiVersion: v1\nkind: ConfigMap\ndata: {{v: {value}}}\n");
        let tree = crate::yaml::parse(&text).unwrap();
        let suffix = crate::resolve::renames::content_suffix(
            &tree,
            tree.documents()[0].root(),
            crate::model::catalog::SourceKind::ConfigMap,
        )
        .unwrap();
        format!(
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: app-config-{suffix}, namespace: shop, annotations: {{config-hash.dev/base-name: app-config}}}}\ndata: {{v: {value}}}\n"
        )
    }

    /// The render: the current version, and these objects.
    fn render(objects: &str) -> String {
        format!("{}{objects}", version("new"))
    }

    /// The kinds `plan` says the dump lacks, in order (none: it answered).
    fn lacks_with(render: &str, live: &str, settings: Settings) -> Vec<String> {
        let options = Options { keep: 0, settings };
        match plan(
            &[("render".into(), render.into())],
            &[("live".into(), format!("{}{live}", version("old")))],
            &options,
        ) {
            Ok(_) => Vec::new(),
            Err(PruneError::Incomplete { missing }) => {
                missing.into_iter().map(|m| m.resource).collect()
            }
            Err(e) => panic!("{e}"),
        }
    }

    fn lacks(render: &str, live: &str) -> Vec<String> {
        lacks_with(render, live, Settings::default())
    }

    fn because(render: &str, live: &str) -> String {
        let options = Options {
            keep: 0,
            settings: Settings::default(),
        };
        plan(
            &[("render".into(), render.into())],
            &[("live".into(), format!("{}{live}", version("old")))],
            &options,
        )
        .unwrap_err()
        .to_string()
    }

    const DEPLOYMENT: &str = "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec: {template: {spec: {containers: [{name: web}]}}}\n";
    const UNOWNED_POD: &str = "---\napiVersion: v1\nkind: Pod\nmetadata: {name: debug, namespace: shop}\nspec: {containers: [{name: c}]}\n";
    const WEB_RS: &str = "---\napiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: web-1, namespace: shop, uid: rs-1, ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: d-1}]}\nspec: {template: {spec: {containers: [{name: web}]}}}\nstatus: {replicas: 0}\n";

    /// The render's Deployment shows in the dump by its ReplicaSets: a dump of
    /// ConfigMaps, Secrets and an unowned Pod cannot show what a rollback scales up.
    #[test]
    fn a_render_deployment_needs_its_replica_sets() {
        assert_eq!(lacks(&render(DEPLOYMENT), UNOWNED_POD), ["replicasets"]);
        assert!(
            because(&render(DEPLOYMENT), UNOWNED_POD).contains(
                "the render holds Deployment shop/web, and none of its ReplicaSets (what a rollback restores) is in it"
            )
        );
        assert_eq!(lacks(&render(DEPLOYMENT), WEB_RS), Vec::<String>::new());
        // Another Deployment's ReplicaSets are not its own.
        let other = WEB_RS.replace("name: web, uid: d-1", "name: api, uid: d-2");
        assert_eq!(lacks(&render(DEPLOYMENT), &other), ["replicasets"]);
        // Written without a namespace, it stands for its name in any namespace.
        let bare = DEPLOYMENT.replace(", namespace: shop", "");
        assert_eq!(lacks(&render(&bare), WEB_RS), Vec::<String>::new());
        assert_eq!(lacks(&render(&bare), UNOWNED_POD), ["replicasets"]);
        // An Argo Rollout keeps ReplicaSets too; a StatefulSet and an OpenKruise CloneSet
        // keep ControllerRevisions.
        let rollout = DEPLOYMENT.replace(
            "apps/v1\nkind: Deployment",
            "argoproj.io/v1alpha1\nkind: Rollout",
        );
        assert_eq!(lacks(&render(&rollout), UNOWNED_POD), ["replicasets"]);
        let sts = DEPLOYMENT.replace("kind: Deployment", "kind: StatefulSet");
        assert_eq!(lacks(&render(&sts), UNOWNED_POD), ["controllerrevisions"]);
        let clone = DEPLOYMENT.replace(
            "apps/v1\nkind: Deployment",
            "apps.kruise.io/v1alpha1\nkind: CloneSet",
        );
        assert_eq!(lacks(&render(&clone), UNOWNED_POD), ["controllerrevisions"]);
        let revision = "---\napiVersion: apps/v1\nkind: ControllerRevision\nmetadata: {name: web-5f, namespace: shop, ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: web, uid: s-1}]}\nrevision: 1\n";
        assert_eq!(lacks(&render(&sts), revision), Vec::<String>::new());
    }

    /// A CronJob (or a custom kind) keeps its template in itself: the render's must be
    /// in the dump; a Job finishes and may be gone, so the render's is not asked for.
    #[test]
    fn a_render_cron_job_or_custom_kind_must_be_in_the_dump() {
        let cron = "---\napiVersion: batch/v1\nkind: CronJob\nmetadata: {name: report, namespace: shop}\nspec: {jobTemplate: {spec: {template: {spec: {containers: [{name: r}]}}}}}\n";
        assert_eq!(lacks(&render(cron), UNOWNED_POD), ["cronjobs"]);
        assert_eq!(lacks(&render(cron), cron), Vec::<String>::new());
        let job = "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: migrate, namespace: shop}\nspec: {template: {spec: {containers: [{name: m}]}}}\n";
        assert_eq!(lacks(&render(job), UNOWNED_POD), Vec::<String>::new());
        // A kind the configuration declares.
        let config = "apiVersion: config-hash.dev/v1alpha1\nkind: ConfigHash\nspec:\n  workloads:\n  - {group: argoproj.io, kind: CronWorkflow, template: spec/workflowSpec/podTemplate}\n";
        let tree = crate::yaml::parse(config).unwrap();
        let config = crate::model::config::Config::from_function_config(
            &tree,
            Some(tree.documents()[0].root()),
        )
        .unwrap();
        let workflow = "---\napiVersion: argoproj.io/v1alpha1\nkind: CronWorkflow\nmetadata: {name: nightly, namespace: shop}\nspec: {workflowSpec: {podTemplate: {spec: {containers: [{name: n}]}}}}\n";
        assert_eq!(
            lacks_with(
                &render(workflow),
                UNOWNED_POD,
                Settings::new(config.clone())
            ),
            ["cronworkflow.argoproj.io"]
        );
        assert_eq!(
            lacks_with(&render(workflow), workflow, Settings::new(config)),
            Vec::<String>::new()
        );
    }

    /// A CronJob's running Jobs (`status.active`) are in the dump, by uid or name.
    #[test]
    fn a_cron_job_running_a_job_needs_that_job() {
        let cron = |active: &str| {
            format!(
                "---\napiVersion: batch/v1\nkind: CronJob\nmetadata: {{name: report, namespace: shop, uid: c-1}}\nspec: {{jobTemplate: {{spec: {{template: {{spec: {{containers: [{{name: r}}]}}}}}}}}}}\nstatus: {{active: [{active}]}}\n"
            )
        };
        let running =
            cron("{apiVersion: batch/v1, kind: Job, name: report-29, namespace: shop, uid: j-29}");
        assert_eq!(lacks(&render(""), &running), ["jobs"]);
        assert!(because(&render(""), &running).contains(
            "CronJob shop/report runs Job report-29 now (its status.active), which is not in it"
        ));
        let job = "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: report-29, namespace: shop, uid: j-29, ownerReferences: [{apiVersion: batch/v1, kind: CronJob, name: report, uid: c-1}]}\nspec: {template: {spec: {containers: [{name: r}]}}}\n";
        assert_eq!(
            lacks(&render(""), &format!("{running}{job}")),
            Vec::<String>::new()
        );
        // Found by name where the entry has no uid.
        let by_name = cron("{kind: Job, name: report-29}");
        assert_eq!(
            lacks(&render(""), &format!("{by_name}{job}")),
            Vec::<String>::new()
        );
        // The Job's owner, for its part, is the CronJob.
        assert_eq!(lacks(&render(""), job), ["cronjobs"]);
    }

    /// Whatever owns a reader is in the dump (or its revisions): a custom kind that starts
    /// Pods too, read by shape once there. A kind of Kubernetes' own that keeps no pod
    /// template (a Node, for a static Pod's mirror) is not asked for.
    #[test]
    fn a_readers_owner_must_be_in_the_dump() {
        let pod = |owner: &str| {
            format!(
                "---\napiVersion: v1\nkind: Pod\nmetadata: {{name: p, namespace: shop, ownerReferences: [{owner}]}}\nspec: {{containers: [{{name: c}}]}}\n"
            )
        };
        let workflow =
            pod("{apiVersion: argoproj.io/v1alpha1, kind: Workflow, name: wf, uid: w-1}");
        assert_eq!(lacks(&render(""), &workflow), ["workflow.argoproj.io"]);
        let wf = "---\napiVersion: argoproj.io/v1alpha1\nkind: Workflow\nmetadata: {name: wf, namespace: shop, uid: w-1}\n";
        assert_eq!(
            lacks(&render(""), &format!("{workflow}{wf}")),
            Vec::<String>::new()
        );
        let mirror = pod("{apiVersion: v1, kind: Node, name: node-1, uid: n-1}");
        assert_eq!(lacks(&render(""), &mirror), Vec::<String>::new());
        let daemon = pod("{apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: ds-1}");
        assert_eq!(lacks(&render(""), &daemon), ["controllerrevisions"]);
        // Without an apiVersion (written by hand): by kind.
        let bare = pod("{kind: ReplicaSet, name: web-1}");
        assert_eq!(lacks(&render(""), &bare), ["replicasets"]);
        assert_eq!(
            lacks(&render(""), &format!("{bare}{WEB_RS}")),
            Vec::<String>::new()
        );
        // A ConfigMap's owner is not a reader's: it keeps the ConfigMap, no more.
        let owned = "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: shop, ownerReferences: [{apiVersion: example.com/v1, kind: Widget, name: w}]}\n";
        assert_eq!(
            lacks(&render(""), &format!("{owned}{UNOWNED_POD}")),
            Vec::<String>::new()
        );
    }

    /// What counts its Pods has Pods of its own in the dump.
    #[test]
    fn what_runs_pods_needs_its_pods() {
        let running = WEB_RS.replace("replicas: 0", "replicas: 2");
        assert_eq!(lacks(&render(""), &running), ["pods"]);
        assert!(
            because(&render(""), &running)
                .contains("ReplicaSet shop/web-1 runs 2 Pod(s), and none of them is in it")
        );
        let mine = "---\napiVersion: v1\nkind: Pod\nmetadata: {name: web-1-a, namespace: shop, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-1, uid: rs-1}]}\nspec: {containers: [{name: c}]}\n";
        assert_eq!(
            lacks(&render(""), &format!("{running}{mine}")),
            Vec::<String>::new()
        );
        // Another ReplicaSet's Pod is not one of its own.
        let theirs = mine.replace("name: web-1, uid: rs-1", "name: web-2, uid: rs-2");
        let rs2 = WEB_RS.replace(
            "web-1, namespace: shop, uid: rs-1",
            "web-2, namespace: shop, uid: rs-2",
        );
        assert_eq!(
            lacks(&render(""), &format!("{running}{rs2}{theirs}")),
            ["pods"]
        );
        let job = "---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: m, namespace: shop, uid: j-1}\nspec: {template: {spec: {containers: [{name: m}]}}}\nstatus: {active: 1}\n";
        assert_eq!(lacks(&render(""), job), ["pods"]);
    }

    /// A dump object that keeps its templates in objects it owns has them in the dump.
    #[test]
    fn a_dumped_deployment_needs_its_replica_sets() {
        let dumped = "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop, uid: d-1}\nspec: {template: {spec: {containers: [{name: web}]}}}\n";
        assert_eq!(lacks(&render(""), dumped), ["replicasets"]);
        assert_eq!(
            lacks(&render(""), &format!("{dumped}{WEB_RS}")),
            Vec::<String>::new()
        );
    }

    /// Only namespaces holding old versions need to show their readers; one holding them
    /// needs something there that could read them.
    #[test]
    fn only_namespaces_with_old_versions_are_asked_about() {
        let elsewhere = "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: kube-system, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: gone, uid: g}]}\nspec: {containers: [{name: c}]}\n";
        assert_eq!(
            lacks(&render(""), &format!("{elsewhere}{UNOWNED_POD}")),
            Vec::<String>::new()
        );
        assert_eq!(lacks(&render(""), elsewhere), ["pods"]);
        assert!(because(&render(""), elsewhere).contains(
            "it holds old versions in namespace shop and nothing there that could read them"
        ));
        // Several kinds at once, each named, and the command to dump them all.
        let message = because(&render(DEPLOYMENT), elsewhere);
        assert!(
            message.starts_with("the live dump has no replicasets, pods, which prune needs"),
            "{message}"
        );
        assert!(message.ends_with(
            "dump them all: kubectl get configmaps,secrets,replicasets,controllerrevisions,pods,jobs,cronjobs -A -o yaml"
        ));
    }
}
