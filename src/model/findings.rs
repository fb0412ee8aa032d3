//! What the function finds, typed once: results, stderr, `graph` and `--check` hold
//! these values, whatever layer found them; how serious each is, and which ones `diff`
//! and the summary look for. [`crate::model::messages`] words them.

use crate::model::catalog::SourceKind;
use crate::model::config::ConfigError;
use crate::model::content::ContentError;
pub use crate::model::reference::Status;
use crate::model::resource::ResourceId;
use crate::yaml::EditError;

/// The object that makes a source, as a finding names it: `SealedSecret db`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MadeBy {
    pub kind: String,
    pub name: String,
}

/// One ConfigMap or Secret a stamped hash covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Covered {
    pub kind: SourceKind,
    /// As hashed: `namespace/name` for another namespace's object.
    pub name: String,
    /// Not in the input (every reference to it is optional).
    pub absent: bool,
    /// Made by an object of another kind.
    pub made_by: Option<MadeBy>,
}

/// Where a stamped hash was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    pub annotation: Option<String>,
    pub env: Option<String>,
    /// The env var reads the annotation through the downward API (OpenKruise).
    pub downward: bool,
}

/// What a reference names that the input does not have.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Missing {
    pub kind: SourceKind,
    /// As hashed: after any rename, `namespace/name` for another namespace.
    pub name: String,
    /// A key the object does not have; `None` when the object itself is missing.
    pub key: Option<String>,
    /// An object of the other kind with that name, which this reference cannot read.
    pub other: Option<(SourceKind, Option<MadeBy>)>,
    pub container: Option<String>,
    /// The field that holds the reference.
    pub field: String,
    /// Named in an annotation (the app reads it through the API), not in the pod spec.
    pub extra: bool,
    /// An object of this kind and name in another namespace (`None`: written without
    /// one), for a missing object.
    pub elsewhere: Option<Option<String>>,
    /// The other fields of the same workload that refer to the same missing object, with
    /// their containers: one warning names them all.
    pub also: Vec<(String, Option<String>)>,
}

/// What a workload's spec keeps when env mode cannot change it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpecFixed {
    /// Nothing was stamped: suggest a mode that writes the annotation.
    NothingWritten,
    /// The annotation was written, the env var not.
    AnnotationOnly,
    /// Said for the record, with nothing to add.
    Plain,
}

