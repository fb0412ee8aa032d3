//! The hand-off of hashed names to a GitOps tool: what Argo CD or Flux needs to find on
//! an object with a hashed name so that it leaves deleting the old copies to
//! `config-hash prune`, which keeps those that live pods, ReplicaSets and Jobs still read.

/// The GitOps tool that applies the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GitOps {
    ArgoCd,
    Flux,
}

/// One annotation the tool reads: its key, and the option it must hold.
pub struct Wanted {
    pub key: &'static str,
    pub option: &'static str,
    /// The value is a comma-separated list of options (Argo CD's `sync-options` and
    /// `compare-options`): the option is merged into what is there. Otherwise the value
    /// is the option alone.
    pub list: bool,
    /// In a list, an entry with this prefix is a choice the option replaces
    /// (`Prune=confirm` gives way to `Prune=false`).
    pub replaces: &'static str,
}

/// What each tool needs, as data: Argo CD must neither prune the object nor call the
/// application out of sync for keeping it; Flux must not prune it.
const ARGOCD: &[Wanted] = &[
    Wanted {
        key: "argocd.argoproj.io/sync-options",
        option: "Prune=false",
        list: true,
        replaces: "Prune=",
    },
    Wanted {
        key: "argocd.argoproj.io/compare-options",
        option: "IgnoreExtraneous",
        list: true,
        replaces: "IgnoreExtraneous",
    },
];
const FLUX: &[Wanted] = &[Wanted {
    key: "kustomize.toolkit.fluxcd.io/prune",
    option: "disabled",
    list: false,
    replaces: "",
}];

impl GitOps {
    pub fn annotations(self) -> &'static [Wanted] {
        match self {
            GitOps::ArgoCd => ARGOCD,
            GitOps::Flux => FLUX,
        }
    }
}

impl Wanted {
    /// The value the annotation must have, given what it holds now (`None`: absent), or
    /// `None` when it holds the option already (so a second run changes nothing). In a
    /// list every other entry is kept, in its place (blanks around it, which Argo CD
    /// ignores, are dropped); an entry the option replaces goes; the option is added last.
    pub fn value(&self, current: Option<&str>) -> Option<String> {
        let Some(current) = current.filter(|c| !c.trim().is_empty()) else {
            return Some(self.option.to_string());
        };
        if !self.list {
            return (current != self.option).then(|| self.option.to_string());
        }
        let entries: Vec<&str> = current.split(',').collect();
        let holds = |e: &&str| e.trim() == self.option;
        let replaced = |e: &&str| e.trim().starts_with(self.replaces) && !holds(e);
        if entries.iter().any(holds) && !entries.iter().any(replaced) {
            return None;
        }
        let mut kept: Vec<&str> = entries
            .iter()
            .filter(|e| !replaced(e))
            .map(|e| e.trim())
            .filter(|e| !e.is_empty())
            .collect();
        if !kept.iter().any(holds) {
            kept.push(self.option);
        }
        Some(kept.join(","))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argo_cd_options_are_merged_into_the_list_not_written_over_it() {
        let [sync, compare] = ARGOCD else {
            panic!("two annotations")
        };
        assert_eq!(sync.value(None).as_deref(), Some("Prune=false"));
        assert_eq!(sync.value(Some("")).as_deref(), Some("Prune=false"));
        assert_eq!(
            sync.value(Some("Replace=true,ServerSideApply=true"))
                .as_deref(),
            Some("Replace=true,ServerSideApply=true,Prune=false")
        );
        // Another choice for pruning gives way; the rest keeps its place and spelling.
        assert_eq!(
            sync.value(Some("Prune=confirm, Validate=false")).as_deref(),
            Some("Validate=false,Prune=false")
        );
        // Already there, in any place or spacing: nothing to write.
        assert_eq!(sync.value(Some("Validate=false, Prune=false")), None);
        assert_eq!(sync.value(Some("Prune=false")), None);
        // Both the option and a contrary choice: the choice goes.
        assert_eq!(
            sync.value(Some("Prune=false,Prune=confirm")).as_deref(),
            Some("Prune=false")
        );
        assert_eq!(
            compare.value(Some("ServerSideDiff=true")).as_deref(),
            Some("ServerSideDiff=true,IgnoreExtraneous")
        );
        assert_eq!(compare.value(Some("IgnoreExtraneous")), None);
    }

    #[test]
    fn flux_prune_is_disabled_whatever_it_said() {
        let [prune] = FLUX else {
            panic!("one annotation")
        };
        assert_eq!(prune.value(None).as_deref(), Some("disabled"));
        assert_eq!(prune.value(Some("enabled")).as_deref(), Some("disabled"));
        assert_eq!(prune.value(Some("disabled")), None);
    }
}
