//! config-hash: a KRM function that hashes the ConfigMaps and Secrets each pod template
//! can see and stamps the digest into the template, editing the input text losslessly.
//!
//! The library is pure: text and configuration in, text and results out. Only
//! `main.rs` touches stdin, stdout and the exit status.
#![forbid(unsafe_code)]

pub mod config;
pub mod hashing;
pub mod krm;
pub mod naming;
pub mod references;
pub mod stamp;
pub mod suffix;
pub mod workloads;
pub mod yaml;

use config::Config;
use krm::{InputError, KrmResult, ResourceList, Severity};
use yaml::{Layout, Splices, Tree};

/// What a run produced.
#[derive(Debug)]
pub struct Outcome {
    /// The ResourceList to write to stdout.
    pub output: String,
    pub results: Vec<KrmResult>,
    /// The edits made to items (not to `results`), as `(start, end, replacement)` byte
    /// ranges of the input after any BOM: lets tests prove nothing else moved.
    pub item_edits: Vec<(usize, usize, String)>,
    /// 0, or 1 when a result has severity `error` (items are then left unchanged).
    pub exit_code: i32,
}

const BOM: &str = "\u{feff}";

/// Runs the function on a ResourceList (YAML or JSON).
pub fn run_resource_list(input: &str) -> Result<Outcome, InputError> {
    let (bom, body) = match input.strip_prefix(BOM) {
        Some(rest) => (BOM, rest),
        None => ("", input),
    };
    let tree = Tree::parse(body)?;
    let list = ResourceList::locate(&tree)?;
    let layout = Layout::detect(body);
    let (item_edits, mut results) = match Config::from_function_config(&tree, list.function_config)
    {
        Ok(config) => {
            let mut planned = suffix::plan(&tree, &list.items, &config, layout);
            let stamped = stamp::stamp(&tree, &list.items, &config, layout, &planned.renames);
            stamped.splices.append_to(&mut planned.splices);
            planned.results.extend(stamped.results);
            (planned.splices, planned.results)
        }
        Err(e) => {
            let mut r = KrmResult::new(Severity::Error, e.message);
            r.field = e.field;
            (Splices::new(), vec![r])
        }
    };
    let has_errors = results.iter().any(|r| r.severity == Severity::Error);
    let mut splices = if has_errors {
        Splices::new()
    } else {
        item_edits
    };
    let applied_item_edits = splices.edits();
    krm::write_results(&tree, &list, &results, layout, &mut splices);
    let output = match splices.apply(body) {
        Ok(text) => text,
        Err(e) => {
            // A bug, not bad input: keep the items as they were and say so.
            results.push(KrmResult::new(Severity::Error, e.to_string()));
            let mut only_results = Splices::new();
            krm::write_results(&tree, &list, &results, layout, &mut only_results);
            only_results
                .apply(body)
                .unwrap_or_else(|_| body.to_string())
        }
    };
    let exit_code = i32::from(results.iter().any(|r| r.severity == Severity::Error));
    Ok(Outcome {
        output: format!("{bom}{output}"),
        results,
        item_edits: applied_item_edits,
        exit_code,
    })
}
