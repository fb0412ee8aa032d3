//! config-hash: a KRM function that hashes the ConfigMaps and Secrets each pod template
//! can see and stamps the digest into the template, editing the input text losslessly.
//!
//! The library is pure: text and configuration in, text and results out. Only
//! the binary (`main.rs`, `cli/`) touches stdin, stdout and the exit status.
#![forbid(unsafe_code)]

pub mod edit;
pub mod model;
pub mod read;
pub mod resolve;
mod run;
pub mod views;
pub mod yaml;

pub use model::invocation::Invocation;
use model::krm::{self as krm, InputError, KrmResult, ResourceId, ResourceList, Severity};
use model::{config, findings};
use read::chunks::Coarser;
use resolve::resolution;
use run::pipeline;
use views::graph;
use yaml::Splices;

/// What a run produced.
#[derive(Debug)]
pub struct Outcome {
    /// What to write to stdout: the ResourceList with `results`, or the manifest stream.
    pub output: String,
    pub results: Vec<KrmResult>,
    /// The edits made to items (not to `results`), as `(start, end, replacement)` byte
    /// ranges of the input after any BOM: lets tests prove nothing else moved. Only
    /// [`run`] fills it ([`prepare`] streams the output and keeps no copy).
    pub item_edits: Vec<(usize, usize, String)>,
    /// The resources the edits touch: what `--check` reports as out of date.
    pub stale: Vec<ResourceId>,
    /// True when the input was a ResourceList, false for a plain manifest stream.
    pub resource_list: bool,
    /// 0, or 1 when a result has severity `error` (items are then left unchanged).
    pub exit_code: i32,
    /// Why some chunks were bigger than one item (`--debug`).
    pub coarser: Vec<Coarser>,
}

const BOM: &str = "\u{feff}";

fn strip_bom(input: &str) -> (&str, &str) {
    match input.strip_prefix(BOM) {
        Some(rest) => (BOM, rest),
        None => ("", input),
    }
}

/// Runs the function on a ResourceList (YAML or JSON) with its own functionConfig.
pub fn run_resource_list(input: &str) -> Result<Outcome, InputError> {
    let out = run(input, &Invocation::default())?;
    if !out.resource_list {
        let body = strip_bom(input).1;
        let lf = yaml::breaks::lone_cr_as_lf(body);
        let tree = crate::yaml::parse(lf.as_deref().unwrap_or(body))?;
        ResourceList::locate(&tree)?;
    }
    Ok(out)
}

/// Runs the function on a ResourceList or on a plain multi-document manifest stream.
///
/// The input is split into chunks (an item, or the smallest group of items that cannot
/// be read apart), each parsed, used and dropped on its own, in parallel: memory stays
/// near the size of the input whatever its shape.
pub fn run(input: &str, invocation: &Invocation) -> Result<Outcome, InputError> {
    prepare_for(input, invocation, pipeline::Want::Edits).map(Prepared::into_outcome)
}

/// [`run`] without building the output text: see [`Prepared`].
pub fn prepare<'a>(input: &'a str, invocation: &Invocation) -> Result<Prepared<'a>, InputError> {
    prepare_for(input, invocation, pipeline::Want::Output)
}

/// [`prepare`] for `--check`: the resources out of date too ([`Prepared::stale`], which
/// [`prepare`] leaves empty: writing the output reads none of it).
pub fn check<'a>(input: &'a str, invocation: &Invocation) -> Result<Prepared<'a>, InputError> {
    prepare_for(input, invocation, pipeline::Want::Stale)
}

/// [`prepare`], keeping a copy of the item edits ([`Prepared::item_edits`]) for callers
/// that map them back onto the files the input was joined from.
pub fn prepare_with_edits<'a>(
    input: &'a str,
    invocation: &Invocation,
) -> Result<Prepared<'a>, InputError> {
    prepare_for(input, invocation, pipeline::Want::Edits)
}

/// The resolution of a ResourceList or manifest stream: what each workload reads and
/// every name reference, exactly as stamping resolves them under the same invocation.
pub fn resolve(input: &str, invocation: &Invocation) -> Result<resolution::Resolution, InputError> {
    prepare_for(input, invocation, pipeline::Want::Resolution).map(|p| p.resolution)
}

/// A run that keeps its resolution ([`Prepared::resolution`]) beside its results: what
/// `diff` and `audit` read, so that they see exactly what stamping does.
pub fn resolve_run<'a>(
    input: &'a str,
    invocation: &Invocation,
) -> Result<Prepared<'a>, InputError> {
    prepare_for(input, invocation, pipeline::Want::Resolution)
}

/// The dependency graph of a ResourceList or manifest stream: a view of [`resolve`].
pub fn graph(input: &str, invocation: &Invocation) -> Result<Vec<graph::Edge>, InputError> {
    resolve(input, invocation).map(|r| graph::edges(&r))
}

/// The one entry to the pipeline: refuses what YAML refuses, and reads lone CR line
/// breaks through an LF copy whose edits get the original breaks back.
fn prepare_for<'a>(
    input: &'a str,
    invocation: &Invocation,
    want: pipeline::Want,
) -> Result<Prepared<'a>, InputError> {
    let (bom, body) = strip_bom(input);
    yaml::check_characters(body)?;
    if let Some(lf) = yaml::breaks::lone_cr_as_lf(body) {
        let prepared = pipeline::prepare(&lf, bom, invocation, want)?;
        return Ok(prepared.rebase(body, bom));
    }
    pipeline::prepare(body, bom, invocation, want)
}

