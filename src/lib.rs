//! config-hash: a KRM function that hashes the ConfigMaps and Secrets each pod template
//! can see and stamps the digest into the template, editing the input text losslessly.
//!
//! The library is pure: text and configuration in, text and results out. Only
//! `main.rs` touches stdin, stdout and the exit status.
#![forbid(unsafe_code)]

mod chunks;
pub mod config;
pub mod graph;
pub mod hashing;
pub mod krm;
pub mod naming;
pub mod plugin;
pub mod references;
pub mod stamp;
pub mod stream;
pub mod suffix;
pub mod workloads;
pub mod yaml;

use config::Config;
use krm::{InputError, KrmResult, ResourceId, ResourceList, Severity};
use yaml::{Splices, Tree};

/// What a run produced.
#[derive(Debug)]
pub struct Outcome {
    /// What to write to stdout: the ResourceList with `results`, or the manifest stream.
    pub output: String,
    pub results: Vec<KrmResult>,
    /// The edits made to items (not to `results`), as `(start, end, replacement)` byte
    /// ranges of the input after any BOM: lets tests prove nothing else moved.
    pub item_edits: Vec<(usize, usize, String)>,
    /// The resources the edits touch: what `--check` reports as out of date.
    pub stale: Vec<ResourceId>,
    /// True when the input was a ResourceList, false for a plain manifest stream.
    pub resource_list: bool,
    /// 0, or 1 when a result has severity `error` (items are then left unchanged).
    pub exit_code: i32,
}

/// How a run is configured beyond the input itself.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// A functionConfig document (ConfigMap or ConfigHash) from a file; it overrides the
    /// ResourceList's own functionConfig.
    pub config_text: Option<String>,
    /// Field values (the command-line flags) that override everything else.
    pub overrides: config::Overrides,
    /// Parse the whole input as one tree even where it could go item by item (for tests
    /// that check both paths agree).
    pub single_tree: bool,
}

const BOM: &str = "\u{feff}";

/// Runs the function on a ResourceList (YAML or JSON) with its own functionConfig.
pub fn run_resource_list(input: &str) -> Result<Outcome, InputError> {
    let out = run(input, &Options::default())?;
    if !out.resource_list {
        let tree = Tree::parse(input.strip_prefix(BOM).unwrap_or(input))?;
        ResourceList::locate(&tree)?;
    }
    Ok(out)
}

/// The item-by-item path alone: `None` where it does not apply and [`run`] would use a
/// single tree. For tests that prove both paths agree.
pub fn run_item_by_item(input: &str, options: &Options) -> Option<Outcome> {
    let (bom, body) = match input.strip_prefix(BOM) {
        Some(rest) => (BOM, rest),
        None => ("", input),
    };
    chunks::run(body, bom, options).map(Prepared::into_outcome)
}

/// Runs the function on a ResourceList or on a plain multi-document manifest stream.
///
/// Block-style input is processed item by item (each item's text parsed, used and
/// dropped, in parallel), which keeps memory near the size of the input; anything that
/// path does not handle (JSON, anchors across items, renaming) uses one tree of the
/// whole input. Both give the same output byte for byte.
pub fn run(input: &str, options: &Options) -> Result<Outcome, InputError> {
    prepare(input, options).map(Prepared::into_outcome)
}

/// [`run`] without building the output text: see [`Prepared`].
pub fn prepare<'a>(input: &'a str, options: &Options) -> Result<Prepared<'a>, InputError> {
    let (bom, body) = match input.strip_prefix(BOM) {
        Some(rest) => (BOM, rest),
        None => ("", input),
    };
    if !options.single_tree {
        if let Some(prepared) = chunks::run(body, bom, options) {
            return Ok(prepared);
        }
    }
    let tree = Tree::parse(body)?;
    let list = if stream::is_resource_list(&tree) {
        Some(ResourceList::locate(&tree)?)
    } else {
        None
    };
    let items = match &list {
        Some(l) => l.items.clone(),
        None => stream::items(&tree),
    };
    let config = configure(
        &tree,
        list.as_ref().and_then(|l| l.function_config),
        options,
    );
    let (item_edits, results) = match config {
        Ok(config) => {
            let mut planned = suffix::plan(&tree, &items, &config);
            let stamped = stamp::stamp(&tree, &items, &config, &planned.renames);
            stamped.splices.append_to(&mut planned.splices);
            planned.results.extend(stamped.results);
            (planned.splices, planned.results)
        }
        Err(errors) => (
            Splices::new(),
            errors.into_iter().map(config_error).collect(),
        ),
    };
    Ok(conclude(
        Concluding {
            body,
            bom,
            item_edits,
            results,
            resource_list: list.is_some(),
        },
        |edits| touched(&tree, &items, edits),
        |results, splices| {
            if let Some(list) = &list {
                krm::write_results(&tree, list, results, splices);
            }
        },
    ))
}

pub(crate) fn config_error(e: config::ConfigError) -> KrmResult {
    let mut r = KrmResult::new(Severity::Error, e.message);
    r.field = e.field;
    r
}

