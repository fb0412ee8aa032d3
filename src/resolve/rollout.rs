//! Whether a changed stamp actually rolls the pods: what a workload's own manifest says
//! about rolling (protected, already triggered by another tool) and what in its spec
//! holds a roll back (`OnDelete`, a paused Deployment, a partition, a schedule).

use crate::model::catalog::{Hold, Restart, WorkloadKind, annotations};
use crate::model::config::Config;
use crate::model::findings::Held;
use crate::model::resource::{ResourceId, flag};
use crate::resolve::resolution::{Marks, Trigger};
use crate::resolve::workload::PodTemplate;
use crate::yaml::{NodeId, Tree};

/// What the manifest of a workload says about rolling.
pub fn marks(
    tree: &Tree<'_>,
    item: NodeId,
    id: &ResourceId,
    kind: &WorkloadKind,
    config: &Config,
) -> Marks {
    let base_name = match crate::model::resource::annotation(tree, item, annotations::BASE_NAME) {
        Some(base) if kind.restart == Restart::NewObject && !base.is_empty() => base.to_string(),
        _ => id.name().to_string(),
    };
    Marks {
        base_name,
        rolls: kind.rolls,
        protected: flag(tree, item, annotations::PROTECTED),
        triggers: triggers(tree, item, kind, config),
    }
}

/// The string annotations of a mapping's `metadata`.
fn annotations_of<'t>(tree: &'t Tree<'_>, node: NodeId) -> Vec<(&'t str, &'t str)> {
    let Some(anns) = tree
        .get_path(node, &["metadata", "annotations"])
        .filter(|&a| tree.is_map(a))
    else {
        return Vec::new();
    };
    tree.entries(anns)
        .into_iter()
        .filter_map(|(k, v)| Some((tree.str(k)?, tree.str(v)?)))
        .collect()
}

/// What already rolls the workload when its ConfigMaps or Secrets change.
fn triggers(tree: &Tree<'_>, item: NodeId, kind: &WorkloadKind, config: &Config) -> Vec<Trigger> {
    let pod = PodTemplate::of(tree, item, kind);
    let own = annotations_of(tree, item);
    let template = pod.map_or_else(Vec::new, |p| {
        if kind.template.is_empty() {
            Vec::new()
        } else {
            annotations_of(tree, p.template)
        }
    });
    let mut out = Vec::new();
    let stamped_env = pod.is_some_and(|p| {
        crate::model::catalog::CONTAINER_LISTS.iter().any(|list| {
            tree.get(p.spec, list)
                .into_iter()
                .flat_map(|l| tree.items(l))
                .filter_map(|c| tree.get(c, "env"))
                .flat_map(|env| tree.items(env))
                .any(|e| {
                    tree.get(e, "name").and_then(|n| tree.str(n)) == Some(config.env_name.as_str())
                })
        })
    });
    // A Pod is its own template: its own annotations are the template's.
    let template_or_own = if kind.template.is_empty() {
        &own
    } else {
        &template
    };
    if stamped_env
        || template_or_own
            .iter()
            .any(|(k, _)| *k == config.annotation_key)
    {
        out.push(Trigger::Stamp);
    }
    if template_or_own
        .iter()
        .any(|(k, _)| k.starts_with(annotations::CHECKSUM_PREFIX))
    {
        out.push(Trigger::Checksum);
    }
    let both = || own.iter().chain(template.iter());
    if both().any(|(k, v)| {
        (annotations::RELOADER_ON.contains(k) && *v == "true")
            || (annotations::RELOADER_KEYS.iter().any(|(_, r)| r == k) && !v.trim().is_empty())
    }) {
        out.push(Trigger::Reloader);
    }
    if both().any(|(k, v)| *k == annotations::WAVE && *v == "true") {
        out.push(Trigger::Wave);
    }
    out
}

