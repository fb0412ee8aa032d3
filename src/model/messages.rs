//! The words of every finding, one writer per family of findings (stamping a workload,
//! references, sources, rolling, renaming, the run), so that a new finding is one arm
//! in its family's writer; and the words of the errors findings carry, and of `graph`'s
//! statuses. Results, stderr, `graph` and `--check` hold findings as values; only this
//! module turns them into text.
//!
//! A finding about a resource does not repeat the resource: its message starts with the
//! result's `resourceRef`, rendered when the message is. So a Job that gets a hashed
//! name moves every finding about it by changing the one id, and a large run holds no
//! message text: each is worded as the output is written.

use std::fmt::{self, Display, Write as _};

use crate::model::catalog::WHOLE_OBJECT_KEY;
use crate::model::catalog::annotations::{BASE_NAME, DATA_REFS, IGNORE_KEYS, NAME_SUFFIX};
use crate::model::content::ContentError;
use crate::model::findings::{Finding, Held, MadeBy, Missing, SpecFixed, Status, Unwritable};
use crate::model::name_hash::{MAX_NAME_LEN, Unhashable};
use crate::model::names::JOB_NAME_MAX;
use crate::model::resource::ResourceId;

impl Finding {
    /// The message, about `resource` when the finding concerns one.
    pub fn message(&self, resource: Option<&ResourceId>) -> String {
        let mut out = String::new();
        // Writing to a String cannot fail.
        let _ = write(self, &mut out, resource);
        out
    }
}

/// A family's writer: the findings of one family, about `id`.
type Writer = fn(&Finding, &mut String, &ResourceId) -> fmt::Result;

/// Hands the finding to its family's writer. Every finding is in one family, which the
/// compiler checks here; that the family's writer has its arm, the tests check.
fn write(finding: &Finding, f: &mut String, resource: Option<&ResourceId>) -> fmt::Result {
    use Finding::*;
    // Findings about a resource are made with one; "(no resource)" would be a bug.
    let unknown = ResourceId::default();
    let id = resource.unwrap_or(&unknown);
    let family: Writer = match finding {
        Stamped { .. }
        | NotStamped { .. }
        | NameNotString { .. }
        | KeyedWithoutKey { .. }
        | SpecFixed(_)
        | InPlace { .. }
        | Delegates { .. }
        | NoTemplate { .. }
        | WholeObject { .. }
        | WholeObjectGone { .. } => stamping,
        Missing(_) | AbsentUnproduced { .. } | RegexEntry { .. } => references,
        Content(_)
        | Duplicate { .. }
        | Runtime { .. }
        | ReloaderByHand { .. }
        | ReloaderListed { .. }
        | IgnoredKeysThroughSubPath { .. } => sources,
        ImmutableTemplate | Held(_) | JobNameTooLong { .. } | JobRenamed { .. } => rolling,
        NoBaseName
        | NameWithBlanks
        | NameNotAString { .. }
        | Unhashable { .. }
        | EmptyBaseName
        | SuffixedNameTooLong { .. }
        | NameTaken { .. }
        | CannotRename { .. }
        | Renamed { .. }
        | Generated { .. }
        | OldName { .. }
        | AmbiguousName { .. } => renaming,
        Summary { .. } | ConfigAmongManifests | Config(_) | LeftUnchanged { .. } | Internal(_) => {
            run
        }
    };
    family(finding, f, id)
}

/// What was written on a workload, where, and from what; or why nothing was.
fn stamping(finding: &Finding, f: &mut String, id: &ResourceId) -> fmt::Result {
    use Finding::*;
    let kind = id.kind();
    match finding {
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
                    write!(f, " (made by {by})")?;
                }
            }
            Ok(())
        }
        NotStamped {
            error,
            line,
            column,
        } => write!(
            f,
            "{id}: not stamped: {error} (line {line} column {column})"
        ),
        NameNotString { field } => write!(
            f,
            "{id}: not stamped: {field} must be a string (the name of a ConfigMap or Secret), not a list or mapping; the API server rejects this manifest"
        ),
        KeyedWithoutKey { place } => write!(
            f,
            "{id}: not stamped: {place} holds a keyed hash (hmac-sha256:...), and no key was given, so it can be neither checked nor reproduced (pass the same key with --key-file FILE, CONFIG_HASH_KEY_FILE or CONFIG_HASH_KEY; to return to unkeyed hashes, delete that value first)"
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
        InPlace { annotation, env } => write!(
            f,
            "{id}: OpenKruise updates a {kind} in place when only its template's metadata changes (InPlaceIfPossible, InPlaceOnly), which restarts no container; it restarts a container in place when an env var of it reads a changed annotation through the downward API, so every container (not init containers) reads {annotation} as env {env} (whatever the mode; under ReCreate the changed annotation replaces the pods)"
        ),
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
        other => unreachable!("{other:?} is not a stamping finding"),
    }
}

