//! `diff`: what rolls between two renders. Both sides are stamped in memory under one
//! invocation; this compares their resolutions workload by workload and says which
//! ConfigMaps and Secrets, and which of the keys each pod sees, changed. It names keys,
//! never values: values are compared in memory and nothing derived from one is kept.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::io;
use std::sync::Arc;

use serde::Serialize;

use crate::model::resource::ResourceId;

use crate::model::catalog::SourceKind;
use crate::model::reference::{Keys, SourceKey};
use crate::model::result::KrmResult;
use crate::resolve::resolution::{Read, Resolution};
use crate::resolve::sources::SourceIndex;
use crate::views::ResourceJson;

/// One side of a diff: its resolution and the results of stamping it (only the AFTER
/// side's are shown: they say what happens to what is applied).
pub struct Side<'a> {
    pub resolution: &'a Resolution,
    pub results: &'a [KrmResult],
}

/// How a ConfigMap or Secret that a rolling workload reads changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Change {
    /// Keys the pod sees have other values, or appeared, or went.
    Changed,
    /// The workload reads it now and did not before.
    Added,
    /// The workload read it before and does not now.
    Removed,
}

impl Change {
    fn as_json(self) -> &'static str {
        match self {
            Change::Changed => "changed",
            Change::Added => "added",
            Change::Removed => "removed",
        }
    }

    fn words(self) -> &'static str {
        match self {
            Change::Changed => "changed",
            Change::Added => "now read",
            Change::Removed => "no longer read",
        }
    }
}

/// A ConfigMap or Secret whose change rolls a workload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceChange {
    pub kind: SourceKind,
    pub namespace: Option<String>,
    /// Its name after (before, for one no longer read).
    pub name: String,
    /// Its name before, when it was renamed (a hashed name).
    pub name_before: Option<String>,
    pub change: Change,
    /// The keys the pod sees that changed (for `Added` and `Removed`: every key it sees,
    /// or reads; empty when the object is not in the input).
    pub keys: Vec<String>,
}

/// A workload whose stamp changes: it rolls.
#[derive(Debug, Clone)]
pub struct Roll {
    /// As it is after.
    pub workload: ResourceId,
    /// Its name before, when that differs (a Job with a hashed name).
    pub name_before: Option<String>,
    /// Annotated `config-hash.dev/protected: "true"`, before or after.
    pub protected: bool,
    /// Shared by every workload whose reads change alike (see [`compare`]).
    pub sources: Arc<[SourceChange]>,
    /// What stamping the after side found about it that says whether, and how, it
    /// really rolls.
    pub findings: Vec<KrmResult>,
}

/// A workload on one side only.
#[derive(Debug, Clone)]
pub struct Lone {
    pub workload: ResourceId,
    /// What it reads: kind and name as hashed.
    pub reads: Vec<(SourceKind, String)>,
    pub findings: Vec<KrmResult>,
}

/// An object whose name changed because its content did.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Renamed {
    pub kind: String,
    pub namespace: Option<String>,
    pub before: String,
    pub after: String,
}

/// What rolls between two renders.
#[derive(Debug, Clone, Default)]
pub struct Diff {
    pub rolls: Vec<Roll>,
    pub added: Vec<Lone>,
    pub removed: Vec<Lone>,
    pub renamed: Vec<Renamed>,
    /// Workloads on both sides whose stamp does not change.
    pub unchanged: usize,
}

/// The gates a diff is held to.
#[derive(Debug, Clone, Copy, Default)]
pub struct Gates {
    /// At most this many workloads may roll.
    pub max_rolls: Option<usize>,
    /// Protected workloads may roll.
    pub allow_protected: bool,
}

/// A gate the diff fails.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GateFailure {
    TooManyRolls { rolls: usize, max: usize },
    Protected { workloads: Vec<ResourceId> },
}

