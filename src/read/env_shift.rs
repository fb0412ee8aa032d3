//! Where env mode's hash entry goes and what it moves: the container lists that get it,
//! and the field paths of the user's own env entries as they read in the output, where
//! the inserted entry has moved each one down by one. Results describe the output, so
//! a second run words them the same.

use std::collections::HashSet;

use crate::model::catalog::{CONTAINER_LISTS, Catalog, Restart, WorkloadKind, annotations};
use crate::model::config::Config;
use crate::model::resource::{ResourceId, flag};
use crate::read::references;
use crate::yaml::{NodeId, Tree};

/// The value of `key` in `map` itself, not through a merge key.
pub fn own(tree: &Tree<'_>, map: NodeId, key: &str) -> Option<NodeId> {
    tree.own_entries(map)
        .find(|&(k, _)| tree.str(k) == Some(key))
        .map(|(_, v)| v)
}

/// The field paths (`...containers[0].env`) of env lists where env mode will add the
/// hash as the first entry, moving every existing entry down by one.
pub fn shifted_env_lists(
    tree: &Tree<'_>,
    spec: NodeId,
    spec_path: &str,
    lists: &[&str],
    config: &Config,
) -> Shifted {
    let mut out = HashSet::new();
    for list in lists {
        let Some(seq) = own(tree, spec, list) else {
            continue;
        };
        for (i, c) in tree.items(seq).enumerate() {
            let Some(env) = own(tree, c, "env") else {
                continue;
            };
            if tree.is_seq(env)
                && !tree.is_alias(env)
                && env_indices(tree, env, &config.env_name).is_empty()
            {
                out.insert(format!("{spec_path}.{list}[{i}].env"));
            }
        }
    }
    Shifted(out)
}

/// For messages about the fields of one item: where env mode will insert the hash ahead
/// of them in a workload's env list (`None`: nothing moves). Results describe the
/// output, so a second run must word them the same.
pub fn shifted_fields_of(
    tree: &Tree<'_>,
    item: NodeId,
    config: &Config,
    catalog: &Catalog,
) -> Option<Shifted> {
    let id = ResourceId::of(tree, item);
    let kind = catalog.workload(id.api_version(), id.kind())?;
    let lists = env_lists(kind, config);
    if lists.is_empty() || flag(tree, item, annotations::SKIP) {
        return None;
    }
    let spec = tree.get(
        tree.get_path(item, &references::path_strs(&kind.template))?,
        "spec",
    )?;
    let spec_path = kind.spec_field();
    // Only a workload that reads something gets the hash.
    if references::find(tree, spec, &spec_path, &catalog.pod_sites).is_empty() {
        return None;
    }
    Some(shifted_env_lists(tree, spec, &spec_path, lists, config))
}

/// The container lists where stamping inserts the env var: containers and init
/// containers in env mode; regular containers only for a kind restarted in place
/// through the downward API (whatever the mode); none otherwise.
pub fn env_lists(kind: &WorkloadKind, config: &Config) -> &'static [&'static str] {
    if !kind.env_allowed {
        &[]
    } else if kind.restart == Restart::DownwardApi {
        &CONTAINER_LISTS[..1]
    } else if config.writes_env() {
        &CONTAINER_LISTS[..2]
    } else {
        &[]
    }
}

/// The env lists (by field path) that gain the hash as their first entry.
pub struct Shifted(HashSet<String>);

impl Shifted {
    /// A field's path as it reads in the output, when the hash entry moves it (`None`:
    /// it does not move). One look-up per `[` of the path, so many fields of one item
    /// cost no more than reading their paths.
    pub fn output_field(&self, field: &str) -> Option<String> {
        if self.0.is_empty() {
            return None;
        }
        field.match_indices('[').find_map(|(at, _)| {
            let list = &field[..at];
            if !self.0.contains(list) {
                return None;
            }
            let (idx, tail) = field[at + 1..].split_once(']')?;
            let idx: usize = idx.parse().ok()?;
            Some(format!("{list}[{}]{tail}", idx + 1))
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