/// A reference that cannot be followed as written: what it names is not in the input
/// (or nothing in it makes it), or it is not a name.
fn references(finding: &Finding, f: &mut String, id: &ResourceId) -> fmt::Result {
    use Finding::*;
    match finding {
        Missing(m) => missing(f, id, m),
        AbsentUnproduced {
            kind: k,
            name,
            field,
        } => write!(
            f,
            "{id}: {field} names {} {name:?}, which is optional, not in the input, and made by nothing in it: it is hashed as absent, so if it is made or changed outside this build the pods do not roll; add it to the input (or, if an install step makes it, declare it with installTime)",
            k.as_str()
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
        other => unreachable!("{other:?} is not a reference finding"),
    }
}

/// A missing object or key: what the reference names, where an object of that name is,
/// and what fails when the pod starts.
fn missing(f: &mut String, id: &ResourceId, m: &Missing) -> fmt::Result {
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
                write!(f, " (made by {by})")?;
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

/// A ConfigMap or Secret: its content, its copies, what makes it outside git, and the
/// keys a pod reads of it in a way that never updates.
fn sources(finding: &Finding, f: &mut String, id: &ResourceId) -> fmt::Result {
    use Finding::*;
    match finding {
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
                "{id}: {field} mounts {} {} of {} {name} through {}, which never updates in a running pod, so the app cannot reload {}: {} hashed here, though {IGNORE_KEYS} lists {} (mount the volume without subPath to let the app reload {})",
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
                if one { "it" } else { "them" },
                if one { "it" } else { "them" },
            )
        }
        other => unreachable!("{other:?} is not a source finding"),
    }
}

/// Whether, and when, a changed stamp reaches the pods: what in the workload's own spec
/// holds it back, and a Job's hashed name, which lets it roll at all.
fn rolling(finding: &Finding, f: &mut String, id: &ResourceId) -> fmt::Result {
    use Finding::*;
    let kind = id.kind();
    match finding {
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
        JobNameTooLong { new_name } => {
            write!(f, "{id}: not stamped: ")?;
            job_name_too_long(f, new_name)
        }
        JobRenamed { base } => write!(
            f,
            "{id}: hashed name for base name {base}, from its pod template and what it reads, so a change makes a new {kind} rather than an immutable-field error (references to it are not rewritten)"
        ),
        other => unreachable!("{other:?} is not a rolling finding"),
    }
}

/// Why a Job's hashed name cannot be given: the finding's words, and the error's
/// (`JobRenameError`, a layer up).
pub fn job_name_too_long(f: &mut impl fmt::Write, new_name: &str) -> fmt::Result {
    write!(
        f,
        "the hashed name {new_name:?} would be {} characters, over Kubernetes' limit of {JOB_NAME_MAX}; shorten the name or remove {NAME_SUFFIX}",
        new_name.len(),
    )
}

