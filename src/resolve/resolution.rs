//! Resolution: the values every view reads. How each reference resolved, what each
//! workload's pod reads of each source, what its manifest says about rolling, and the
//! whole input's resolution item by item. Stamping, `--check` and `graph` all read these
//! values, so none of them works out a status of its own.

use crate::model::catalog::SourceKind;
use crate::model::reference::Keys;
use crate::model::reference::{SourceKey, SourceRef, Status, Via};
use crate::model::resource::ResourceId;
use crate::model::result::KrmResult;
use crate::resolve::sources::SourceIndex;

/// A result of one workload, or a mark where an unreadable source it references must be
/// reported (once for the whole input, at its first use).
#[derive(Debug)]
pub enum Note {
    Result(KrmResult),
    SourceError(SourceKey),
}

/// How one reference resolved: what `graph` shows, and what stamping hashes and
/// reports.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub kind: SourceKind,
    /// The name after renaming.
    pub name: String,
    /// The namespace it is looked up in.
    pub namespace: Option<String>,
    /// The field that holds the reference (an env entry numbered among the user's
    /// entries, config-hash's own not counted).
    pub field: String,
    pub keys: Keys,
    pub optional: bool,
    pub status: Status,
    /// Keys it names that the object does not have (non-optional references only).
    pub missing_keys: Vec<String>,
    pub via: Via,
    /// Who makes the object, when not itself (see [`SourceEntry::made_by`]).
    pub producer: Option<ResourceId>,
    pub runtime: bool,
    /// Keys the object leaves out of this pod's hash (`config-hash.dev/ignore-keys`,
    /// less those the pod reads through `subPath`).
    pub ignored_keys: Vec<String>,
}

/// One source as a workload's hash covers it: every key its references let the pod see.
/// Equal and hashed field by field: `diff` compares the changes of equal reads once.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Read {
    pub kind: SourceKind,
    /// As hashed and reported: `namespace/name` for another namespace's object.
    pub shown: String,
    /// Where it is looked up: its namespace and final name.
    pub namespace: Option<String>,
    pub name: String,
    /// `Keys::All` under `granularity: object`, or when a reference sees every key.
    pub keys: Keys,
    /// It is in the input (an absent one is hashed as absent).
    pub present: bool,
    /// Keys left out of the hash: the object's `config-hash.dev/ignore-keys`, less those
    /// this pod reads through a `subPath` mount.
    pub unhashed: Vec<String>,
}

impl Read {
    pub fn key(&self) -> SourceKey {
        SourceKey::new(self.kind, self.namespace.as_deref(), &self.name)
    }

    /// [`Read::key`] borrowed: what a look-up needs.
    pub fn key_ref(&self) -> SourceRef<'_> {
        SourceRef {
            kind: self.kind,
            namespace: self.namespace.as_deref(),
            name: &self.name,
        }
    }
}

/// What a workload's pod template reads, as resolved: the one record stamping hashes and
/// every view (`graph`, `--check`) shows.
#[derive(Debug, Default)]
pub struct WorkloadResolution {
    /// The hash stamping computed (`None` when it stamps nothing), kept for views that
    /// compare two renders; never shown.
    pub stamp: Option<String>,
    /// Every reference in order: whole-object (`__data`) ones, the pod spec's, then the
    /// annotations'.
    pub references: Vec<Resolved>,
    /// Per source, sorted by kind and name as hashed: what the hash covers.
    pub reads: Vec<Read>,
    /// Findings made while resolving (missing objects and keys, unreadable names).
    pub notes: Vec<Note>,
    /// Non-optional references to objects or keys that are not there, reported.
    pub missing: usize,
    /// A reference could not be resolved (a name that is not a string, a source whose
    /// content cannot be read): the workload cannot be stamped.
    pub failed: bool,
    /// Keep `references` (see [`crate::resolve::workload::Context::record`]).
    keep: bool,
}

impl WorkloadResolution {
    /// Nothing resolved yet; `keep`: keep every reference as resolved.
    pub(super) fn new(keep: bool) -> WorkloadResolution {
        WorkloadResolution {
            keep,
            ..WorkloadResolution::default()
        }
    }

    /// Keeps a reference as resolved, when views asked for them (made only then: a
    /// large input resolves many references that stamping alone does not keep).
    pub(super) fn record(&mut self, r: impl FnOnce() -> Resolved) {
        if self.keep {
            self.references.push(r());
        }
    }
}

/// What a workload's own manifest says about rolling, read where it is resolved: what
/// `diff`'s gates and `audit` ask of it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Marks {
    /// The name it is known by across renders: the base name of a Job with a hashed name,
    /// else its name.
    pub base_name: String,
    /// A changed pod template replaces its running pods (its catalog row's `rolls`).
    pub rolls: bool,
    /// Annotated `config-hash.dev/protected: "true"`: it rolls only when allowed.
    pub protected: bool,
    /// What already rolls it when what it reads changes, as the manifest stands.
    pub triggers: Vec<Trigger>,
}

/// A way a workload is already made to roll when its ConfigMaps or Secrets change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Trigger {
    /// config-hash's stamp (annotation or env var) is in its pod template.
    Stamp,
    /// A Helm-style `checksum/*` annotation on its pod template.
    Checksum,
    /// Reloader's annotations (`reloader.stakater.com/*`, or an explicit reload list).
    Reloader,
    /// wave's `wave.pusher.com/update-on-config-change`.
    Wave,
}

impl Trigger {
    pub fn as_str(self) -> &'static str {
        match self {
            Trigger::Stamp => "config-hash",
            Trigger::Checksum => "checksum",
            Trigger::Reloader => "reloader",
            Trigger::Wave => "wave",
        }
    }
}

/// Where a renamed ConfigMap or Secret came from, for views that compare two renders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenamedSource {
    pub kind: SourceKind,
    pub namespace: Option<String>,
    pub base: String,
    /// Its name in the output.
    pub name: String,
}

/// One item as resolved, under its name in the output.
#[derive(Debug)]
pub struct ItemResolution {
    pub id: ResourceId,
    /// For a workload: what its manifest says about rolling.
    pub marks: Option<Box<Marks>>,
    /// What its pod template reads, when it is a workload (without its findings, which
    /// are results).
    pub workload: Option<WorkloadResolution>,
    /// Its references outside pod specs.
    pub names: Vec<Resolved>,
}

/// The resolution of a whole input, item by item in input order: what each workload
/// reads, and every name reference outside pod specs. `graph` is a view of it, as any
/// other report on what rolls can be.
#[derive(Debug, Default)]
pub struct Resolution {
    pub items: Vec<ItemResolution>,
    /// Every ConfigMap and Secret under its name in the output: what `diff` compares,
    /// key by key (values stay in memory; no view prints one).
    pub sources: SourceIndex,
    /// The ConfigMaps and Secrets given hashed names, in input order.
    pub renamed: Vec<RenamedSource>,
}
