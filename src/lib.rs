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
    /// Field values (`mode` = `env`, ...) that override everything else.
    pub overrides: Vec<(String, String)>,
    /// Parse the whole input as one tree even where it could go item by item (for tests
    /// that check both paths agree).
    pub single_tree: bool,
    /// The HMAC-SHA256 key: stamp keyed hashes (`hmac-sha256:...`). The caller reads it
    /// from wherever it is kept; it never comes from a functionConfig.
    pub hash_key: Option<hashing::HashKey>,
}

const BOM: &str = "\u{feff}";

/// Runs the function on a ResourceList (YAML or JSON) with its own functionConfig.
pub fn run_resource_list(input: &str) -> Result<Outcome, InputError> {
    let out = run(input, &Options::default())?;
    if !out.resource_list {
        let body = input.strip_prefix(BOM).unwrap_or(input);
        let lf = yaml::breaks::lone_cr_as_lf(body);
        let tree = Tree::parse(lf.as_deref().unwrap_or(body))?;
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
    // As in `prepare`: what YAML refuses, and a BOM after the start, go to one tree.
    if body.contains(BOM) || yaml::tree::check_characters(body).is_err() {
        return None;
    }
    if let Some(lf) = yaml::breaks::lone_cr_as_lf(body) {
        return chunks::run(&lf, bom, options).map(|p| p.rebase(body, bom).into_outcome());
    }
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
    // Both paths must refuse what YAML refuses, also between items.
    yaml::tree::check_characters(body)?;
    // Lone CR line breaks: work on an LF copy, then give the edits the original breaks.
    if let Some(lf) = yaml::breaks::lone_cr_as_lf(body) {
        let prepared = prepare_body(&lf, bom, options)?;
        return Ok(prepared.rebase(body, bom));
    }
    prepare_body(body, bom, options)
}

fn prepare_body<'a>(
    body: &'a str,
    bom: &'a str,
    options: &Options,
) -> Result<Prepared<'a>, InputError> {
    // A BOM after the start is legal in some places and not in others (the parser
    // decides per document); leave it to one tree so both paths cannot disagree.
    if !options.single_tree && !body.contains(BOM) {
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
        Err(e) => (Splices::new(), vec![config_error(e)]),
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
    /// The same run against `original`, of which this run's body was the LF copy.
    fn rebase<'a>(self, original: &'a str, bom: &'a str) -> Prepared<'a> {
        let restore =
            |start: usize, text: &str| yaml::breaks::restore_breaks(original, start, text);
        let mut edits = self.edits;
        edits.map_texts(restore);
        Prepared {
            body: original,
            bom,
            edits,
            results: self.results,
            item_edits: self
                .item_edits
                .into_iter()
                .map(|(s, e, t)| (s, e, restore(s, &t)))
                .collect(),
            stale: self.stale,
            resource_list: self.resource_list,
            exit_code: self.exit_code,
        }
    }

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
/// single-field overrides.
pub(crate) fn configure(
    tree: &Tree<'_>,
    function_config: Option<yaml::NodeId>,
    options: &Options,
) -> Result<Config, config::ConfigError> {
    let mut config = match &options.config_text {
        Some(text) => {
            let file = Tree::parse(text).map_err(|e| config::ConfigError {
                field: None,
                message: format!("the config file is not YAML: {e}"),
            })?;
            let root = file.docs.first().map(|d| d.root);
            Config::from_function_config(&file, root)?
        }
        None => Config::from_function_config(tree, function_config)?,
    };
    config.hash_key = options.hash_key.clone();
    for (field, value) in &options.overrides {
        config
            .set(field, value)
            .map_err(|message| config::ConfigError {
                field: Some(field.clone()),
                message,
            })?;
    }
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
    let lf = yaml::breaks::lone_cr_as_lf(body);
    let body = lf.as_deref().unwrap_or(body);
    let tree = Tree::parse(body)?;
    let items = if stream::is_resource_list(&tree) {
        ResourceList::locate(&tree)?.items
    } else {
        stream::items(&tree)
    };
    Ok(graph::build(&tree, &items))
}
