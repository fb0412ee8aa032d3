//! What the function finds, typed once and worded once: results, stderr, `graph` and
//! `--check` hold these values, and only this module turns them into words.
//!
//! A finding about a resource does not repeat the resource: its message starts with the
//! result's `resourceRef`, rendered when the message is. So a Job that gets a hashed
//! name moves every finding about it by changing the one id, and a large run holds no
//! message text: each is worded as the output is written.

use std::fmt::{self, Display, Write as _};

use crate::catalog::annotations::{BASE_NAME, DATA_REFS, NAME_SUFFIX};
use crate::config::ConfigError;
use crate::data_refs::WHOLE_OBJECT_KEY;
use crate::hashing::ContentError;
use crate::krm::{KrmResult, ResourceId, Severity};
use crate::references::SourceKind;
pub use crate::resolution::Status;
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

/// How `graph` words a status (the type is resolution's; its words are said here).
impl Status {
    /// As `graph`'s table and DOT say it.
    pub fn as_str(&self) -> &'static str {
        match self {
            Status::Found => "found",
            Status::Missing => "missing",
            Status::OptionalAbsent => "absent (optional)",
            Status::Ignored => "ignored",
        }
    }

    /// As `graph`'s JSON says it: one token.
    pub fn as_json(&self) -> &'static str {
        match self {
            Status::OptionalAbsent => "optional-absent",
            other => other.as_str(),
        }
    }

    /// `graph`'s status cell: the status, or the keys that are missing, and whether the
    /// content changes at runtime.
    pub fn cell(&self, missing_keys: &std::collections::BTreeSet<String>, runtime: bool) -> String {
        let mut out = if missing_keys.is_empty() {
            self.as_str().to_string()
        } else {
            let ks: Vec<&str> = missing_keys.iter().map(String::as_str).collect();
            format!("missing keys: {}", ks.join(","))
        };
        if runtime {
            out.push_str(" (changes at runtime)");
        }
        out
    }
}