/// Hashed names: why an object gets none, the one it got, and names left behind.
fn renaming(finding: &Finding, f: &mut String, id: &ResourceId) -> fmt::Result {
    use Finding::*;
    let kind = id.kind();
    match finding {
        NoBaseName => write!(
            f,
            "{kind}: metadata.name is missing or empty, so there is no base name to suffix; give the object a name or set {NAME_SUFFIX}: \"false\""
        ),
        NameWithBlanks => write!(
            f,
            "{kind} {:?}: metadata.name holds a line break or other blank character (a `|` block scalar keeps its last line break), which the API server refuses, so there is no name to suffix; write the name on one line (or as `|-`)",
            id.name()
        ),
        NameNotAString { written, reads_as } => write!(
            f,
            "{kind}: metadata.name is {written}, which kubectl reads as {reads_as}, not as a name (the API server refuses it), so there is no base name to suffix; quote it if it is meant as a name"
        ),
        Unhashable { field, why } => {
            write!(f, "{id}: {field} ")?;
            unhashable(f, why)
        }
        EmptyBaseName => write!(
            f,
            "{id}: {BASE_NAME} is empty, so there is no base name to suffix; remove it or set {NAME_SUFFIX}: \"false\""
        ),
        SuffixedNameTooLong { new_name } => write!(
            f,
            "{id}: the suffixed name {new_name:?} would be {} characters, over Kubernetes' limit of {MAX_NAME_LEN}; shorten the name or set {NAME_SUFFIX}: \"false\"",
            new_name.len(),
        ),
        NameTaken {
            new_name,
            taker,
            holder,
        } => write!(
            f,
            "{id}: not renamed: {kind} {taker:?} would get the suffixed name {new_name:?}, which is already the name or base name of {kind} {holder:?} in the input, so two objects would answer to one name and a later run could not tell them apart; rename one of them or set {NAME_SUFFIX}: \"false\" on one"
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
        other => unreachable!("{other:?} is not a renaming finding"),
    }
}

/// Why a field's value has no kustomize hash here, after the field's path.
fn unhashable(f: &mut String, why: &Unhashable) -> fmt::Result {
    use Unhashable::*;
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

/// The run as a whole: its summary, its configuration, and bugs.
fn run(finding: &Finding, f: &mut String, id: &ResourceId) -> fmt::Result {
    use Finding::*;
    match finding {
        Summary {
            stamped,
            skipped,
            missing,
        } => write!(
            f,
            "config-hash: {stamped} workload(s) stamped, {skipped} skipped, {missing} missing reference(s)"
        ),
        ConfigAmongManifests => write!(
            f,
            "{id} is among the manifests, so it is passed through and not used as configuration; pass it with -c FILE (config-hash -c FILE manifests...)"
        ),
        // The result holds the field apart (kpt prints `field: message`): the message
        // alone, not the error as it reads on its own.
        Config(e) => f.write_str(&e.message),
        LeftUnchanged { errors } => {
            write!(f, "config-hash: {errors} error(s); items left unchanged")
        }
        Internal(message) => f.write_str(message),
        other => unreachable!("{other:?} is not a finding about the run"),
    }
}

/// `SealedSecret db`: the object that makes a source, after "made by".
impl Display for MadeBy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.kind, self.name)
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

/// How `graph` words a status (the type is resolution's; its words are said here).
impl Status {
    /// As `graph`'s table and DOT say it.
    pub fn as_str(&self) -> &'static str {
        match self {
            Status::Found => "found",
            Status::Missing => "missing",
            Status::OptionalAbsent => "absent (optional)",
            Status::Ignored => "ignored",
            Status::Cluster => "from the cluster",
        }
    }

    /// As `graph`'s JSON says it: one token.
    pub fn as_json(&self) -> &'static str {
        match self {
            Status::OptionalAbsent => "optional-absent",
            Status::Cluster => "cluster",
            other => other.as_str(),
        }
    }

    /// `graph`'s status cell: the status, or the keys that are missing, and whether the
    /// content changes at runtime.
    pub fn cell(&self, missing_keys: &std::collections::BTreeSet<&str>, runtime: bool) -> String {
        let mut out = if missing_keys.is_empty() {
            self.as_str().to_string()
        } else {
            let ks: Vec<&str> = missing_keys.iter().copied().collect();
            format!("missing keys: {}", ks.join(","))
        };
        if runtime {
            out.push_str(" (changes at runtime)");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::catalog::SourceKind;
    use crate::model::config::ConfigError;
    use crate::model::findings::{Covered, Written};
    use crate::model::result::KrmResult;

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

    /// Each case's message in full, so that a changed word fails here and names the
    /// finding, not only in a golden file.
    fn assert_words(cases: Vec<(ResourceId, Finding, &str)>) {
        for (id, finding, expected) in cases {
            assert_eq!(finding.message(Some(&id)), expected, "{finding:?}");
        }
    }

    fn id(kind: &str, namespace: Option<&str>, name: &str) -> ResourceId {
        ResourceId::new("apps/v1", kind, namespace, name)
    }

    fn made_by(kind: &str, name: &str) -> Option<MadeBy> {
        Some(MadeBy {
            kind: kind.into(),
            name: name.into(),
        })
    }

    #[test]
    fn stamping_findings_say_what_was_written_and_why_not() {
        let covered = vec![
            Covered {
                kind: SourceKind::ConfigMap,
                name: "web-cfg".into(),
                absent: false,
                made_by: None,
            },
            Covered {
                kind: SourceKind::Secret,
                name: "vault/db".into(),
                absent: true,
                made_by: made_by("SealedSecret", "db"),
            },
        ];
        let written = |annotation: Option<&str>, env: Option<&str>, downward| Written {
            annotation: annotation.map(String::from),
            env: env.map(String::from),
            downward,
        };
        let cset = id("CloneSet", Some("shop"), "web");
        let job = id("Job", Some("shop"), "migrate");
        assert_words(vec![
            (
                web(),
                Finding::Stamped {
                    written: written(Some("config-hash.dev/hash"), None, false),
                    covered: covered.clone(),
                },
                "Deployment shop/web: annotation config-hash.dev/hash from ConfigMap web-cfg, Secret vault/db (absent) (made by SealedSecret db)",
            ),
            (
                web(),
                Finding::Stamped {
                    written: written(None, Some("CONFIG_HASH"), false),
                    covered: covered[..1].to_vec(),
                },
                "Deployment shop/web: env CONFIG_HASH from ConfigMap web-cfg",
            ),
            (
                cset.clone(),
                Finding::Stamped {
                    written: written(Some("config-hash.dev/hash"), Some("CONFIG_HASH"), true),
                    covered: covered[1..].to_vec(),
                },
                "CloneSet shop/web: annotation config-hash.dev/hash and env CONFIG_HASH reading it through the downward API from Secret vault/db (absent) (made by SealedSecret db)",
            ),
            (
                web(),
                Finding::NotStamped {
                    error: Unwritable::ThroughAlias,
                    line: 3,
                    column: 5,
                },
                "Deployment shop/web: not stamped: the place to write is reached through a YAML alias, and writing there would change every use of the anchor; expand the alias or add config-hash.dev/skip: \"true\" (line 3 column 5)",
            ),
            (
                web(),
                Finding::NotStamped {
                    error: Unwritable::WrongType {
                        field: "spec.template.metadata".into(),
                        expected: "a mapping",
                    },
                    line: 7,
                    column: 1,
                },
                "Deployment shop/web: not stamped: spec.template.metadata must be a mapping (line 7 column 1)",
            ),
            (
                web(),
                Finding::NotStamped {
                    error: Unwritable::Layout {
                        what: "a comment between - and its item",
                    },
                    line: 12,
                    column: 9,
                },
                "Deployment shop/web: not stamped: cannot edit this layout losslessly (a comment between - and its item); reformat that part or add config-hash.dev/skip: \"true\" (line 12 column 9)",
            ),
            (
                web(),
                Finding::NameNotString {
                    field: "spec.template.spec.volumes[0].configMap.name".into(),
                },
                "Deployment shop/web: not stamped: spec.template.spec.volumes[0].configMap.name must be a string (the name of a ConfigMap or Secret), not a list or mapping; the API server rejects this manifest",
            ),
            (
                web(),
                Finding::KeyedWithoutKey {
                    place: "annotation config-hash.dev/hash".into(),
                },
                "Deployment shop/web: not stamped: annotation config-hash.dev/hash holds a keyed hash (hmac-sha256:...), and no key was given, so it can be neither checked nor reproduced (pass the same key with --key-file FILE, CONFIG_HASH_KEY_FILE or CONFIG_HASH_KEY; to return to unkeyed hashes, delete that value first)",
            ),
            (
                job.clone(),
                Finding::SpecFixed(SpecFixed::NothingWritten),
                "Job shop/migrate: a Job's spec cannot change after creation, so env mode leaves it alone (use mode: annotation or both)",
            ),
            (
                job.clone(),
                Finding::SpecFixed(SpecFixed::AnnotationOnly),
                "Job shop/migrate: a Job's spec cannot change after creation, so env mode leaves it alone (annotation only)",
            ),
            (
                job.clone(),
                Finding::SpecFixed(SpecFixed::Plain),
                "Job shop/migrate: a Job's spec cannot change after creation, so env mode leaves it alone",
            ),
            (
                cset,
                Finding::InPlace {
                    annotation: "config-hash.dev/hash".into(),
                    env: "CONFIG_HASH".into(),
                },
                "CloneSet shop/web: OpenKruise updates a CloneSet in place when only its template's metadata changes (InPlaceIfPossible, InPlaceOnly), which restarts no container; it restarts a container in place when an env var of it reads a changed annotation through the downward API, so every container (not init containers) reads config-hash.dev/hash as env CONFIG_HASH (whatever the mode; under ReCreate the changed annotation replaces the pods)",
            ),
            (
                web(),
                Finding::Delegates {
                    at: "spec.workloadRef".into(),
                    kind: "Rollout".into(),
                    name: "web".into(),
                },
                "Deployment shop/web: spec.workloadRef names Rollout web, whose pod template is the one that runs: that Rollout is the one to stamp (it is, when it is in the input), and this Deployment is left as it is",
            ),
            (
                id("Widget", Some("shop"), "w"),
                Finding::NoTemplate {
                    declared_at: "spec.workloads[0]".into(),
                    kind: "Widget".into(),
                    template: "spec.pod".into(),
                },
                "Widget shop/w: spec.workloads[0] says a Widget keeps its pod template at spec.pod, but this object has no pod template (a mapping with spec) there; fix the template path in spec.workloads[0]",
            ),
            (
                web(),
                Finding::WholeObject {
                    var: "DB_DATA".into(),
                    container: "app".into(),
                    kind: SourceKind::Secret,
                    name: "db".into(),
                },
                "Deployment shop/web: env DB_DATA of container app is the hash of the whole Secret db (the __data convention: written as its value, and recorded in annotation config-hash.dev/data-refs so that a later run refreshes it)",
            ),
            (
                web(),
                Finding::WholeObjectGone {
                    var: "CFG_DATA".into(),
                    container: "app".into(),
                    kind: SourceKind::ConfigMap,
                    name: "web-cfg".into(),
                },
                "Deployment shop/web: env CFG_DATA of container app held the hash of ConfigMap web-cfg (recorded in config-hash.dev/data-refs), which is not in the input any more; the value is left as it is and the record dropped",
            ),
        ]);
    }

    #[test]
    fn reference_findings_say_what_is_missing_and_what_it_stops() {
        let mut other_unmade =
            missing("spec.template.spec.containers[0].envFrom[0].configMapRef.name");
        other_unmade.kind = SourceKind::ConfigMap;
        other_unmade.other = Some((SourceKind::Secret, None));
        let mut nowhere = missing("spec.template.spec.volumes[0].secret.secretName");
        nowhere.container = None;
        nowhere.elsewhere = Some(None);
        let mut unset_elsewhere = missing("spec.template.spec.volumes[0].secret.secretName");
        unset_elsewhere.container = None;
        unset_elsewhere.elsewhere = Some(Some("prod".into()));
        let mut helm = missing("spec.template.spec.volumes[0].secret.secretName");
        helm.elsewhere = Some(None);
        let mut other_ns = missing("spec.template.spec.volumes[0].secret.secretName");
        other_ns.elsewhere = Some(Some("prod".into()));
        let unset = web().with_namespace(None);
        assert_words(vec![
            (
                web(),
                Finding::Missing(Box::new(other_unmade)),
                "Deployment shop/web container \"app\": spec.template.spec.containers[0].envFrom[0].configMapRef.name refers to ConfigMap \"db\", which is not in the input; there is a Secret of that name, which a ConfigMap reference cannot read (the pod would fail with CreateContainerConfigError; mark it optional: true, or add it, or set onMissing: ignore)",
            ),
            (
                unset.clone(),
                Finding::Missing(Box::new(nowhere)),
                "Deployment web: spec.template.spec.volumes[0].secret.secretName refers to Secret \"db\", which is not in the input (the pod would not start: its volume cannot be mounted; mark it optional: true, or add it, or set onMissing: ignore)",
            ),
            (
                web(),
                Finding::Missing(Box::new(helm)),
                "Deployment shop/web container \"app\": spec.template.spec.volumes[0].secret.secretName refers to Secret \"db\", which is not in the input in namespace shop; there is one written without a namespace, which Helm and kubectl put in the namespace they install into: if that is shop (a Helm release's namespace), say so with --namespace shop (functionConfig namespace: shop), or write namespace: shop on it (the pod would not start: its volume cannot be mounted; mark it optional: true, or add it, or set onMissing: ignore)",
            ),
            (
                unset.clone(),
                Finding::Missing(Box::new(unset_elsewhere)),
                "Deployment web: spec.template.spec.volumes[0].secret.secretName refers to Secret \"db\", which is not in the input without a namespace; there is one in namespace prod, which the pod reads only if this object is installed into prod: write namespace: prod on it (the pod would not start: its volume cannot be mounted; mark it optional: true, or add it, or set onMissing: ignore)",
            ),
            (
                web(),
                Finding::Missing(Box::new(other_ns)),
                "Deployment shop/web container \"app\": spec.template.spec.volumes[0].secret.secretName refers to Secret \"db\", which is not in the input in this namespace; there is one in namespace prod, which a pod cannot read (the pod would not start: its volume cannot be mounted; mark it optional: true, or add it, or set onMissing: ignore)",
            ),
            (
                web(),
                Finding::AbsentUnproduced {
                    kind: SourceKind::Secret,
                    name: "tls".into(),
                    field: "spec.template.spec.volumes[1].secret.secretName".into(),
                },
                "Deployment shop/web: spec.template.spec.volumes[1].secret.secretName names Secret \"tls\", which is optional, not in the input, and made by nothing in it: it is hashed as absent, so if it is made or changed outside this build the pods do not roll; add it to the input (or, if an install step makes it, declare it with installTime)",
            ),
            (
                web(),
                Finding::RegexEntry {
                    field: "metadata.annotations['secret.reloader.stakater.com/reload']".into(),
                    entry: "db-.*".into(),
                    tool: "Reloader".into(),
                    kind: SourceKind::Secret,
                },
                "Deployment shop/web: metadata.annotations['secret.reloader.stakater.com/reload'] entry \"db-.*\" looks like a regular expression; Reloader accepts those, but config-hash reads exact names only, so it is not read (list the Secret names it should match)",
            ),
        ]);
    }

    #[test]
    fn source_findings_say_what_is_wrong_with_a_configmap_or_secret() {
        let cm = ResourceId::new("v1", "ConfigMap", Some("shop"), "web-cfg");
        let secret = ResourceId::new("v1", "Secret", Some("shop"), "db");
        let sealed = ResourceId::new("bitnami.com/v1alpha1", "SealedSecret", Some("shop"), "db");
        let cert = ResourceId::new("cert-manager.io/v1", "Certificate", Some("shop"), "tls");
        let external = ResourceId::new(
            "external-secrets.io/v1beta1",
            "ExternalSecret",
            Some("shop"),
            "db",
        );
        assert_words(vec![
            (
                cm.clone(),
                Finding::Content(ContentError::NotAMap {
                    field: "data".into(),
                }),
                "ConfigMap shop/web-cfg: data must be a mapping of keys to strings",
            ),
            (
                cm.clone(),
                Finding::Content(ContentError::NotAString {
                    field: "data.a".into(),
                }),
                "ConfigMap shop/web-cfg: data.a must be a string",
            ),
            (
                secret.clone(),
                Finding::Content(ContentError::BadBase64 {
                    field: "data.password".into(),
                }),
                "Secret shop/db: data.password is not valid base64 (put plain text under stringData instead, or encode it with base64)",
            ),
            (
                cm.clone(),
                Finding::Duplicate {
                    made_by: None,
                    other_made_by: None,
                },
                "ConfigMap shop/web-cfg appears more than once in the input; keep one so the hash is not ambiguous",
            ),
            (
                secret.clone(),
                Finding::Duplicate {
                    made_by: Some(sealed.clone()),
                    other_made_by: Some(external.clone()),
                },
                "Secret shop/db (made by SealedSecret shop/db) appears more than once in the input (the other is made by ExternalSecret shop/db); keep one so the hash is not ambiguous",
            ),
            (
                web(),
                Finding::Runtime {
                    kind: SourceKind::Secret,
                    name: "tls".into(),
                    producer: cert,
                    hint: false,
                },
                "Deployment shop/web: Secret tls is made by Certificate shop/tls from a certificate issued and renewed in the cluster, which cannot be seen at build time: the hash covers what git holds (the Certificate's spec), so changing that rolls the pods, but a renewal does not",
            ),
            (
                web(),
                Finding::Runtime {
                    kind: SourceKind::Secret,
                    name: "db".into(),
                    producer: external,
                    hint: true,
                },
                "Deployment shop/web: Secret db is made by ExternalSecret shop/db from values in an external store, which cannot be seen at build time: the hash covers what git holds (the ExternalSecret's spec), so changing that rolls the pods, but a changed external value does not (runtimeReload: reloader hands it to Reloader)",
            ),
            (
                web(),
                Finding::Runtime {
                    kind: SourceKind::SecretProviderClass,
                    name: "vault".into(),
                    producer: ResourceId::new(
                        "secrets-store.csi.x-k8s.io/v1",
                        "SecretProviderClass",
                        Some("shop"),
                        "vault",
                    ),
                    hint: false,
                },
                "Deployment shop/web: SecretProviderClass vault reads values from an external store, which cannot be seen at build time: the hash covers what git holds (the SecretProviderClass's spec), so changing that rolls the pods, but a changed external value does not",
            ),
            (
                web(),
                Finding::ReloaderByHand {
                    key: "secret.reloader.stakater.com/reload".into(),
                    missing: vec!["db".into(), "tls".into()],
                },
                "Deployment shop/web: runtimeReload: reloader: annotation secret.reloader.stakater.com/reload was written by hand, so config-hash leaves it as it is; add db,tls to it for Reloader to restart the pods when their content changes outside git",
            ),
            (
                web(),
                Finding::ReloaderListed {
                    key: "secret.reloader.stakater.com/reload".into(),
                    names: "db,tls".into(),
                },
                "Deployment shop/web: runtimeReload: reloader: annotation secret.reloader.stakater.com/reload lists db,tls, whose content changes outside git, so Reloader restarts the pods when it does (build-time hashing covers the rest)",
            ),
            (
                web(),
                Finding::IgnoredKeysThroughSubPath {
                    kind: SourceKind::ConfigMap,
                    name: "web-cfg".into(),
                    keys: vec!["app.conf".into()],
                    field: "spec.template.spec.containers[0].volumeMounts[0]".into(),
                    expr: false,
                },
                "Deployment shop/web: spec.template.spec.containers[0].volumeMounts[0] mounts key app.conf of ConfigMap web-cfg through subPath, which never updates in a running pod, so the app cannot reload it: it stays hashed here, though config-hash.dev/ignore-keys lists it (mount the volume without subPath to let the app reload it)",
            ),
            (
                web(),
                Finding::IgnoredKeysThroughSubPath {
                    kind: SourceKind::Secret,
                    name: "db".into(),
                    keys: vec!["a".into(), "b".into()],
                    field: "spec.template.spec.containers[0].volumeMounts[1]".into(),
                    expr: true,
                },
                "Deployment shop/web: spec.template.spec.containers[0].volumeMounts[1] mounts keys a,b of Secret db through subPathExpr (whose file may be any of its keys), which never updates in a running pod, so the app cannot reload them: they stay hashed here, though config-hash.dev/ignore-keys lists them (mount the volume without subPath to let the app reload them)",
            ),
        ]);
    }

    #[test]
    fn rolling_findings_say_when_a_changed_stamp_reaches_the_pods() {
        let job = id("Job", Some("shop"), "migrate");
        assert_words(vec![
            (
                job.clone(),
                Finding::ImmutableTemplate,
                "Job shop/migrate: a Job's pod template cannot change once it exists, so applying a changed hash fails with \"field is immutable\" unless the old Job is deleted first; annotate it config-hash.dev/name-suffix: \"true\" to give it a hashed name instead, so that a change makes a new Job",
            ),
            (
                id("StatefulSet", Some("shop"), "db"),
                Finding::Held(Held::OnDelete),
                "StatefulSet shop/db: updateStrategy.type is OnDelete, so a changed stamp replaces no pod: each pod gets the new configuration only when it is deleted; delete the pods one at a time (kubectl delete pod), or use updateStrategy.type RollingUpdate to roll on every change",
            ),
            (
                web(),
                Finding::Held(Held::Paused),
                "Deployment shop/web: the Deployment is paused (spec.paused: true), so a changed stamp starts no rollout until it is resumed (kubectl rollout resume deployment/web)",
            ),
            (
                id("StatefulSet", Some("shop"), "db"),
                Finding::Held(Held::Partition {
                    partition: 4,
                    replicas: 3,
                }),
                "StatefulSet shop/db: updateStrategy.rollingUpdate.partition is 4 and replicas 3, so a changed stamp updates no pod (only ordinals at or above the partition are updated); lower the partition to roll them",
            ),
            (
                id("CronJob", Some("shop"), "nightly"),
                Finding::Held(Held::NextSchedule),
                "CronJob shop/nightly: a CronJob's change reaches the Jobs it starts from its next scheduled run on; a Job running now keeps the old configuration (to run one now: kubectl create job --from=cronjob/nightly NAME)",
            ),
            (
                job.clone(),
                Finding::JobNameTooLong {
                    new_name: format!("{}-5h2k8m4b9d", "m".repeat(60)),
                },
                "Job shop/migrate: not stamped: the hashed name \"mmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmmm-5h2k8m4b9d\" would be 71 characters, over Kubernetes' limit of 63; shorten the name or remove config-hash.dev/name-suffix",
            ),
            (
                job.with_name("migrate-5h2k8m4b9d"),
                Finding::JobRenamed {
                    base: "migrate".into(),
                },
                "Job shop/migrate-5h2k8m4b9d: hashed name for base name migrate, from its pod template and what it reads, so a change makes a new Job rather than an immutable-field error (references to it are not rewritten)",
            ),
        ]);
    }

    #[test]
    fn renaming_findings_say_why_there_is_no_hashed_name_or_which_one() {
        use crate::model::name_hash::Unhashable as U;
        let cm = ResourceId::new("v1", "ConfigMap", Some("shop"), "web-cfg");
        let unhashable = |why| Finding::Unhashable {
            field: "data.a".into(),
            why,
        };
        assert_words(vec![
            (
                cm.with_name(""),
                Finding::NoBaseName,
                "ConfigMap: metadata.name is missing or empty, so there is no base name to suffix; give the object a name or set config-hash.dev/name-suffix: \"false\"",
            ),
            (
                cm.with_name("web\ncfg\n"),
                Finding::NameWithBlanks,
                "ConfigMap \"web\\ncfg\\n\": metadata.name holds a line break or other blank character (a `|` block scalar keeps its last line break), which the API server refuses, so there is no name to suffix; write the name on one line (or as `|-`)",
            ),
            (
                cm.with_name("true"),
                Finding::NameNotAString {
                    written: "true".into(),
                    reads_as: "a boolean",
                },
                "ConfigMap: metadata.name is true, which kubectl reads as a boolean, not as a name (the API server refuses it), so there is no base name to suffix; quote it if it is meant as a name",
            ),
            (
                cm.clone(),
                unhashable(U::NotFinite),
                "ConfigMap shop/web-cfg: data.a reads as an infinity or NaN, which kustomize's hash (JSON) cannot hold: kubectl kustomize fails on it too; there is no name suffix to give (quote it: the values of a ConfigMap or Secret are strings)",
            ),
            (
                cm.clone(),
                unhashable(U::WrongTag("!!int".into())),
                "ConfigMap shop/web-cfg: data.a is tagged !!int but does not read as one: kubectl kustomize fails on it too; there is no name suffix to give (remove the tag, or quote the value)",
            ),
            (
                cm.clone(),
                unhashable(U::KeyNotAString),
                "ConfigMap shop/web-cfg: data.a is a key YAML reads as a number, boolean or null: kubectl kustomize fails on it too; there is no name suffix to give (quote it: the values of a ConfigMap or Secret are strings)",
            ),
            (
                cm.clone(),
                unhashable(U::Timestamp),
                "ConfigMap shop/web-cfg: data.a reads as a timestamp with a time of day, which kustomize hashes as a Go time that config-hash does not reproduce; there is no name suffix to give (quote it: the values of a ConfigMap or Secret are strings)",
            ),
            (
                cm.clone(),
                unhashable(U::Binary),
                "ConfigMap shop/web-cfg: data.a is tagged !!binary, which kustomize hashes decoded, which config-hash does not reproduce; there is no name suffix to give (quote it: the values of a ConfigMap or Secret are strings)",
            ),
            (
                cm.clone(),
                unhashable(U::Nested),
                "ConfigMap shop/web-cfg: data.a is a mapping or a sequence inside a map of values, which config-hash does not hash as kustomize does; there is no name suffix to give (quote it: the values of a ConfigMap or Secret are strings)",
            ),
            (
                cm.clone(),
                Finding::EmptyBaseName,
                "ConfigMap shop/web-cfg: config-hash.dev/base-name is empty, so there is no base name to suffix; remove it or set config-hash.dev/name-suffix: \"false\"",
            ),
            (
                cm.clone(),
                Finding::SuffixedNameTooLong {
                    new_name: format!("{}-5h2k8m4b9d", "c".repeat(250)),
                },
                "ConfigMap shop/web-cfg: the suffixed name \"cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc-5h2k8m4b9d\" would be 261 characters, over Kubernetes' limit of 253; shorten the name or set config-hash.dev/name-suffix: \"false\"",
            ),
            (
                cm.clone(),
                Finding::NameTaken {
                    new_name: "cm-h29d89cmmt".into(),
                    taker: "cm".into(),
                    holder: "cm-h29d89cmmt".into(),
                },
                "ConfigMap shop/web-cfg: not renamed: ConfigMap \"cm\" would get the suffixed name \"cm-h29d89cmmt\", which is already the name or base name of ConfigMap \"cm-h29d89cmmt\" in the input, so two objects would answer to one name and a later run could not tell them apart; rename one of them or set config-hash.dev/name-suffix: \"false\" on one",
            ),
            (
                cm.clone(),
                Finding::CannotRename {
                    error: Unwritable::ThroughAlias,
                    line: 2,
                    column: 9,
                },
                "ConfigMap shop/web-cfg: cannot rename: the place to write is reached through a YAML alias, and writing there would change every use of the anchor; expand the alias or add config-hash.dev/skip: \"true\" (line 2 column 9)",
            ),
            (
                cm.with_name("web-cfg-5h2k8m4b9d"),
                Finding::Renamed {
                    base: "web-cfg".into(),
                    references: 2,
                },
                "ConfigMap shop/web-cfg-5h2k8m4b9d: hashed name for base name web-cfg (2 reference(s) point at it)",
            ),
            (
                cm.clone(),
                Finding::Generated { count: 3 },
                "3 ConfigMap/Secret(s) made by kustomize generators keep their names here; kustomize appends its own hash suffix after all transformers run",
            ),
            (
                web(),
                Finding::OldName {
                    field: "spec.template.metadata.annotations.cfg".into(),
                    text: "web-cfg".into(),
                    new: "web-cfg-5h2k8m4b9d".into(),
                },
                "Deployment shop/web: spec.template.metadata.annotations.cfg is \"web-cfg\", the old name of an object now called \"web-cfg-5h2k8m4b9d\": does this field name that object? If it does, write \"web-cfg-5h2k8m4b9d\" there, or declare the field under references in the functionConfig so that it is rewritten; if not, nothing to do",
            ),
            (
                ResourceId::new(
                    "rbac.authorization.k8s.io/v1",
                    "ClusterRole",
                    None,
                    "reader",
                ),
                Finding::AmbiguousName {
                    field: "rules[0].resourceNames[0]".into(),
                    kind: SourceKind::ConfigMap,
                    name: "web-cfg".into(),
                },
                "ClusterRole reader: rules[0].resourceNames[0] is \"web-cfg\", which names ConfigMaps of several namespaces that now have different names, so it was not rewritten: name the one it means by its new name, or give the objects of other namespaces other base names",
            ),
        ]);
    }

    #[test]
    fn run_findings_say_how_the_run_went() {
        assert_words(vec![
            (
                ResourceId::new("config-hash.dev/v1alpha1", "ConfigHash", None, "cfg"),
                Finding::ConfigAmongManifests,
                "ConfigHash cfg is among the manifests, so it is passed through and not used as configuration; pass it with -c FILE (config-hash -c FILE manifests...)",
            ),
            (
                ResourceId::default(),
                Finding::Config(ConfigError {
                    field: Some("data.mode".into()),
                    message: "\"sideways\" is not accepted".into(),
                }),
                "\"sideways\" is not accepted",
            ),
            (
                ResourceId::default(),
                Finding::Summary {
                    stamped: 2,
                    skipped: 1,
                    missing: 5,
                },
                "config-hash: 2 workload(s) stamped, 1 skipped, 5 missing reference(s)",
            ),
            (
                ResourceId::default(),
                Finding::LeftUnchanged { errors: 4 },
                "config-hash: 4 error(s); items left unchanged",
            ),
            (
                ResourceId::default(),
                Finding::Internal(
                    "internal error: overlapping edits at bytes 1..3 and 2..4".into(),
                ),
                "internal error: overlapping edits at bytes 1..3 and 2..4",
            ),
        ]);
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
    fn graph_status_cells_name_missing_keys_and_runtime_content() {
        let keys: std::collections::BTreeSet<&str> = ["b", "a"].into();
        assert_eq!(
            Status::Found.cell(&keys, true),
            "missing keys: a,b (changes at runtime)"
        );
        assert_eq!(
            Status::OptionalAbsent.cell(&Default::default(), false),
            "absent (optional)"
        );
        assert_eq!(Status::OptionalAbsent.as_json(), "optional-absent");
        assert_eq!(Status::Cluster.as_json(), "cluster");
        assert_eq!(Status::Cluster.as_str(), "from the cluster");
    }
}
