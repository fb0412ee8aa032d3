//! The conclusion every run shares: results in a fixed order, the edits dropped when an
//! error stops them, room for the results, and the output written from the input and
//! the edits (streamed, or built).

use crate::edit::results::ResultsStyle;
use crate::model::config::ConfigError;
use crate::model::findings::{Finding, Severity};
use crate::model::resource::ResourceId;
use crate::model::result::KrmResult;
use crate::read::chunks::Coarser;
use crate::resolve::resolution::Resolution;
use crate::yaml::{Checked, Edits, Splices};

/// What a run produced.
#[derive(Debug)]
pub struct Outcome {
    /// What to write to stdout: the ResourceList with `results`, or the manifest stream.
    pub output: String,
    pub results: Vec<KrmResult>,
    /// The edits made to items (not to `results`), against the input after any BOM:
    /// lets tests prove nothing else moved. Only [`crate::run`] fills it
    /// ([`crate::prepare`] streams the output and keeps no copy).
    pub item_edits: Edits,
    /// The resources the edits touch: what `--check` reports as out of date.
    pub stale: Vec<ResourceId>,
    /// True when the input was a ResourceList, false for a plain manifest stream.
    pub resource_list: bool,
    /// 0, or 1 when a result has severity `error` (items are then left unchanged).
    pub exit_code: i32,
    /// Why some chunks were bigger than one item (`--debug`).
    pub coarser: Vec<Coarser>,
}

pub(crate) fn config_error(e: ConfigError) -> KrmResult {
    let field = e.field.clone();
    let mut r = KrmResult::new(Finding::Config(e));
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
    write_results: impl Fn(&mut Splices) -> Option<ResultsStyle>,
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
        results.push(KrmResult::new(Finding::LeftUnchanged { errors }));
    }
    let mut splices = if has_errors {
        Splices::new()
    } else {
        item_edits
    };
    let applied_item_edits = if keep_edits {
        splices.record()
    } else {
        Edits::default()
    };
    let stale = stale_of(!splices.is_empty());
    let mut results_style = write_results(&mut splices);
    let edits = match splices.checked() {
        Ok(edits) => edits,
        Err(e) => {
            // A bug, not bad input: keep the items as they were and say so.
            results.push(KrmResult::new(Finding::Internal(e.to_string())));
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
        resolution: Resolution::default(),
    }
}

/// A finished run whose output text is not built yet: it can be streamed to a writer
/// (what the binary does, so a large output is never held in memory) or built.
#[derive(Debug)]
pub struct Prepared<'a> {
    body: &'a str,
    bom: &'a str,
    edits: Checked,
    pub results: Vec<KrmResult>,
    /// How `results` are written where the edits left room for them.
    results_style: Option<ResultsStyle>,
    pub item_edits: Edits,
    /// The resources the edits touch, from [`crate::check`] and [`crate::prepare_with_edits`] (not
    /// [`crate::prepare`]).
    pub stale: Vec<ResourceId>,
    pub resource_list: bool,
    pub exit_code: i32,
    /// Why some chunks were bigger than one item (`--debug`).
    pub coarser: Vec<Coarser>,
    /// The resolution, when asked for ([`crate::resolve`]).
    pub resolution: Resolution,
}

impl Prepared<'_> {
    /// The same run against `original`, of which this run's body was the LF copy.
    pub(crate) fn rebase<'a>(self, original: &'a str, bom: &'a str) -> Prepared<'a> {
        let mut edits = self.edits;
        edits.restore_breaks(original);
        let results_style = match self.results_style {
            Some(ResultsStyle::Block { eol, indent }) => Some(ResultsStyle::Block {
                eol: edits.restore_breaks_at_fill(original, &eol),
                indent,
            }),
            style => style,
        };
        Prepared {
            body: original,
            bom,
            edits,
            results: self.results,
            results_style,
            item_edits: self.item_edits.restore_breaks(original),
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