impl GateFailure {
    fn id(&self) -> &'static str {
        match self {
            GateFailure::TooManyRolls { .. } => "max-rolls",
            GateFailure::Protected { .. } => "protected",
        }
    }

    pub fn message(&self) -> String {
        match self {
            GateFailure::TooManyRolls { rolls, max } => format!(
                "{rolls} workload(s) roll, more than --max-rolls {max} allows; split the change, or raise the limit for this one"
            ),
            GateFailure::Protected { workloads } => format!(
                "protected workload(s) roll: {} (annotated config-hash.dev/protected: \"true\"); pass --allow-protected once the roll is approved",
                workloads
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

impl Diff {
    /// The gates this diff fails.
    pub fn gate_failures(&self, gates: Gates) -> Vec<GateFailure> {
        let mut out = Vec::new();
        if let Some(max) = gates.max_rolls {
            if self.rolls.len() > max {
                out.push(GateFailure::TooManyRolls {
                    rolls: self.rolls.len(),
                    max,
                });
            }
        }
        let protected: Vec<ResourceId> = self
            .rolls
            .iter()
            .filter(|r| r.protected)
            .map(|r| r.workload.clone())
            .collect();
        if !protected.is_empty() && !gates.allow_protected {
            out.push(GateFailure::Protected {
                workloads: protected,
            });
        }
        out
    }
}

/// How a workload is matched across the sides: kind, namespace and the name it keeps
/// across renders (a Job's base name); borrowed from the resolution.
type WorkloadKey<'a> = (&'a str, Option<&'a str>, &'a str);

struct WorkloadSide<'a> {
    id: &'a ResourceId,
    stamp: Option<&'a str>,
    reads: &'a [Read],
    protected: bool,
}

fn workloads(r: &Resolution) -> BTreeMap<WorkloadKey<'_>, WorkloadSide<'_>> {
    let mut out = BTreeMap::new();
    for item in &r.items {
        let (Some(w), Some(marks)) = (&item.workload, &item.marks) else {
            continue;
        };
        let key = (
            item.id.kind(),
            item.id.namespace(),
            marks.base_name.as_str(),
        );
        out.entry(key).or_insert(WorkloadSide {
            id: &item.id,
            stamp: w.stamp.as_deref(),
            reads: &w.reads,
            protected: marks.protected,
        });
    }
    out
}

/// The name each renamed source keeps across renders (the base of its hashed name), by
/// kind, namespace and name: looked up once per reference, so a table, not a scan.
struct Bases<'a>(HashMap<(SourceKind, &'a Option<String>, &'a str), &'a str>);

impl<'a> Bases<'a> {
    fn of(r: &'a Resolution) -> Self {
        Bases(
            r.renamed
                .iter()
                .map(|x| ((x.kind, &x.namespace, x.name.as_str()), x.base.as_str()))
                .collect(),
        )
    }

    /// The base of a hashed name: config-hash's (as renamed), else kustomize's suffix cut.
    fn base(&self, kind: SourceKind, ns: &'a Option<String>, name: &'a str) -> &'a str {
        self.0
            .get(&(kind, ns, name))
            .copied()
            .or_else(|| crate::model::name_hash::strip_kustomize_suffix(name))
            .unwrap_or(name)
    }
}

/// The keys a read lets the pod see, with what each holds (compared, never shown).
fn seen<'a>(
    index: &'a SourceIndex,
    read: &'a Read,
) -> BTreeMap<&'a str, Option<(crate::model::content::Origin, &'a [u8])>> {
    let content = index
        .get(&read.key_ref())
        .and_then(|s| s.content.as_ref().ok());
    let keys: Vec<&str> = match (&read.keys, content) {
        (Keys::All, Some(c)) => c.entries.keys().collect(),
        (Keys::All, None) => Vec::new(),
        (Keys::Some(ks), _) => ks.iter().map(String::as_str).collect(),
    };
    keys.into_iter()
        .map(|k| (k, content.and_then(|c| c.entries.get(k))))
        .collect()
}