/// What in a workload's own spec keeps a changed stamp from rolling its pods now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Held {
    /// `updateStrategy.type: OnDelete` (a StatefulSet or DaemonSet).
    OnDelete,
    /// A paused Deployment.
    Paused,
    /// A StatefulSet whose partition holds back every replica.
    Partition { partition: u64, replicas: u64 },
    /// A CronJob: its Jobs get the change from the next schedule on.
    NextSchedule,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// Everything the function reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finding {
    // Stamping a workload: what was written, or why not (messages::stamping).
    /// The hash was written.
    Stamped {
        written: Written,
        covered: Vec<Covered>,
    },
    /// The workload could not be edited losslessly.
    NotStamped {
        error: Unwritable,
        line: usize,
        column: usize,
    },
    /// A reference's name is a list or mapping.
    NameNotString { field: String },
    /// A keyed hash is stamped, and no key was given.
    KeyedWithoutKey { place: String },
    /// The kind's spec cannot change after creation, so env mode leaves it alone.
    SpecFixed(SpecFixed),
    /// OpenKruise restarts containers in place: what that means for the stamp.
    InPlace { annotation: String, env: String },
    /// An object (a Deployment of an Argo Rollout) points at the workload that runs.
    Delegates {
        at: String,
        kind: String,
        name: String,
    },
    /// A workload kind declared in the functionConfig has no pod template here.
    NoTemplate {
        declared_at: String,
        kind: String,
        template: String,
    },
    /// A `__data` env var holds the hash of a whole object.
    WholeObject {
        var: String,
        container: String,
        kind: SourceKind,
        name: String,
    },
    /// A `__data` env var named an object that is gone.
    WholeObjectGone {
        var: String,
        container: String,
        kind: SourceKind,
        name: String,
    },

    // References that cannot be followed as written (messages::references).
    /// A reference names an object or key the input does not have.
    Missing(Box<Missing>),
    /// An optional reference names an object that is not in the input and that nothing in
    /// it makes: hashed as absent, so a copy made outside the build never rolls the pods.
    AbsentUnproduced {
        kind: SourceKind,
        name: String,
        field: String,
    },
    /// An annotation lists a regular expression, which is not read.
    RegexEntry {
        field: String,
        entry: String,
        tool: String,
        kind: SourceKind,
    },

    // Sources: content, copies, makers outside git, keys that never update (messages::sources).
    /// A ConfigMap's or Secret's content cannot be read.
    Content(ContentError),
    /// Two sources share kind, namespace and name.
    Duplicate {
        made_by: Option<ResourceId>,
        other_made_by: Option<ResourceId>,
    },
    /// A source changes outside git.
    Runtime {
        kind: SourceKind,
        name: String,
        producer: ResourceId,
        /// `runtimeReload: reloader` would hand it to Reloader.
        hint: bool,
    },
    /// A Reloader annotation written by hand lacks sources that change outside git.
    ReloaderByHand { key: String, missing: Vec<String> },
    /// A Reloader annotation lists the sources that change outside git.
    ReloaderListed { key: String, names: String },
    /// Keys an object leaves out of every hash, read here through a `subPath` mount,
    /// which never updates in a running pod: they stay hashed.
    IgnoredKeysThroughSubPath {
        kind: SourceKind,
        name: String,
        keys: Vec<String>,
        field: String,
        /// Through a `subPathExpr`, whose file is known only in the pod.
        expr: bool,
    },

    // Rolling: whether, and when, a changed stamp reaches the pods (messages::rolling).
    /// A Job's pod template cannot change: it needs a hashed name to roll.
    ImmutableTemplate,
    /// The workload is stamped, but its spec keeps a changed stamp from rolling it now.
    Held(Held),
    /// The hashed name of a Job is too long.
    JobNameTooLong { new_name: String },
    /// A Job got a hashed name (the result's resource is the new name).
    JobRenamed { base: String },

    // Renaming (messages::renaming).
    /// Renaming needs a name to suffix.
    NoBaseName,
    /// The name holds a line break or other blank: no valid name, suffixed or not.
    NameWithBlanks,
    /// The name is written as a null, a number or a boolean, which kubectl does not read
    /// as a name.
    NameNotAString {
        written: String,
        reads_as: &'static str,
    },
    /// kustomize's hash of the object's content cannot be given: kustomize refuses the
    /// value too, or hashes it in a way not reproduced here. Never carries a value.
    Unhashable {
        field: String,
        why: crate::model::name_hash::Unhashable,
    },
    /// The recorded base name is empty.
    EmptyBaseName,
    /// The suffixed name is too long.
    SuffixedNameTooLong { new_name: String },
    /// One object (named `taker`) would get the suffixed name `new_name`, which is
    /// already the name or base name of another of its kind and namespace (`holder`):
    /// neither is renamed.
    NameTaken {
        new_name: String,
        taker: String,
        holder: String,
    },
    /// The object could not be renamed losslessly.
    CannotRename {
        error: Unwritable,
        line: usize,
        column: usize,
    },
    /// The object has a hashed name (the result's resource is the new name).
    Renamed { base: String, references: usize },
    /// Objects made by kustomize generators keep their names.
    Generated { count: usize },
    /// A field the function does not know still holds an old name.
    OldName {
        field: String,
        text: String,
        new: String,
    },
    /// A cluster-scoped object names a ConfigMap or Secret that objects of several
    /// namespaces renamed differently: which one it means is not known.
    AmbiguousName {
        field: String,
        kind: SourceKind,
        name: String,
    },

    // The run (messages::run).
    /// Every stamped, skipped and missing count.
    Summary {
        stamped: usize,
        skipped: usize,
        missing: usize,
    },
    /// An object among plain manifests looks like config-hash's configuration, which is
    /// read from `-c FILE` only: it is passed through, not used.
    ConfigAmongManifests,
    /// The functionConfig or a flag is wrong.
    Config(ConfigError),
    /// Errors stopped every edit.
    LeftUnchanged { errors: usize },
    /// A bug: the edits overlapped.
    Internal(String),
}