/// Everything the function reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finding {
    // Stamping a workload.
    /// The hash was written.
    Stamped {
        written: Written,
        covered: Vec<Covered>,
    },
    /// A reference names an object or key the input does not have.
    Missing(Box<Missing>),
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
    /// An annotation lists a regular expression, which is not read.
    RegexEntry {
        field: String,
        entry: String,
        tool: String,
        kind: SourceKind,
    },
    /// A reference's name is a list or mapping.
    NameNotString { field: String },
    /// A `__data` env var named an object that is gone.
    WholeObjectGone {
        var: String,
        container: String,
        kind: SourceKind,
        name: String,
    },
    /// A `__data` env var holds the hash of a whole object.
    WholeObject {
        var: String,
        container: String,
        kind: SourceKind,
        name: String,
    },
    /// The kind's spec cannot change after creation, so env mode leaves it alone.
    SpecFixed(SpecFixed),
    /// A keyed hash is stamped, and no key was given.
    KeyedWithoutKey { place: String },
    /// OpenKruise restarts containers in place: what that means for the stamp.
    InPlace { annotation: String, env: String },
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
    /// A Job's pod template cannot change: it needs a hashed name to roll.
    ImmutableTemplate,
    /// The workload is stamped, but its spec keeps a changed stamp from rolling it now.
    Held(Held),
    /// An optional reference names an object that is not in the input and that nothing in
    /// it makes: hashed as absent, so a copy made outside the build never rolls the pods.
    AbsentUnproduced {
        kind: SourceKind,
        name: String,
        field: String,
    },
    /// The hashed name of a Job is too long.
    JobNameTooLong { new_name: String },
    /// A Job got a hashed name (the result's resource is the new name).
    JobRenamed { base: String },
    /// The workload could not be edited losslessly.
    NotStamped {
        error: Unwritable,
        line: usize,
        column: usize,
    },
    /// Every stamped, skipped and missing count.
    Summary {
        stamped: usize,
        skipped: usize,
        missing: usize,
    },

    // Sources.
    /// A ConfigMap's or Secret's content cannot be read.
    Content(ContentError),
    /// Two sources share kind, namespace and name.
    Duplicate {
        made_by: Option<ResourceId>,
        other_made_by: Option<ResourceId>,
    },

    // Renaming.
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
        why: crate::suffix::Unhashable,
    },
    /// The recorded base name is empty.
    EmptyBaseName,
    /// The suffixed name is too long.
    SuffixedNameTooLong { new_name: String },
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

    // The run.
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

    /// The message, about `resource` when the finding concerns one.
    pub fn message(&self, resource: Option<&ResourceId>) -> String {
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = self.write(&mut out, resource);
        out
    }

    fn write(&self, f: &mut String, resource: Option<&ResourceId>) -> fmt::Result {
        use Finding::*;
        // Findings about a resource are made with one; "(no resource)" would be a bug.
        let unknown = ResourceId::default();
        let id = resource.unwrap_or(&unknown);
        let kind = &id.kind();
        match self {
            Stamped { written, covered } => {
                let mut what = Vec::new();
                if let Some(key) = &written.annotation {
                    what.push(format!("annotation {key}"));
                }
                match (&written.env, written.downward) {
                    (Some(env), true) => {
                        what.push(format!("env {env} reading it through the downward API"))
                    }
                    (Some(env), false) => what.push(format!("env {env}")),
                    (None, _) => {}
                }
                write!(f, "{id}: {} from ", what.join(" and "))?;
                for (i, c) in covered.iter().enumerate() {
                    if i > 0 {
                        f.push_str(", ");
                    }
                    write!(f, "{} {}", c.kind.as_str(), c.name)?;
                    if c.absent {
                        f.push_str(" (absent)");
                    }
                    if let Some(by) = &c.made_by {
                        write!(f, " (made by {} {})", by.kind, by.name)?;
                    }
                }
                Ok(())
            }
            Missing(m) => write_missing(f, id, m),
            Delegates { at, kind: k, name } => write!(
                f,
                "{id}: {at} names {k} {name}, whose pod template is the one that runs: that {k} is the one to stamp (it is, when it is in the input), and this {kind} is left as it is"
            ),
            NoTemplate {
                declared_at,
                kind: k,
                template,
            } => write!(
                f,
                "{id}: {declared_at} says a {k} keeps its pod template at {template}, but this object has no pod template (a mapping with spec) there; fix the template path in {declared_at}"
            ),
            RegexEntry {
                field,
                entry,
                tool,
                kind: k,
            } => write!(
                f,
                "{id}: {field} entry {entry:?} looks like a regular expression; {tool} accepts those, but config-hash reads exact names only, so it is not read (list the {} names it should match)",
                k.as_str()
            ),
            NameNotString { field } => write!(
                f,
                "{id}: not stamped: {field} must be a string (the name of a ConfigMap or Secret), not a list or mapping; the API server rejects this manifest"
            ),
            WholeObjectGone {
                var,
                container,
                kind: k,
                name,
            } => write!(
                f,
                "{id}: env {var} of container {container} held the hash of {} {name} (recorded in {DATA_REFS}), which is not in the input any more; the value is left as it is and the record dropped",
                k.as_str()
            ),
            WholeObject {
                var,
                container,
                kind: k,
                name,
            } => write!(
                f,
                "{id}: env {var} of container {container} is the hash of the whole {} {name} (the {WHOLE_OBJECT_KEY} convention: written as its value, and recorded in annotation {DATA_REFS} so that a later run refreshes it)",
                k.as_str()
            ),
            SpecFixed(then) => {
                write!(
                    f,
                    "{id}: a {kind}'s spec cannot change after creation, so env mode leaves it alone"
                )?;
                f.push_str(match then {
                    self::SpecFixed::NothingWritten => " (use mode: annotation or both)",
                    self::SpecFixed::AnnotationOnly => " (annotation only)",
                    self::SpecFixed::Plain => "",
                });
                Ok(())
            }
            KeyedWithoutKey { place } => write!(
                f,
                "{id}: not stamped: {place} holds a keyed hash (hmac-sha256:...), and no key was given, so it can be neither checked nor reproduced (pass the same key with --key-file FILE, CONFIG_HASH_KEY_FILE or CONFIG_HASH_KEY; to return to unkeyed hashes, delete that value first)"
            ),
            InPlace { annotation, env } => write!(
                f,
                "{id}: OpenKruise updates a {kind} in place when only its template's metadata changes (InPlaceIfPossible, InPlaceOnly), which restarts no container; it restarts a container in place when an env var of it reads a changed annotation through the downward API, so every container (not init containers) reads {annotation} as env {env} (whatever the mode; under ReCreate the changed annotation replaces the pods)"
            ),
            IgnoredKeysThroughSubPath {
                kind: k,
                name,
                keys,
                field,
                expr,
            } => {
                let one = keys.len() == 1;
                write!(
                    f,
                    "{id}: {field} mounts {} {} of {} {name} through {}, which never updates in a running pod, so the app cannot reload {}: {} hashed here, though {} lists {} (mount the volume without subPath to let the app reload {})",
                    if one { "key" } else { "keys" },
                    keys.join(","),
                    k.as_str(),
                    if *expr {
                        "subPathExpr (whose file may be any of its keys)"
                    } else {
                        "subPath"
                    },
                    if one { "it" } else { "them" },
                    if one { "it stays" } else { "they stay" },
                    crate::catalog::annotations::IGNORE_KEYS,
                    if one { "it" } else { "them" },
                    if one { "it" } else { "them" },
                )
            }
            Runtime {
                kind: k,
                name,
                producer,
                hint,
            } => {
                let k = k.as_str();
                // A certificate is issued and renewed in the cluster, not fetched.
                let (made, change) = if producer.kind() == "Certificate" {
                    (
                        "from a certificate issued and renewed in the cluster",
                        "a renewal",
                    )
                } else {
                    (
                        "from values in an external store",
                        "a changed external value",
                    )
                };
                if producer.kind() == k {
                    write!(f, "{id}: {k} {name} reads values from an external store")?;
                } else {
                    write!(f, "{id}: {k} {name} is made by {producer} {made}")?;
                }
                write!(
                    f,
                    ", which cannot be seen at build time: the hash covers what git holds (the {}'s spec), so changing that rolls the pods, but {change} does not",
                    producer.kind()
                )?;
                if *hint {
                    f.push_str(" (runtimeReload: reloader hands it to Reloader)");
                }
                Ok(())
            }
            ReloaderByHand { key, missing } => write!(
                f,
                "{id}: runtimeReload: reloader: annotation {key} was written by hand, so config-hash leaves it as it is; add {} to it for Reloader to restart the pods when their content changes outside git",
                missing.join(",")
            ),
            ReloaderListed { key, names } => write!(
                f,
                "{id}: runtimeReload: reloader: annotation {key} lists {names}, whose content changes outside git, so Reloader restarts the pods when it does (build-time hashing covers the rest)"
            ),
            ImmutableTemplate => write!(
                f,
                "{id}: a {kind}'s pod template cannot change once it exists, so applying a changed hash fails with \"field is immutable\" unless the old {kind} is deleted first; annotate it {NAME_SUFFIX}: \"true\" to give it a hashed name instead, so that a change makes a new {kind}"
            ),
            Held(self::Held::OnDelete) => write!(
                f,
                "{id}: updateStrategy.type is OnDelete, so a changed stamp replaces no pod: each pod gets the new configuration only when it is deleted; delete the pods one at a time (kubectl delete pod), or use updateStrategy.type RollingUpdate to roll on every change"
            ),
            Held(self::Held::Paused) => write!(
                f,
                "{id}: the {kind} is paused (spec.paused: true), so a changed stamp starts no rollout until it is resumed (kubectl rollout resume {}/{})",
                kind.to_lowercase(),
                id.name()
            ),
            Held(self::Held::Partition {
                partition,
                replicas,
            }) => write!(
                f,
                "{id}: updateStrategy.rollingUpdate.partition is {partition} and replicas {replicas}, so a changed stamp updates no pod (only ordinals at or above the partition are updated); lower the partition to roll them"
            ),
            Held(self::Held::NextSchedule) => write!(
                f,
                "{id}: a CronJob's change reaches the Jobs it starts from its next scheduled run on; a Job running now keeps the old configuration (to run one now: kubectl create job --from=cronjob/{} NAME)",
                id.name()
            ),
            AbsentUnproduced {
                kind: k,
                name,
                field,
            } => write!(
                f,
                "{id}: {field} names {} {name:?}, which is optional, not in the input, and made by nothing in it: it is hashed as absent, so if it is made or changed outside this build the pods do not roll; add it to the input (or, if an install step makes it, declare it with installTime)",
                k.as_str()
            ),
            JobNameTooLong { new_name } => write!(
                f,
                "{id}: not stamped: the hashed name {new_name:?} would be {} characters, over Kubernetes' limit of {}; shorten the name or remove {NAME_SUFFIX}",
                new_name.len(),
                crate::suffix::JOB_NAME_MAX
            ),
            JobRenamed { base } => write!(
                f,
                "{id}: hashed name for base name {base}, from its pod template and what it reads, so a change makes a new {kind} rather than an immutable-field error (references to it are not rewritten)"
            ),
            NotStamped {
                error,
                line,
                column,
            } => write!(
                f,
                "{id}: not stamped: {error} (line {line} column {column})"
            ),
            Summary {
                stamped,
                skipped,
                missing,
            } => write!(
                f,
                "config-hash: {stamped} workload(s) stamped, {skipped} skipped, {missing} missing reference(s)"
            ),
            Content(e) => write!(f, "{id}: {e}"),
            Duplicate {
                made_by,
                other_made_by,
            } => {
                write!(f, "{id}")?;
                if let Some(p) = made_by {
                    write!(f, " (made by {p})")?;
                }
                f.push_str(" appears more than once in the input");
                if let Some(p) = other_made_by {
                    write!(f, " (the other is made by {p})")?;
                }
                f.push_str("; keep one so the hash is not ambiguous");
                Ok(())
            }
            NoBaseName => write!(
                f,
                "{kind}: metadata.name is missing or empty, so there is no base name to suffix; give the object a name or set {NAME_SUFFIX}: \"false\""
            ),
            NameNotAString { written, reads_as } => write!(
                f,
                "{kind}: metadata.name is {written}, which kubectl reads as {reads_as}, not as a name (the API server refuses it), so there is no base name to suffix; quote it if it is meant as a name"
            ),
            Unhashable { field, why } => {
                use crate::suffix::Unhashable::*;
                write!(f, "{id}: {field} ")?;
                let fix = match why {
                    NotFinite => {
                        "reads as an infinity or NaN, which kustomize's hash (JSON) cannot hold: kubectl kustomize fails on it too"
                    }
                    WrongTag(tag) => {
                        write!(
                            f,
                            "is tagged {tag} but does not read as one: kubectl kustomize fails on it too"
                        )?;
                        return write!(
                            f,
                            "; there is no name suffix to give (remove the tag, or quote the value)"
                        );
                    }
                    KeyNotAString => {
                        "is a key YAML reads as a number, boolean or null: kubectl kustomize fails on it too"
                    }
                    Timestamp => {
                        "reads as a timestamp with a time of day, which kustomize hashes as a Go time that config-hash does not reproduce"
                    }
                    Binary => {
                        "is tagged !!binary, which kustomize hashes decoded, which config-hash does not reproduce"
                    }
                    Nested => {
                        "is a mapping or a sequence inside a map of values, which config-hash does not hash as kustomize does"
                    }
                };
                write!(
                    f,
                    "{fix}; there is no name suffix to give (quote it: the values of a ConfigMap or Secret are strings)"
                )
            }
            NameWithBlanks => write!(
                f,
                "{kind} {:?}: metadata.name holds a line break or other blank character (a `|` block scalar keeps its last line break), which the API server refuses, so there is no name to suffix; write the name on one line (or as `|-`)",
                id.name()
            ),
            EmptyBaseName => write!(
                f,
                "{id}: {BASE_NAME} is empty, so there is no base name to suffix; remove it or set {NAME_SUFFIX}: \"false\""
            ),
            SuffixedNameTooLong { new_name } => write!(
                f,
                "{id}: the suffixed name {new_name:?} would be {} characters, over Kubernetes' limit of {}; shorten the name or set {NAME_SUFFIX}: \"false\"",
                new_name.len(),
                crate::naming::MAX_NAME_LEN
            ),
            CannotRename {
                error,
                line,
                column,
            } => write!(
                f,
                "{id}: cannot rename: {error} (line {line} column {column})"
            ),
            Renamed { base, references } => write!(
                f,
                "{id}: hashed name for base name {base} ({references} reference(s) point at it)"
            ),
            Generated { count } => write!(
                f,
                "{count} ConfigMap/Secret(s) made by kustomize generators keep their names here; kustomize appends its own hash suffix after all transformers run"
            ),
            OldName { field, text, new } => write!(
                f,
                "{id}: {field} is {text:?}, the old name of an object now called {new:?}: does this field name that object? If it does, write {new:?} there, or declare the field under references in the functionConfig so that it is rewritten; if not, nothing to do"
            ),
            AmbiguousName { field, kind, name } => write!(
                f,
                "{id}: {field} is {name:?}, which names {kind}s of several namespaces that now have different names, so it was not rewritten: name the one it means by its new name, or give the objects of other namespaces other base names",
                kind = kind.as_str()
            ),
            ConfigAmongManifests => write!(
                f,
                "{id} is among the manifests, so it is passed through and not used as configuration; pass it with -c FILE (config-hash -c FILE manifests...)"
            ),
            Config(e) => f.write_str(&e.message),
            LeftUnchanged { errors } => {
                write!(f, "config-hash: {errors} error(s); items left unchanged")
            }
            Internal(message) => f.write_str(message),
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

/// Warnings and errors as stderr shows them for a plain stream, which has no `results`.
pub fn stderr_lines(results: &[KrmResult]) -> impl Iterator<Item = String> + '_ {
    results
        .iter()
        .filter(|r| r.severity != Severity::Info)
        .map(|r| {
            let severity = r.severity.as_str();
            match (&r.resource, &r.field) {
                // A configuration problem: the field path is not in the message (kpt
                // prints `field: message` for it), so name it here, once.
                (None, Some(field)) => {
                    format!("{severity}: functionConfig {field}: {}", r.message())
                }
                _ => format!("{severity}: {}", r.message()),
            }
        })
}

/// The one line on stderr after a plain-stream run: the summary, objects renamed,
/// warnings, and files written (when the input was files). `other_warnings`: warnings
/// the caller printed itself, about the input rather than a resource (a Kustomization
/// among the files), which the count includes.
pub fn stderr_summary(
    results: &[KrmResult],
    written: Option<usize>,
    other_warnings: usize,
) -> Option<String> {
    let summary = results.iter().rev().find(|r| r.finding.is_summary())?;
    let renamed = results.iter().filter(|r| r.finding.is_rename()).count();
    let warnings = other_warnings
        + results
            .iter()
            .filter(|r| r.severity == Severity::Warning)
            .count();
    let mut line = summary.message();
    if renamed > 0 {
        let _ = write!(line, ", {renamed} object(s) renamed");
    }
    let _ = write!(line, ", {warnings} warning(s)");
    if let Some(n) = written {
        let _ = write!(line, ", {n} file(s) written");
    }
    Some(line)
}

/// What `--check` prints: the resources out of date and the files that would change.
pub fn check_report(stale: &[ResourceId], files: &[String]) -> String {
    if stale.is_empty() {
        return "config-hash: up to date\n".to_string();
    }
    let mut text = String::new();
    for id in stale {
        let _ = writeln!(text, "out of date: {id}");
    }
    for file in files {
        let _ = writeln!(text, "would change: {file}");
    }
    let _ = writeln!(
        text,
        "config-hash: {} resource(s) out of date; run config-hash --in-place (or kpt fn render) and commit the result",
        stale.len()
    );
    text
}

fn write_missing(f: &mut String, id: &ResourceId, m: &Missing) -> fmt::Result {
    let k = m.kind.as_str();
    write!(f, "{id}")?;
    if m.also.is_empty() {
        if let Some(c) = &m.container {
            write!(f, " container {c:?}")?;
        }
        write!(f, ": {} refers to ", m.field)?;
    } else {
        // One object read several ways: every field, each with its container.
        let fields: Vec<String> = std::iter::once((&m.field, &m.container))
            .chain(m.also.iter().map(|(field, c)| (field, c)))
            .map(|(field, c)| match c {
                Some(c) => format!("{field} (container {c:?})"),
                None => field.clone(),
            })
            .collect();
        let (last, rest) = fields.split_last().expect("two fields or more");
        write!(f, ": {} and {last} refer to ", rest.join(", "))?;
    }
    match (&m.key, &m.other) {
        (None, Some((other, by))) => {
            write!(
                f,
                "{k} {:?}, which is not in the input; there is a {} of that name",
                m.name,
                other.as_str()
            )?;
            if let Some(by) = by {
                write!(f, " (made by {} {})", by.kind, by.name)?;
            }
            write!(f, ", which a {k} reference cannot read")?;
        }
        (None, None) => {
            write!(f, "{k} {:?}, which is not in the input", m.name)?;
            match (&m.elsewhere, &id.namespace()) {
                (Some(None), Some(ns)) => write!(
                    f,
                    " in namespace {ns}; there is one written without a namespace, which Helm and kubectl put in the namespace they install into: if that is {ns} (a Helm release's namespace), say so with --namespace {ns} (functionConfig namespace: {ns}), or write namespace: {ns} on it"
                )?,
                (Some(Some(other)), None) => write!(
                    f,
                    " without a namespace; there is one in namespace {other}, which the pod reads only if this object is installed into {other}: write namespace: {other} on it"
                )?,
                (Some(Some(other)), Some(_)) => write!(
                    f,
                    " in this namespace; there is one in namespace {other}, which a pod cannot read"
                )?,
                _ => {}
            }
        }
        (Some(key), _) => write!(f, "key {key:?} of {k} {:?}, which has no such key", m.name)?,
    }
    // Env references stop the container; volume references stop the mount.
    let volumes_only = std::iter::once(&m.field)
        .chain(m.also.iter().map(|(field, _)| field))
        .all(|field| field.contains(".volumes["));
    let them = if m.also.is_empty() { "it" } else { "them" };
    let (failure, fix) = if m.extra {
        (
            "the app reads it through the API, so it would not find it",
            "add it, or take it out of the annotation, or set onMissing: ignore".to_string(),
        )
    } else if volumes_only {
        (
            "the pod would not start: its volume cannot be mounted",
            format!("mark {them} optional: true, or add it, or set onMissing: ignore"),
        )
    } else {
        (
            "the pod would fail with CreateContainerConfigError",
            format!("mark {them} optional: true, or add it, or set onMissing: ignore"),
        )
    };
    write!(f, " ({failure}; {fix})")
}

/// Why an edit could not be made, without the byte offset of the [`EditError`] (which
/// is relative to the chunk it was made in): the finding carries line and column.
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

impl Display for Unwritable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Unwritable::ThroughAlias => f.write_str("the place to write is reached through a YAML alias, and writing there would change every use of the anchor; expand the alias or add config-hash.dev/skip: \"true\""),
            Unwritable::WrongType { field, expected } => write!(f, "{field} must be {expected}"),
            Unwritable::Layout { what } => write!(f, "cannot edit this layout losslessly ({what}); reformat that part or add config-hash.dev/skip: \"true\""),
        }
    }
}