fn source_changes(
    (before, bases_b): (&Resolution, &Bases<'_>),
    b: &[Read],
    (after, bases_a): (&Resolution, &Bases<'_>),
    a: &[Read],
) -> Vec<SourceChange> {
    // Each source by its base name: a renamed source is the same one in both renders.
    let by_base = |bases: &Bases<'_>, reads: &'_ [Read]| -> BTreeMap<SourceKey, usize> {
        reads
            .iter()
            .enumerate()
            .map(|(i, read)| {
                let base = bases
                    .base(read.kind, &read.namespace, &read.name)
                    .to_string();
                (
                    SourceKey::new(read.kind, read.namespace.as_deref(), &base),
                    i,
                )
            })
            .collect()
    };
    let (bb, ab) = (by_base(bases_b, b), by_base(bases_a, a));
    let all: BTreeSet<&SourceKey> = bb.keys().chain(ab.keys()).collect();
    let mut out = Vec::new();
    for at in all {
        let (rb, ra) = (bb.get(at).map(|&i| &b[i]), ab.get(at).map(|&i| &a[i]));
        let change = match (rb, ra) {
            (Some(rb), Some(ra)) => {
                let (sb, sa) = (seen(&before.sources, rb), seen(&after.sources, ra));
                let type_of = |r: &Resolution, read: &Read| {
                    r.sources
                        .get(&read.key_ref())
                        .and_then(|s| s.content.as_ref().ok())
                        .map(|c| c.secret_type.clone())
                };
                let mut keys: Vec<String> = sb
                    .keys()
                    .chain(sa.keys())
                    .collect::<BTreeSet<_>>()
                    .into_iter()
                    .filter(|k| sb.get(*k) != sa.get(*k))
                    .map(|k| k.to_string())
                    .collect();
                let retyped = type_of(before, rb) != type_of(after, ra);
                if keys.is_empty() && !retyped && rb.shown == ra.shown {
                    continue;
                }
                if retyped && keys.is_empty() {
                    keys = sa.keys().map(|k| k.to_string()).collect();
                }
                SourceChange {
                    kind: ra.kind,
                    namespace: ra.namespace.clone(),
                    name: ra.name.clone(),
                    name_before: (rb.name != ra.name).then(|| rb.name.clone()),
                    change: Change::Changed,
                    keys,
                }
            }
            (None, Some(ra)) => SourceChange {
                kind: ra.kind,
                namespace: ra.namespace.clone(),
                name: ra.name.clone(),
                name_before: None,
                change: Change::Added,
                keys: seen(&after.sources, ra)
                    .keys()
                    .map(|k| k.to_string())
                    .collect(),
            },
            (Some(rb), None) => SourceChange {
                kind: rb.kind,
                namespace: rb.namespace.clone(),
                name: rb.name.clone(),
                name_before: None,
                change: Change::Removed,
                keys: seen(&before.sources, rb)
                    .keys()
                    .map(|k| k.to_string())
                    .collect(),
            },
            (None, None) => continue,
        };
        out.push(change);
    }
    out
}

/// A side's findings that say whether a workload really rolls, by workload: gathered
/// once, so each workload's are a look-up.
struct Findings<'a>(HashMap<&'a ResourceId, Vec<&'a KrmResult>>);

impl<'a> Findings<'a> {
    fn of(results: &'a [KrmResult]) -> Self {
        let mut by: HashMap<&ResourceId, Vec<&KrmResult>> = HashMap::new();
        for r in results.iter().filter(|r| r.finding.about_rolling()) {
            if let Some(id) = &r.resource {
                by.entry(id).or_default().push(r);
            }
        }
        Findings(by)
    }

    fn about(&self, id: &ResourceId) -> Vec<KrmResult> {
        self.0
            .get(id)
            .map(|list| list.iter().map(|r| (*r).clone()).collect())
            .unwrap_or_default()
    }
}

fn lone(w: &WorkloadSide<'_>, findings: &Findings<'_>) -> Lone {
    Lone {
        workload: w.id.clone(),
        reads: w.reads.iter().map(|r| (r.kind, r.shown.clone())).collect(),
        findings: findings
            .about(w.id)
            .into_iter()
            .filter(|r| r.finding.about_new_pods())
            .collect(),
    }
}

/// What a workload reads before and after: what its changes depend on.
type ReadPair<'a> = (&'a [Read], &'a [Read]);

/// What rolls from `before` to `after`.
pub fn compare(before: &Side<'_>, after: &Side<'_>) -> Diff {
    let (b, a) = (before.resolution, after.resolution);
    let (wb, wa) = (workloads(b), workloads(a));
    let (bases_b, bases_a) = (Bases::of(b), Bases::of(a));
    let findings_a = Findings::of(after.results);
    // The changes a workload rolls for depend only on what it reads on each side: worked
    // out once per pair of reads, and shared. Every Deployment that reads one ConfigMap
    // the same way is then one comparison of its keys, not one per Deployment.
    let mut changes: HashMap<ReadPair<'_>, Arc<[SourceChange]>> = HashMap::new();
    let mut diff = Diff::default();
    for (key, w) in &wa {
        let Some(old) = wb.get(key) else {
            diff.added.push(lone(w, &findings_a));
            continue;
        };
        if old.stamp == w.stamp {
            diff.unchanged += 1;
            continue;
        }
        diff.rolls.push(Roll {
            workload: w.id.clone(),
            name_before: (old.id.name() != w.id.name()).then(|| old.id.name().to_string()),
            protected: old.protected || w.protected,
            sources: Arc::clone(changes.entry((old.reads, w.reads)).or_insert_with(|| {
                source_changes((b, &bases_b), old.reads, (a, &bases_a), w.reads).into()
            })),
            findings: findings_a.about(w.id),
        });
        if old.id.name() != w.id.name() {
            diff.renamed.push(Renamed {
                kind: w.id.kind().to_string(),
                namespace: w.id.namespace().map(str::to_string),
                before: old.id.name().to_string(),
                after: w.id.name().to_string(),
            });
        }
    }
    for (key, w) in &wb {
        if !wa.contains_key(key) {
            // What stamping said of what is going away says nothing of what comes.
            diff.removed.push(lone(w, &Findings(HashMap::new())));
        }
    }
    // ConfigMaps and Secrets with a hashed name that changed with their content.
    let named = |r: &Resolution, bases: &Bases<'_>| -> BTreeMap<SourceKey, BTreeSet<String>> {
        let mut out: BTreeMap<_, BTreeSet<String>> = BTreeMap::new();
        for (key, _) in r.sources.iter() {
            let base = bases.base(key.kind, &key.namespace, &key.name);
            if base != key.name {
                out.entry(SourceKey::new(key.kind, key.namespace.as_deref(), base))
                    .or_default()
                    .insert(key.name.clone());
            }
        }
        out
    };
    let (nb, na) = (named(b, &bases_b), named(a, &bases_a));
    for (key, after_names) in &na {
        let Some(before_names) = nb.get(key) else {
            continue;
        };
        let SourceKey {
            kind,
            namespace: ns,
            ..
        } = key;
        let gone: Vec<&String> = before_names.difference(after_names).collect();
        let new: Vec<&String> = after_names.difference(before_names).collect();
        if let ([before], [after]) = (gone.as_slice(), new.as_slice()) {
            diff.renamed.push(Renamed {
                kind: kind.as_str().to_string(),
                namespace: ns.clone(),
                before: (*before).clone(),
                after: (*after).clone(),
            });
        }
    }
    diff.renamed.sort();
    diff
}

fn source_text(kind: SourceKind, ns: Option<&str>, name: &str) -> String {
    match ns {
        Some(ns) => format!("{} {ns}/{name}", kind.as_str()),
        None => format!("{} {name}", kind.as_str()),
    }
}

fn change_source_text(c: &SourceChange) -> String {
    let mut s = source_text(c.kind, c.namespace.as_deref(), &c.name);
    if let Some(was) = &c.name_before {
        let _ = write!(s, " (was {was})");
    }
    s
}

fn workload_text(id: &ResourceId, name_before: &Option<String>) -> String {
    match name_before {
        Some(was) => format!("{id} (was {was})"),
        None => id.to_string(),
    }
}

fn keys_text(keys: &[String]) -> String {
    if keys.is_empty() {
        "-".to_string()
    } else {
        keys.join(",")
    }
}

/// The one line that sums a diff up.
fn headline(d: &Diff) -> String {
    format!(
        "{} workload(s) roll, {} added, {} removed, {} unchanged",
        d.rolls.len(),
        d.added.len(),
        d.removed.len(),
        d.unchanged
    )
}

fn finding_line(r: &KrmResult) -> String {
    format!("{}: {}", r.severity.as_str(), r.message())
}

/// Rows padded to their columns (by hand: `{:<width$}` panics on very wide cells); the
/// last column is not padded.
fn columns(rows: &[Vec<String>]) -> String {
    let n = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut widths = vec![0usize; n];
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            line.push_str(cell);
            if i + 1 < row.len() {
                line.extend(std::iter::repeat_n(
                    ' ',
                    widths[i] - cell.chars().count() + 2,
                ));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn lone_reads(l: &Lone) -> String {
    if l.reads.is_empty() {
        return "(reads no ConfigMap or Secret)".to_string();
    }
    l.reads
        .iter()
        .map(|(k, n)| format!("{} {n}", k.as_str()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A plain-text report for a terminal or a CI log.
pub fn render_table(d: &Diff, failures: &[GateFailure]) -> String {
    let mut out = format!("config-hash diff: {}\n", headline(d));
    if !d.rolls.is_empty() {
        let mut rows = vec![
            ["WORKLOAD", "SOURCE", "CHANGE", "KEYS"]
                .map(str::to_string)
                .to_vec(),
        ];
        for r in &d.rolls {
            let mut name = workload_text(&r.workload, &r.name_before);
            if r.protected {
                name.push_str(" [protected]");
            }
            if r.sources.is_empty() {
                rows.push(vec![
                    name.clone(),
                    "(names of what it reads)".into(),
                    "changed".into(),
                    "-".into(),
                ]);
            }
            for (i, c) in r.sources.iter().enumerate() {
                let first = if i == 0 { name.clone() } else { String::new() };
                rows.push(vec![
                    first,
                    change_source_text(c),
                    c.change.words().to_string(),
                    keys_text(&c.keys),
                ]);
            }
        }
        out.push('\n');
        out.push_str(&columns(&rows));
    }
    let notes: Vec<String> = d
        .rolls
        .iter()
        .flat_map(|r| &r.findings)
        .chain(d.added.iter().flat_map(|l| &l.findings))
        .map(finding_line)
        .collect();
    if !notes.is_empty() {
        out.push_str("\nWILL IT ROLL?\n");
        for n in notes {
            let _ = writeln!(out, "{n}");
        }
    }
    let lists: [(&str, &[Lone]); 2] = [("added", &d.added), ("removed", &d.removed)];
    for (what, list) in lists {
        if !list.is_empty() {
            out.push('\n');
            for l in list {
                let _ = writeln!(out, "{what}: {} reads {}", l.workload, lone_reads(l));
            }
        }
    }
    if !d.renamed.is_empty() {
        out.push('\n');
        for r in &d.renamed {
            let ns = r
                .namespace
                .as_deref()
                .map(|n| format!("{n}/"))
                .unwrap_or_default();
            let _ = writeln!(out, "renamed: {} {ns}{} -> {}", r.kind, r.before, r.after);
        }
    }
    if !failures.is_empty() {
        out.push('\n');
        for f in failures {
            let _ = writeln!(out, "gate failed: {}", f.message());
        }
    }
    out
}

/// Text for a Markdown table cell or list item: what Markdown or HTML would read as
/// markup is escaped, so a name cannot change the comment's layout.
fn md(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '|' | '\\' | '`' | '*' | '_' | '[' | ']' | '#' | '~' => {
                out.push('\\');
                out.push(c);
            }
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// A name or key as Markdown code (a code span keeps `_` and `*` as they are); text
/// holding a backtick is escaped instead. `|` is escaped either way: GitHub splits table
/// cells at it even inside code.
fn code(text: &str) -> String {
    if text.contains('`') || text.contains('\n') || text.is_empty() {
        return md(text);
    }
    format!("`{}`", text.replace('|', "\\|"))
}

/// `Kind `ns/name`` (was `old`)` in Markdown.
fn md_object(kind: &str, ns: Option<&str>, name: &str, was: &Option<String>) -> String {
    let full = match ns {
        Some(ns) => format!("{ns}/{name}"),
        None => name.to_string(),
    };
    let mut out = format!("{} {}", md(kind), code(&full));
    if let Some(was) = was {
        let _ = write!(out, " (was {})", code(was));
    }
    out
}

/// GitHub refuses a comment of more than 65,536 characters: the Markdown stays under it,
/// with room for what a workflow puts around it.
const MARKDOWN_BUDGET: usize = 60_000;

/// `text` cut at a line end to fit [`MARKDOWN_BUDGET`], saying how much was left out. The
/// headline and failed gates come first, so they are never cut.
fn within_budget(text: String) -> String {
    if text.len() <= MARKDOWN_BUDGET {
        return text;
    }
    let mut end = MARKDOWN_BUDGET;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let end = text[..end].rfind('\n').map_or(0, |i| i + 1);
    let left_out = text[end..].lines().count();
    let mut out = text[..end].to_string();
    let _ = write!(
        out,
        "\n_{left_out} more line(s) left out to fit a comment: `config-hash diff --format table` or `--format json` lists everything._\n"
    );
    out
}

/// Markdown for a pull-request comment or a CI job summary, cut to fit a comment.
pub fn render_markdown(d: &Diff, failures: &[GateFailure]) -> String {
    within_budget(markdown(d, failures))
}

fn markdown(d: &Diff, failures: &[GateFailure]) -> String {
    let mut out = format!("### config-hash: {}\n", md(&headline(d)));
    if !failures.is_empty() {
        out.push('\n');
        for f in failures {
            let _ = writeln!(out, "- **Gate failed:** {}", md(&f.message()));
        }
    }
    if !d.rolls.is_empty() {
        out.push_str("\n| Workload | Source | Change | Keys |\n|---|---|---|---|\n");
        for r in &d.rolls {
            let w = &r.workload;
            let mut name = md_object(w.kind(), w.namespace(), w.name(), &r.name_before);
            if r.protected {
                name.push_str(" **protected**");
            }
            if r.sources.is_empty() {
                let _ = writeln!(out, "| {name} | (names of what it reads) | changed | |");
            }
            for (i, c) in r.sources.iter().enumerate() {
                let first = if i == 0 { name.as_str() } else { "" };
                let keys: Vec<String> = c.keys.iter().map(|k| code(k)).collect();
                let _ = writeln!(
                    out,
                    "| {first} | {} | {} | {} |",
                    md_object(
                        c.kind.as_str(),
                        c.namespace.as_deref(),
                        &c.name,
                        &c.name_before
                    ),
                    c.change.words(),
                    keys.join(", ")
                );
            }
        }
    }
    let notes: Vec<&KrmResult> = d
        .rolls
        .iter()
        .flat_map(|r| &r.findings)
        .chain(d.added.iter().flat_map(|l| &l.findings))
        .collect();
    if !notes.is_empty() {
        out.push_str("\n**Will it roll?**\n\n");
        for n in notes {
            let _ = writeln!(out, "- {}", md(&finding_line(n)));
        }
    }
    let lists: [(&str, &[Lone]); 2] = [("Added", &d.added), ("Removed", &d.removed)];
    for (what, list) in lists {
        if !list.is_empty() {
            let _ = write!(out, "\n**{what}**\n\n");
            for l in list {
                let w = &l.workload;
                let _ = writeln!(
                    out,
                    "- {} reads {}",
                    md_object(w.kind(), w.namespace(), w.name(), &None),
                    md(&lone_reads(l))
                );
            }
        }
    }
    if !d.renamed.is_empty() {
        out.push_str("\n**Renamed**\n\n");
        for r in &d.renamed {
            let _ = writeln!(
                out,
                "- {} → {}",
                md_object(&r.kind, r.namespace.as_deref(), &r.before, &None),
                code(&r.after)
            );
        }
    }
    out
}

#[derive(Serialize)]
struct FindingJson<'d> {
    message: String,
    severity: &'d str,
}

fn findings_json(list: &[KrmResult]) -> Vec<FindingJson<'_>> {
    list.iter()
        .map(|r| FindingJson {
            message: r.message(),
            severity: r.severity.as_str(),
        })
        .collect()
}

#[derive(Serialize)]
struct ReadJson<'d> {
    kind: &'static str,
    name: &'d str,
}

#[derive(Serialize)]
struct LoneJson<'d> {
    findings: Vec<FindingJson<'d>>,
    reads: Vec<ReadJson<'d>>,
    workload: ResourceJson<'d>,
}

impl<'d> LoneJson<'d> {
    fn of(l: &'d Lone) -> Self {
        LoneJson {
            findings: findings_json(&l.findings),
            reads: l
                .reads
                .iter()
                .map(|(k, n)| ReadJson {
                    kind: k.as_str(),
                    name: n,
                })
                .collect(),
            workload: ResourceJson::of(&l.workload),
        }
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SourceJson<'d> {
    change: &'static str,
    keys: &'d [String],
    kind: &'static str,
    name: &'d str,
    name_before: Option<&'d str>,
    namespace: Option<&'d str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RollJson<'d> {
    findings: Vec<FindingJson<'d>>,
    name_before: Option<&'d str>,
    protected: bool,
    sources: Vec<SourceJson<'d>>,
    workload: ResourceJson<'d>,
}

impl<'d> RollJson<'d> {
    fn of(r: &'d Roll) -> Self {
        RollJson {
            findings: findings_json(&r.findings),
            name_before: r.name_before.as_deref(),
            protected: r.protected,
            sources: r
                .sources
                .iter()
                .map(|c| SourceJson {
                    change: c.change.as_json(),
                    keys: &c.keys,
                    kind: c.kind.as_str(),
                    name: &c.name,
                    name_before: c.name_before.as_deref(),
                    namespace: c.namespace.as_deref(),
                })
                .collect(),
            workload: ResourceJson::of(&r.workload),
        }
    }
}

#[derive(Serialize)]
struct RenamedJson<'d> {
    after: &'d str,
    before: &'d str,
    kind: &'d str,
    namespace: Option<&'d str>,
}

#[derive(Serialize)]
struct FailureJson<'d> {
    gate: &'static str,
    message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    workloads: Option<Vec<ResourceJson<'d>>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct GatesJson<'d> {
    allow_protected: bool,
    failures: Vec<FailureJson<'d>>,
    max_rolls: Option<usize>,
}

/// A list written as its items are made.
struct Each<I>(std::cell::Cell<Option<I>>);

impl<I: Iterator<Item = T>, T: Serialize> Serialize for Each<I> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.take().into_iter().flatten())
    }
}

fn each<I: Iterator>(items: I) -> Each<I> {
    Each(std::cell::Cell::new(Some(items)))
}

/// JSON, as docs/review.md documents it (`"version": 1`), each workload's record made as
/// it is written.
pub fn write_json(
    d: &Diff,
    gates: Gates,
    failures: &[GateFailure],
    out: &mut impl io::Write,
) -> io::Result<()> {
    #[derive(Serialize)]
    struct DiffJson<A, Rm, Rn, Ro, G> {
        added: A,
        gates: G,
        removed: Rm,
        renamed: Rn,
        rolls: Ro,
        unchanged: usize,
        version: u32,
    }
    let failures = failures
        .iter()
        .map(|f| FailureJson {
            gate: f.id(),
            message: f.message(),
            workloads: match f {
                GateFailure::Protected { workloads } => {
                    Some(workloads.iter().map(ResourceJson::of).collect())
                }
                GateFailure::TooManyRolls { .. } => None,
            },
        })
        .collect();
    let value = DiffJson {
        added: each(d.added.iter().map(LoneJson::of)),
        gates: GatesJson {
            allow_protected: gates.allow_protected,
            failures,
            max_rolls: gates.max_rolls,
        },
        removed: each(d.removed.iter().map(LoneJson::of)),
        renamed: each(d.renamed.iter().map(|r| RenamedJson {
            after: &r.after,
            before: &r.before,
            kind: &r.kind,
            namespace: r.namespace.as_deref(),
        })),
        rolls: each(d.rolls.iter().map(RollJson::of)),
        unchanged: d.unchanged,
        version: 1,
    };
    serde_json::to_writer_pretty(&mut *out, &value)?;
    out.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three Deployments: two read `shared`'s LOG_LEVEL alike, one reads all of it.
    fn three_readers(level: &str) -> String {
        let deployment = |name: &str, env: &str| {
            format!(
                "---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {name}\nspec:\n  template:\n    spec:\n      containers:\n      - name: c\n        image: i\n{env}"
            )
        };
        let key = "        env:\n        - name: L\n          valueFrom:\n            configMapKeyRef: {name: shared, key: LOG_LEVEL}\n";
        let all = "        envFrom:\n        - configMapRef: {name: shared}\n";
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared\ndata:\n  LOG_LEVEL: {level}\n  OTHER: x\n{}{}{}",
            deployment("a", key),
            deployment("b", key),
            deployment("c", all)
        )
    }

    #[test]
    fn a_workload_protected_on_either_side_rolls_protected() {
        let protect = |text: &str, name: &str| {
            text.replace(
                &format!("  name: {name}\n"),
                &format!(
                    "  name: {name}\n  annotations:\n    {}: \"true\"\n",
                    crate::model::catalog::annotations::PROTECTED
                ),
            )
        };
        // a protected before only, b after only, c on neither side.
        let before = protect(&three_readers("info"), "a");
        let after = protect(&three_readers("debug"), "b");
        let invocation = crate::Invocation::default();
        let (pb, pa) = (
            crate::resolve_run(&before, &invocation).unwrap(),
            crate::resolve_run(&after, &invocation).unwrap(),
        );
        let d = compare(
            &Side {
                resolution: &pb.resolution,
                results: &[],
            },
            &Side {
                resolution: &pa.resolution,
                results: &[],
            },
        );
        let protected: Vec<(&str, bool)> = d
            .rolls
            .iter()
            .map(|r| (r.workload.name(), r.protected))
            .collect();
        assert_eq!(protected, [("a", true), ("b", true), ("c", false)]);
    }

    #[test]
    fn workloads_that_read_alike_share_their_changes() {
        let invocation = crate::Invocation::default();
        let (before, after) = (three_readers("info"), three_readers("debug"));
        let (pb, pa) = (
            crate::resolve_run(&before, &invocation).unwrap(),
            crate::resolve_run(&after, &invocation).unwrap(),
        );
        let d = compare(
            &Side {
                resolution: &pb.resolution,
                results: &[],
            },
            &Side {
                resolution: &pa.resolution,
                results: &[],
            },
        );
        let by_name = |name: &str| {
            &d.rolls
                .iter()
                .find(|r| r.workload.name() == name)
                .unwrap()
                .sources
        };
        let (a, b, c) = (by_name("a"), by_name("b"), by_name("c"));
        assert_eq!(d.rolls.len(), 3);
        // One comparison for a and b; c reads differently, so it is compared alone.
        assert!(Arc::ptr_eq(a, b));
        assert!(!Arc::ptr_eq(a, c));
        assert_eq!(a[0].keys, ["LOG_LEVEL"]);
        assert_eq!(c[0].keys, ["LOG_LEVEL"]);
        assert_eq!(a[0].name, "shared");
    }

    #[test]
    fn names_cannot_change_the_layout_of_a_markdown_comment() {
        // A cell ends at '|', even inside code; HTML and links render; a line break ends
        // the table.
        assert_eq!(code("a|b"), "`a\\|b`");
        assert_eq!(code("FEATURE_FLAGS"), "`FEATURE_FLAGS`");
        assert_eq!(code("x`y"), "x\\`y");
        assert_eq!(md("<img src=x>"), "&lt;img src=x&gt;");
        assert_eq!(md("[a](http://x)"), "\\[a\\](http://x)");
        assert_eq!(md("a\nb"), "a b");
        assert_eq!(md("*_~#"), "\\*\\_\\~\\#");
    }

    #[test]
    fn markdown_fits_a_comment_and_says_what_it_left_out() {
        let roll = |i: usize| Roll {
            workload: ResourceId::new("", "Deployment", None, &format!("workload-{i:05}")),
            name_before: None,
            protected: false,
            sources: Arc::new([SourceChange {
                kind: SourceKind::ConfigMap,
                namespace: None,
                name: "shared".into(),
                name_before: None,
                change: Change::Changed,
                keys: vec!["LOG_LEVEL".into()],
            }]),
            findings: Vec::new(),
        };
        let d = Diff {
            rolls: (0..5000).map(roll).collect(),
            ..Diff::default()
        };
        let failures = d.gate_failures(Gates {
            max_rolls: Some(10),
            allow_protected: false,
        });
        let text = render_markdown(&d, &failures);
        assert!(text.len() < 65_536, "{}", text.len());
        assert!(text.starts_with("### config-hash: 5000 workload(s) roll"));
        assert!(text.contains("**Gate failed:** 5000 workload(s) roll"));
        assert!(text.contains("`workload-00000`"));
        assert!(!text.contains("`workload-04999`"));
        let full = markdown(&d, &failures);
        let kept = text.lines().count() - 2;
        let note = format!("\n_{} more line(s) left out", full.lines().count() - kept);
        assert!(text.contains(&note), "{}", &text[text.len() - 200..]);
        // A small diff is left whole.
        let small = Diff {
            rolls: vec![roll(1)],
            ..Diff::default()
        };
        assert_eq!(render_markdown(&small, &[]), markdown(&small, &[]));
    }

    #[test]
    fn gates_fail_past_the_limit_and_on_a_protected_roll_unless_allowed() {
        let roll = |name: &str, protected| Roll {
            workload: ResourceId::new("", "Deployment", None, name),
            name_before: None,
            protected,
            sources: Arc::new([]),
            findings: Vec::new(),
        };
        let d = Diff {
            rolls: vec![roll("a", false), roll("b", true)],
            ..Diff::default()
        };
        let at = |max_rolls, allow_protected| {
            d.gate_failures(Gates {
                max_rolls,
                allow_protected,
            })
            .iter()
            .map(GateFailure::id)
            .collect::<Vec<_>>()
        };
        assert_eq!(at(None, true), Vec::<&str>::new());
        assert_eq!(at(Some(2), true), Vec::<&str>::new());
        assert_eq!(at(Some(1), true), ["max-rolls"]);
        assert_eq!(at(Some(0), false), ["max-rolls", "protected"]);
        assert_eq!(at(None, false), ["protected"]);
    }
}