impl Finding {
    /// How serious it is. Only a missing reference depends on configuration
    /// (`onMissing`), so its severity is given where it is found.
    pub fn severity(&self) -> Severity {
        use Finding::*;
        match self {
            Missing(_) => Severity::Error,
            NoTemplate { .. }
            | RegexEntry { .. }
            | WholeObjectGone { .. }
            | OldName { .. }
            | AmbiguousName { .. }
            | IgnoredKeysThroughSubPath { .. }
            | ConfigAmongManifests => Severity::Warning,
            NameNotString { .. }
            | KeyedWithoutKey { .. }
            | JobNameTooLong { .. }
            | NotStamped { .. }
            | Content(_)
            | Duplicate { .. }
            | NoBaseName
            | NameWithBlanks
            | NameNotAString { .. }
            | Unhashable { .. }
            | EmptyBaseName
            | SuffixedNameTooLong { .. }
            | NameTaken { .. }
            | CannotRename { .. }
            | Config(_)
            | Internal(_) => Severity::Error,
            Stamped { .. }
            | Delegates { .. }
            | WholeObject { .. }
            | SpecFixed(_)
            | InPlace { .. }
            | Runtime { .. }
            | ReloaderByHand { .. }
            | ReloaderListed { .. }
            | ImmutableTemplate
            | Held(_)
            | AbsentUnproduced { .. }
            | JobRenamed { .. }
            | Renamed { .. }
            | Summary { .. }
            | Generated { .. }
            | LeftUnchanged { .. } => Severity::Info,
        }
    }

    /// Whether this is the run's closing summary, which stderr repeats.
    pub fn is_summary(&self) -> bool {
        matches!(
            self,
            Finding::Summary { .. } | Finding::LeftUnchanged { .. }
        )
    }

    /// Whether it says whether, and how, a changed stamp reaches the pods (what `diff`
    /// shows beside a workload that rolls).
    pub fn about_rolling(&self) -> bool {
        matches!(
            self,
            Finding::Missing(_)
                | Finding::ImmutableTemplate
                | Finding::Held(_)
                | Finding::AbsentUnproduced { .. }
        )
    }

    /// Whether it says something about the pods of a workload that is new (what `diff`
    /// shows beside an added workload): that they will not start, or read an object
    /// nothing in the input makes. Whether a changed stamp rolls means nothing there.
    pub fn about_new_pods(&self) -> bool {
        matches!(self, Finding::Missing(_) | Finding::AbsentUnproduced { .. })
    }

    /// Whether an object got a hashed name.
    pub fn is_rename(&self) -> bool {
        matches!(self, Finding::Renamed { .. } | Finding::JobRenamed { .. })
    }
}

/// Why an edit could not be made, without the byte offset of the [`EditError`] (which
/// is relative to the chunk it was made in): the finding carries line and column.
/// Worded (`Display`) in [`crate::model::messages`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unwritable {
    ThroughAlias,
    WrongType {
        field: String,
        expected: &'static str,
    },
    Layout {
        what: &'static str,
    },
}

impl std::error::Error for Unwritable {}

impl From<EditError> for Unwritable {
    fn from(e: EditError) -> Self {
        match e {
            EditError::ThroughAlias { .. } => Unwritable::ThroughAlias,
            EditError::WrongType {
                field, expected, ..
            } => Unwritable::WrongType { field, expected },
            EditError::Layout { what, .. } => Unwritable::Layout { what },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::result::KrmResult;

    fn about(finding: Finding) -> KrmResult {
        let mut r = KrmResult::new(finding);
        r.resource = Some(ResourceId::new(
            "apps/v1",
            "Deployment",
            Some("shop"),
            "web",
        ));
        r
    }

    #[test]
    fn severities_follow_the_finding_unless_configuration_sets_them() {
        assert_eq!(
            about(Finding::Generated { count: 1 }).severity,
            Severity::Info
        );
        assert_eq!(
            about(Finding::NameNotString { field: "x".into() }).severity,
            Severity::Error
        );
        let warned = about(Finding::Missing(Box::new(Missing {
            kind: SourceKind::Secret,
            name: "db".into(),
            key: None,
            other: None,
            container: None,
            field: "f".into(),
            extra: false,
            elsewhere: None,
            also: Vec::new(),
        })))
        .with_severity(Severity::Warning);
        assert_eq!(warned.severity, Severity::Warning);
    }
}