pub(crate) fn config_error(e: config::ConfigError) -> KrmResult {
    let field = e.field.clone();
    let mut r = KrmResult::new(findings::Finding::Config(e));
    r.field = field;
    r
}

/// What either path computed, before the shared conclusion.
pub(crate) struct Concluding<'a> {
    pub body: &'a str,
    pub bom: &'a str,
    pub item_edits: Splices,
    pub results: Vec<KrmResult>,
    pub resource_list: bool,
    /// Keep a copy of the item edits for the caller ([`Outcome::item_edits`]).
    pub keep_edits: bool,
}

/// Drops the item edits when there is an error, writes results, applies the edits.
pub(crate) fn conclude<'a>(
    c: Concluding<'a>,
    stale_of: impl FnOnce(bool) -> Vec<ResourceId>,
    write_results: impl Fn(&mut Splices) -> Option<krm::ResultsStyle>,
) -> Prepared<'a> {
    let Concluding {
        body,
        bom,
        item_edits,
        mut results,
        resource_list,
        keep_edits,
    } = c;
    let has_errors = results.iter().any(|r| r.severity == Severity::Error);
    if has_errors {
        // Nothing is written, so results must not claim that anything was.
        results.retain(|r| r.severity != Severity::Info);
        let errors = results
            .iter()
            .filter(|r| r.severity == Severity::Error)
            .count();
        results.push(KrmResult::new(findings::Finding::LeftUnchanged { errors }));
    }
    let mut splices = if has_errors {
        Splices::new()
    } else {
        item_edits
    };
    let applied_item_edits = if keep_edits {
        splices.edits()
    } else {
        Vec::new()
    };
    let stale = stale_of(!splices.is_empty());
    let mut results_style = write_results(&mut splices);
    let edits = match splices.checked() {
        Ok(edits) => edits,
        Err(e) => {
            // A bug, not bad input: keep the items as they were and say so.
            results.push(KrmResult::new(findings::Finding::Internal(e.to_string())));
            let mut only_results = Splices::new();
            results_style = write_results(&mut only_results);
            only_results.checked().unwrap_or_default()
        }
    };
    let exit_code = i32::from(results.iter().any(|r| r.severity == Severity::Error));
    Prepared {
        body,
        bom,
        edits,
        results,
        results_style,
        item_edits: applied_item_edits,
        stale,
        resource_list,
        exit_code,
        coarser: Vec::new(),
        resolution: resolution::Resolution::default(),
    }
}

/// A finished run whose output text is not built yet: it can be streamed to a writer
/// (what the binary does, so a large output is never held in memory) or built.
#[derive(Debug)]
pub struct Prepared<'a> {
    body: &'a str,
    bom: &'a str,
    edits: yaml::splice::Checked,
    pub results: Vec<KrmResult>,
    /// How `results` are written where the edits left room for them.
    results_style: Option<krm::ResultsStyle>,
    pub item_edits: Vec<(usize, usize, String)>,
    /// The resources the edits touch, from [`check`] and [`prepare_with_edits`] (not
    /// [`prepare`]).
    pub stale: Vec<ResourceId>,
    pub resource_list: bool,
    pub exit_code: i32,
    /// Why some chunks were bigger than one item (`--debug`).
    pub coarser: Vec<Coarser>,
    /// The resolution, when asked for ([`resolve`]).
    pub resolution: resolution::Resolution,
}

impl Prepared<'_> {
    /// The same run against `original`, of which this run's body was the LF copy.
    fn rebase<'a>(self, original: &'a str, bom: &'a str) -> Prepared<'a> {
        let restore =
            |start: usize, text: &str| yaml::breaks::restore_breaks(original, start, text);
        let mut edits = self.edits;
        edits.map_texts(restore);
        let results_style = match (self.results_style, edits.fill_at()) {
            (Some(krm::ResultsStyle::Block { eol, indent }), Some(at)) => {
                Some(krm::ResultsStyle::Block {
                    eol: restore(at, &eol),
                    indent,
                })
            }
            (style, _) => style,
        };
        Prepared {
            body: original,
            bom,
            edits,
            results: self.results,
            results_style,
            item_edits: self
                .item_edits
                .into_iter()
                .map(|(s, e, t)| (s, e, restore(s, &t)))
                .collect(),
            stale: self.stale,
            resource_list: self.resource_list,
            exit_code: self.exit_code,
            coarser: self.coarser,
            resolution: self.resolution,
        }
    }

    /// Writes the output: the ResourceList with `results`, or the manifest stream.
    pub fn write_to(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        w.write_all(self.bom.as_bytes())?;
        self.edits
            .write_to(self.body, w, &mut |w| match &self.results_style {
                Some(style) => style.write(&self.results, &mut |s| w.write_all(s.as_bytes())),
                None => Ok(()),
            })
    }

    pub fn into_outcome(self) -> Outcome {
        let text = self.edits.apply(self.body, &mut |out| {
            if let Some(style) = &self.results_style {
                style.render(&self.results, out);
            }
        });
        Outcome {
            output: if self.bom.is_empty() {
                text
            } else {
                format!("{}{text}", self.bom)
            },
            results: self.results,
            item_edits: self.item_edits,
            stale: self.stale,
            resource_list: self.resource_list,
            exit_code: self.exit_code,
            coarser: self.coarser,
        }
    }
}
