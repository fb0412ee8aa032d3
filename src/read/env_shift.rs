//! Where env mode's hash entry goes, and the field paths of the user's own env entries:
//! a finding names an entry by its place among the user's entries, not counting the
//! hash entry config-hash inserts or keeps (so the first run and a run on its output
//! word it alike, as the user's file numbers it).

use std::collections::HashMap;

use crate::model::catalog::{CONTAINER_LISTS, Catalog};
use crate::model::config::Config;
use crate::model::resource::ResourceId;
use crate::read::references;
use crate::yaml::{NodeId, Tree};

/// The value of `key` in `map` itself, not through a merge key.
pub fn own(tree: &Tree<'_>, map: NodeId, key: &str) -> Option<NodeId> {
    tree.own_entries(map)
        .find(|&(k, _)| tree.str(k) == Some(key))
        .map(|(_, v)| v)
}

/// Where the hash entries config-hash owns sit in the env lists of a pod spec (the
/// containers' and init containers', where it ever writes one): the entries named
/// `config.env_name`, whatever the mode (one left by an earlier run in env mode is still
/// config-hash's).
pub fn user_positions(
    tree: &Tree<'_>,
    spec: NodeId,
    spec_path: &str,
    config: &Config,
) -> UserPositions {
    let mut owned = HashMap::new();
    for list in &CONTAINER_LISTS[..2] {
        let Some(seq) = own(tree, spec, list) else {
            continue;
        };
        for (i, c) in tree.items(seq).enumerate() {
            let Some(env) = own(tree, c, "env") else {
                continue;
            };
            if !tree.is_seq(env) {
                continue;
            }
            let at = env_indices(tree, env, &config.env_name);
            if !at.is_empty() {
                owned.insert(format!("{spec_path}.{list}[{i}].env"), at);
            }
        }
    }
    UserPositions(owned)
}

/// For messages about the fields of one item: the user's positions in a workload's env
/// lists (`None`: not a workload, or nothing there is config-hash's).
pub fn user_positions_of(
    tree: &Tree<'_>,
    item: NodeId,
    config: &Config,
    catalog: &Catalog,
) -> Option<UserPositions> {
    let id = ResourceId::of(tree, item);
    let kind = catalog.workload(id.api_version(), id.kind())?;
    let spec = tree.get(
        tree.get_path(item, &references::path_strs(&kind.template))?,
        "spec",
    )?;
    let positions = user_positions(tree, spec, &kind.spec_field(), config);
    (!positions.0.is_empty()).then_some(positions)
}

/// The env lists (by field path) that hold config-hash's entries, and where.
pub struct UserPositions(HashMap<String, Vec<usize>>);

impl UserPositions {
    /// A field's path with its env entry numbered among the user's entries, when
    /// config-hash's entries come before it (`None`: it reads as it is). One look-up per
    /// `[` of the path, so many fields of one item cost no more than reading their paths.
    pub fn user_field(&self, field: &str) -> Option<String> {
        if self.0.is_empty() {
            return None;
        }
        field.match_indices('[').find_map(|(at, _)| {
            let owned = self.0.get(&field[..at])?;
            let (idx, tail) = field[at + 1..].split_once(']')?;
            let idx: usize = idx.parse().ok()?;
            let before = owned.iter().take_while(|&&o| o < idx).count();
            (before > 0 && !owned.contains(&idx))
                .then(|| format!("{}[{}]{tail}", &field[..at], idx - before))
        })
    }
}

/// Every entry of an env list with this name: Kubernetes uses the last, so all of them
/// are kept equal.
pub fn env_indices(tree: &Tree<'_>, seq: NodeId, name: &str) -> Vec<usize> {
    tree.items(seq)
        .enumerate()
        .filter(|&(_, i)| tree.get(i, "name").and_then(|n| tree.str(n)) == Some(name))
        .map(|(idx, _)| idx)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An env entry is numbered among the user's entries: config-hash's entries before
    /// it do not count, wherever they stand; fields elsewhere read as written.
    #[test]
    fn env_entries_are_numbered_among_the_users_entries() {
        let positions = |spec: &str| {
            let tree = crate::yaml::parse(spec).unwrap();
            let root = tree.documents()[0].root();
            user_positions(&tree, root, "spec", &Config::default())
        };
        let fresh = positions(
            "containers: [{name: a, env: [{name: A}, {name: B}]}]
",
        );
        assert_eq!(fresh.user_field("spec.containers[0].env[1].value"), None);
        let stamped = positions(
            "containers:\n- {name: a, env: [{name: A}, {name: CONFIG_HASH}, {name: B}, {name: CONFIG_HASH}, {name: C}]}\ninitContainers:\n- {name: i, env: [{name: CONFIG_HASH}, {name: D}]}\n",
        );
        let field = |f: &str| stamped.user_field(f);
        assert_eq!(field("spec.containers[0].env[0].value"), None);
        assert_eq!(
            field("spec.containers[0].env[2].valueFrom").as_deref(),
            Some("spec.containers[0].env[1].valueFrom")
        );
        assert_eq!(
            field("spec.containers[0].env[4].value").as_deref(),
            Some("spec.containers[0].env[2].value")
        );
        // config-hash's own entry is not renumbered.
        assert_eq!(field("spec.containers[0].env[1].value"), None);
        assert_eq!(
            field("spec.initContainers[0].env[1].value").as_deref(),
            Some("spec.initContainers[0].env[0].value")
        );
        assert_eq!(field("spec.containers[1].env[2].value"), None);
        assert_eq!(field("spec.volumes[2].configMap"), None);
    }
}