/// What in a stamped workload's spec keeps a changed stamp from rolling it now, of the
/// holds its catalog row names.
pub fn held(tree: &Tree<'_>, item: NodeId, kind: &WorkloadKind) -> Option<Held> {
    let str_at = |path: &[&str]| tree.get_path(item, path).and_then(|n| tree.str(n));
    let num_at = |path: &[&str]| str_at(path).and_then(|s| s.parse::<u64>().ok());
    kind.holds.iter().find_map(|hold| match hold {
        Hold::OnDelete => (str_at(&["spec", "updateStrategy", "type"]) == Some("OnDelete"))
            .then_some(Held::OnDelete),
        Hold::Partition => {
            // The API server defaults replicas to 1.
            let replicas = num_at(&["spec", "replicas"]).unwrap_or(1);
            let partition = num_at(&["spec", "updateStrategy", "rollingUpdate", "partition"])?;
            (replicas > 0 && partition >= replicas).then_some(Held::Partition {
                partition,
                replicas,
            })
        }
        Hold::Paused => (str_at(&["spec", "paused"]) == Some("true")).then_some(Held::Paused),
        Hold::NextSchedule => Some(Held::NextSchedule),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held_of(text: &str) -> Option<Held> {
        let tree = crate::yaml::parse(text).unwrap();
        let item = tree.documents()[0].root();
        let id = ResourceId::of(&tree, item);
        let catalog = crate::model::catalog::Catalog::builtin();
        held(&tree, item, catalog.workload(id.api_version(), id.kind())?)
    }

    #[test]
    fn a_partition_holds_back_every_replica_only_at_or_above_their_count() {
        let sts = |spec: &str| {
            held_of(&format!(
                "apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {{name: s}}\nspec: {spec}\n"
            ))
        };
        let partition = |partition, replicas| {
            Some(Held::Partition {
                partition,
                replicas,
            })
        };
        assert_eq!(
            sts("{replicas: 3, updateStrategy: {rollingUpdate: {partition: 3}}}"),
            partition(3, 3)
        );
        assert_eq!(
            sts("{replicas: 3, updateStrategy: {rollingUpdate: {partition: 5}}}"),
            partition(5, 3)
        );
        assert_eq!(
            sts("{replicas: 3, updateStrategy: {rollingUpdate: {partition: 2}}}"),
            None
        );
        // replicas defaults to 1; none to hold back when scaled to zero.
        assert_eq!(
            sts("{updateStrategy: {rollingUpdate: {partition: 1}}}"),
            partition(1, 1)
        );
        assert_eq!(
            sts("{replicas: 0, updateStrategy: {rollingUpdate: {partition: 1}}}"),
            None
        );
        // Not a number the API server takes: nothing is said.
        assert_eq!(
            sts("{replicas: 1, updateStrategy: {rollingUpdate: {partition: '25%'}}}"),
            None
        );
        assert_eq!(
            sts("{updateStrategy: {type: OnDelete, rollingUpdate: {partition: 0}}}"),
            Some(Held::OnDelete)
        );
    }

    #[test]
    fn only_the_kinds_that_hold_back_a_roll_are_said_to() {
        let of = |api: &str, kind: &str, spec: &str| {
            held_of(&format!(
                "apiVersion: {api}\nkind: {kind}\nmetadata: {{name: w}}\nspec: {spec}\n"
            ))
        };
        assert_eq!(
            of("apps/v1", "Deployment", "{paused: true}"),
            Some(Held::Paused)
        );
        assert_eq!(of("apps/v1", "Deployment", "{paused: false}"), None);
        assert_eq!(
            of(
                "extensions/v1beta1",
                "DaemonSet",
                "{updateStrategy: {type: OnDelete}}"
            ),
            Some(Held::OnDelete)
        );
        // A Deployment has no OnDelete; another group's kind of the same name is not ours.
        assert_eq!(
            of(
                "apps/v1",
                "Deployment",
                "{updateStrategy: {type: OnDelete}}"
            ),
            None
        );
        assert_eq!(
            of(
                "example.com/v1",
                "StatefulSet",
                "{updateStrategy: {type: OnDelete}}"
            ),
            None
        );
        assert_eq!(of("batch/v1", "CronJob", "{}"), Some(Held::NextSchedule));
        assert_eq!(of("batch/v1", "Job", "{}"), None);
    }
}