impl Display for ContentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ContentError::NotAMap { field } => {
                write!(f, "{field} must be a mapping of keys to strings")
            }
            ContentError::NotAString { field } => write!(f, "{field} must be a string"),
            ContentError::BadBase64 { field } => write!(
                f,
                "{field} is not valid base64 (put plain text under stringData instead, or encode it with base64)"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn web() -> ResourceId {
        ResourceId::new("apps/v1", "Deployment", Some("shop"), "web")
    }

    fn missing(field: &str) -> Missing {
        Missing {
            kind: SourceKind::Secret,
            name: "db".into(),
            key: None,
            other: None,
            container: Some("app".into()),
            field: field.into(),
            extra: false,
            elsewhere: None,
            also: Vec::new(),
        }
    }

    fn about(finding: Finding) -> KrmResult {
        let mut r = KrmResult::new(finding);
        r.resource = Some(web());
        r
    }

    #[test]
    fn a_missing_reference_says_what_fails_and_how_to_fix_it_by_where_it_is() {
        let env = missing("spec.template.spec.containers[0].env[0].valueFrom.secretKeyRef.name");
        assert_eq!(
            Finding::Missing(Box::new(env)).message(Some(&web())),
            "Deployment shop/web container \"app\": spec.template.spec.containers[0].env[0].valueFrom.secretKeyRef.name refers to Secret \"db\", which is not in the input (the pod would fail with CreateContainerConfigError; mark it optional: true, or add it, or set onMissing: ignore)"
        );
        let mut volume = missing("spec.template.spec.volumes[1].secret.secretName");
        volume.container = None;
        volume.key = Some("tls.crt".into());
        assert_eq!(
            Finding::Missing(Box::new(volume)).message(Some(&web())),
            "Deployment shop/web: spec.template.spec.volumes[1].secret.secretName refers to key \"tls.crt\" of Secret \"db\", which has no such key (the pod would not start: its volume cannot be mounted; mark it optional: true, or add it, or set onMissing: ignore)"
        );
        let mut extra = missing("metadata.annotations['reloader']");
        extra.container = None;
        extra.extra = true;
        extra.other = Some((
            SourceKind::ConfigMap,
            Some(MadeBy {
                kind: "ExternalSecret".into(),
                name: "db".into(),
            }),
        ));
        assert_eq!(
            Finding::Missing(Box::new(extra)).message(Some(&web())),
            "Deployment shop/web: metadata.annotations['reloader'] refers to Secret \"db\", which is not in the input; there is a ConfigMap of that name (made by ExternalSecret db), which a Secret reference cannot read (the app reads it through the API, so it would not find it; add it, or take it out of the annotation, or set onMissing: ignore)"
        );
    }

    #[test]
    fn a_missing_reference_says_where_an_object_of_that_name_is() {
        let field = "spec.template.spec.volumes[0].secret.secretName";
        let message = |elsewhere: Option<&str>, own: Option<&str>| {
            let mut m = missing(field);
            m.container = None;
            m.elsewhere = Some(elsewhere.map(str::to_string));
            let mut id = web();
            id = id.with_namespace(own);
            Finding::Missing(Box::new(m)).message(Some(&id))
        };
        let helm = message(None, Some("shop"));
        assert!(
            helm.contains("Secret \"db\", which is not in the input in namespace shop; there is one written without a namespace, which Helm and kubectl put in the namespace they install into: if that is shop"),
            "{helm}"
        );
        let other = message(Some("prod"), Some("shop"));
        assert!(
            other.contains("not in the input in this namespace; there is one in namespace prod, which a pod cannot read"),
            "{other}"
        );
        let unset = message(Some("prod"), None);
        assert!(
            unset.contains("not in the input without a namespace; there is one in namespace prod, which the pod reads only if this object is installed into prod"),
            "{unset}"
        );
    }

    #[test]
    fn a_finding_names_its_resource_as_the_result_holds_it() {
        let mut r = about(Finding::JobRenamed {
            base: "migrate".into(),
        });
        r.resource = r.resource.map(|id| id.with_name("migrate-5h2k8m4b9d"));
        assert!(
            r.message().starts_with(
                "Deployment shop/migrate-5h2k8m4b9d: hashed name for base name migrate,"
            ),
            "{}",
            r.message()
        );
        // Renaming needs a name, so that finding names the kind alone.
        let nameless = web().with_name("");
        assert!(
            Finding::NoBaseName
                .message(Some(&nameless))
                .starts_with("Deployment: metadata.name is missing or empty")
        );
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
        let warned =
            about(Finding::Missing(Box::new(missing("f")))).with_severity(Severity::Warning);
        assert_eq!(warned.severity, Severity::Warning);
    }

    #[test]
    fn stderr_summarises_counts_renames_and_warnings() {
        let results = vec![
            about(Finding::Renamed {
                base: "cfg".into(),
                references: 2,
            }),
            about(Finding::JobRenamed { base: "job".into() }),
            about(Finding::Missing(Box::new(missing("f")))).with_severity(Severity::Warning),
            KrmResult::new(Finding::Summary {
                stamped: 3,
                skipped: 1,
                missing: 1,
            }),
        ];
        assert_eq!(
            stderr_summary(&results, Some(2), 0).unwrap(),
            "config-hash: 3 workload(s) stamped, 1 skipped, 1 missing reference(s), 2 object(s) renamed, 1 warning(s), 2 file(s) written"
        );
        assert!(
            stderr_summary(&results, None, 2)
                .unwrap()
                .ends_with(", 3 warning(s)")
        );
        let lines: Vec<String> = stderr_lines(&results).collect();
        assert_eq!(lines.len(), 1);
        assert!(
            lines[0].starts_with("warning: Deployment shop/web container \"app\": f refers to")
        );
        assert_eq!(stderr_summary(&results[..3], None, 0), None);
    }

    #[test]
    fn check_says_up_to_date_or_lists_what_is_stale() {
        assert_eq!(check_report(&[], &[]), "config-hash: up to date\n");
        assert_eq!(
            check_report(&[web()], &["apps/web.yaml".to_string()]),
            "out of date: Deployment shop/web\nwould change: apps/web.yaml\nconfig-hash: 1 resource(s) out of date; run config-hash --in-place (or kpt fn render) and commit the result\n"
        );
    }

    #[test]
    fn graph_status_cells_name_missing_keys_and_runtime_content() {
        let keys: std::collections::BTreeSet<String> = ["b", "a"].map(String::from).into();
        assert_eq!(
            Status::Found.cell(&keys, true),
            "missing keys: a,b (changes at runtime)"
        );
        assert_eq!(
            Status::OptionalAbsent.cell(&Default::default(), false),
            "absent (optional)"
        );
        assert_eq!(Status::OptionalAbsent.as_json(), "optional-absent");
    }
}