/// What either path computed, before the shared conclusion.
pub(crate) struct Concluding<'a> {
    pub body: &'a str,
    pub bom: &'a str,
    pub item_edits: Splices,
    pub results: Vec<KrmResult>,
    pub resource_list: bool,
}

/// Drops the item edits when there is an error, writes results, applies the edits.
pub(crate) fn conclude<'a>(
    c: Concluding<'a>,
    stale_of: impl FnOnce(&[(usize, usize, String)]) -> Vec<ResourceId>,
    write_results: impl Fn(&[KrmResult], &mut Splices),
) -> Prepared<'a> {
    let Concluding {
        body,
        bom,
        item_edits,
        mut results,
        resource_list,
    } = c;
    let has_errors = results.iter().any(|r| r.severity == Severity::Error);
    if has_errors {
        // Nothing is written, so results must not claim that anything was.
        results.retain(|r| r.severity != Severity::Info);
        let errors = results
            .iter()
            .filter(|r| r.severity == Severity::Error)
            .count();
        results.push(KrmResult::new(
            Severity::Info,
            format!("config-hash: {errors} error(s); items left unchanged"),
        ));
    }
    let mut splices = if has_errors {
        Splices::new()
    } else {
        item_edits
    };
    let applied_item_edits = splices.edits();
    let stale = stale_of(&applied_item_edits);
    write_results(&results, &mut splices);
    let edits = match splices.checked() {
        Ok(edits) => edits,
        Err(e) => {
            // A bug, not bad input: keep the items as they were and say so.
            results.push(KrmResult::new(Severity::Error, e.to_string()));
            let mut only_results = Splices::new();
            write_results(&results, &mut only_results);
            only_results.checked().unwrap_or_default()
        }
    };
    let exit_code = i32::from(results.iter().any(|r| r.severity == Severity::Error));
    Prepared {
        body,
        bom,
        edits,
        results,
        item_edits: applied_item_edits,
        stale,
        resource_list,
        exit_code,
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
    pub item_edits: Vec<(usize, usize, String)>,
    pub stale: Vec<ResourceId>,
    pub resource_list: bool,
    pub exit_code: i32,
}

impl Prepared<'_> {
    /// Writes the output: the ResourceList with `results`, or the manifest stream.
    pub fn write_to(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        w.write_all(self.bom.as_bytes())?;
        self.edits.write_to(self.body, w)
    }

    pub fn into_outcome(self) -> Outcome {
        let text = self.edits.apply(self.body);
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
        }
    }
}

/// The configuration: the ResourceList's functionConfig, then a config file, then
/// the overrides. Every problem is reported, not only the first.
pub(crate) fn configure(
    tree: &Tree<'_>,
    function_config: Option<yaml::NodeId>,
    options: &Options,
) -> Result<Config, Vec<config::ConfigError>> {
    let mut errors = Vec::new();
    let read = match &options.config_text {
        Some(text) => match Tree::parse(text) {
            Ok(file) => {
                let root = file.docs.first().map(|d| d.root);
                Config::from_function_config(&file, root)
            }
            Err(e) => Err(vec![config::ConfigError {
                field: None,
                message: format!("the config file is not YAML: {e}"),
            }]),
        },
        None => Config::from_function_config(tree, function_config),
    };
    let mut config = read.unwrap_or_else(|e| {
        errors.extend(e);
        Config::default()
    });
    errors.extend(
        options
            .overrides
            .problems()
            .into_iter()
            .map(|(field, message)| config::ConfigError {
                field: None,
                message: format!("{field} (a flag): {message}"),
            }),
    );
    if !errors.is_empty() {
        return Err(errors);
    }
    options.overrides.apply(&mut config);
    Ok(config)
}

/// The items that contain an edit, in input order.
fn touched(
    tree: &Tree<'_>,
    items: &[yaml::NodeId],
    edits: &[(usize, usize, String)],
) -> Vec<ResourceId> {
    let mut starts: Vec<(usize, yaml::NodeId)> = items
        .iter()
        .map(|&i| (tree.node(i).span.start, i))
        .collect();
    starts.sort_unstable();
    let mut hit: Vec<yaml::NodeId> = Vec::new();
    for (start, _, _) in edits {
        let idx = starts.partition_point(|&(s, _)| s <= *start);
        if let Some(&(_, item)) = idx.checked_sub(1).and_then(|i| starts.get(i)) {
            if !hit.contains(&item) {
                hit.push(item);
            }
        }
    }
    let mut order: Vec<(usize, yaml::NodeId)> = hit
        .into_iter()
        .map(|i| (tree.node(i).span.start, i))
        .collect();
    order.sort_unstable();
    order
        .into_iter()
        .map(|(_, i)| ResourceId::of(tree, i))
        .collect()
}

/// The dependency graph of a ResourceList or manifest stream.
pub fn graph(input: &str) -> Result<Vec<graph::Edge>, InputError> {
    let body = input.strip_prefix(BOM).unwrap_or(input);
    let tree = Tree::parse(body)?;
    let items = if stream::is_resource_list(&tree) {
        ResourceList::locate(&tree)?.items
    } else {
        stream::items(&tree)
    };
    Ok(graph::build(&tree, &items))
}
