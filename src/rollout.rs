//! Whether a changed stamp actually rolls the pods: what a workload's own manifest says
//! about rolling (protected, already triggered by another tool) and what in its spec
//! holds a roll back (`OnDelete`, a paused Deployment, a partition, a schedule).

use crate::catalog::{Restart, WorkloadKind, annotations};
use crate::config::Config;
use crate::krm::{ResourceId, flag};
use crate::resolution::{Marks, PodTemplate, Trigger};
use crate::yaml::{NodeId, Tree};

/// What the manifest of a workload says about rolling.
pub fn marks(
    tree: &Tree<'_>,
    item: NodeId,
    id: &ResourceId,
    kind: &WorkloadKind,
    config: &Config,
) -> Marks {
    let base_name = match crate::krm::annotation(tree, item, annotations::BASE_NAME) {
        Some(base) if kind.restart == Restart::NewObject && !base.is_empty() => base.to_string(),
        _ => id.name.clone(),
    };
    Marks {
        base_name,
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
        crate::references::CONTAINER_LISTS.iter().any(|list| {
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
            || (annotations::RELOADER_LISTS.contains(k) && !v.trim().is_empty())
    }) {
        out.push(Trigger::Reloader);
    }
    if both().any(|(k, v)| *k == annotations::WAVE && *v == "true") {
        out.push(Trigger::Wave);
    }
    out
}
