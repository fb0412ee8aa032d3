//! One way through for every input: split it into chunks; pass 1 indexes the sources and
//! decides renames; pass 2 resolves, renames and stamps chunk by chunk (in parallel),
//! yielding per item its resolutions, findings and splices; one conclusion turns those
//! into the output, the results, `--check`'s stale list and `graph`'s edges.

use std::collections::HashMap;

use rayon::prelude::*;

use crate::edit::stamp::{self, ItemOutcome};
use crate::model::catalog::Catalog;
use crate::model::catalog::SourceKind;
use crate::model::config::Config;
use crate::model::findings::Finding;
use crate::model::invocation::{InputConfig, Invocation, is_package_kptfile};
use crate::model::reference::SourceKey;
use crate::model::resource::{ResourceId, is_local_config};
use crate::model::result::KrmResult;
use crate::read::chunks::{self, Chunk, Coarser, Frame as Frame_, Shape, Split};
use crate::read::input_error::InputError;
use crate::read::resource_list::ResourceList;
use crate::resolve::renames::{self, Decision, RenameId, Renames, Renaming};
use crate::resolve::resolution::{
    self, ItemResolution, Resolution, Resolved, Resolver, SourceEntry, SourceIndex,
};
use crate::run::conclude::{Concluding, Prepared};
use crate::yaml::{Context, NodeId, Splices, Tree};

/// Why an attempt stopped: the input cannot be read, or a chunk must be bigger.
enum Stop {
    Input(InputError),
    Coarser(Coarser),
}

impl From<InputError> for Stop {
    fn from(e: InputError) -> Self {
        Stop::Input(e)
    }
}

/// What the caller needs beyond the output and results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Want {
    /// The output alone: no stale list (writing the output reads none, and a large
    /// input edits most items, whose ids would be held until the end for nothing).
    Output,
    /// `--check`'s stale list too.
    Stale,
    /// A copy of the item edits too, and the stale list.
    Edits,
    /// The resolution too (`graph` and other views).
    Resolution,
}

pub(crate) const BOM: &str = "\u{feff}";

pub(crate) fn strip_bom(input: &str) -> (&str, &str) {
    match input.strip_prefix(BOM) {
        Some(rest) => (BOM, rest),
        None => ("", input),
    }
}

/// The one entry to the pipeline: refuses what YAML refuses, and reads lone CR line
/// breaks through an LF copy whose edits get the original breaks back.
pub(crate) fn prepare_input<'a>(
    input: &'a str,
    invocation: &Invocation,
    want: Want,
) -> Result<Prepared<'a>, InputError> {
    let (bom, body) = strip_bom(input);
    crate::yaml::check_characters(body)?;
    if let Some(lf) = crate::yaml::breaks::lone_cr_as_lf(body) {
        let prepared = prepare(&lf, bom, invocation, want)?;
        return Ok(prepared.rebase(body, bom));
    }
    prepare(body, bom, invocation, want)
}

/// Runs the function.
pub(crate) fn prepare<'a>(
    body: &'a str,
    bom: &'a str,
    invocation: &Invocation,
    want: Want,
) -> Result<Prepared<'a>, InputError> {
    let split = if invocation.one_chunk {
        Split::whole(body, Coarser::Requested)
    } else {
        chunks::split(body)
    };
    match attempt(body, bom, invocation, want, split) {
        Ok(p) => Ok(p),
        Err(Stop::Input(e)) => Err(e),
        Err(Stop::Coarser(why)) => {
            match attempt(body, bom, invocation, want, Split::whole(body, why)) {
                Ok(p) => Ok(p),
                Err(Stop::Input(e)) => Err(e),
                // The whole input is one chunk already: nothing is bigger.
                Err(Stop::Coarser(why)) => Err(InputError {
                    line: 1,
                    column: 1,
                    message: format!("internal error: {why}"),
                    limit: None,
                }),
            }
        }
    }
}

/// A ConfigMap or Secret as pass 1 saw it.
struct SourceSeen {
    kind: SourceKind,
    /// Boxed, to move into the index as it is.
    entry: Box<SourceEntry>,
    decision: Decision,
}

/// What pass 1 learned of one chunk. Kept to 32 bytes (one per chunk, all held until
/// pass 2 starts): a larger table of them, freed, lets the allocator keep more of what
/// follows on its heap, and the whole run's peak memory grows by more than the table.
// `lookalikes` boxes a Vec on purpose: one pointer in every chunk's record, not three.
#[allow(clippy::box_collection)]
enum Pass1 {
    /// Not parsed: no source can be in it.
    Unparsed,
    Parsed {
        sources: Box<[SourceSeen]>,
        /// Objects that look like config-hash's configuration, among plain manifests:
        /// rare, so boxed (no room taken in every chunk's record).
        lookalikes: Option<Box<Vec<KrmResult>>>,
        /// Pass 2 has work here even without renames: a workload, or a kind with
        /// name-reference sites (whether or not it is also a source).
        busy: bool,
    },
}

impl Pass1 {
    /// Whether pass 2 must read the chunk again when nothing is renamed (with renames,
    /// every chunk is read again, for references and stale mentions). A ConfigMap or
    /// Secret alone is read once: its content is in the index, and only a rename edits
    /// it.
    fn busy(&self) -> bool {
        match self {
            Pass1::Unparsed => true,
            Pass1::Parsed { busy, .. } => *busy,
        }
    }
}

/// What pass 2 yields for one item.
#[derive(Default)]
struct ItemReport {
    /// As written (results, graph and --check name it so).
    id: Option<ResourceId>,
    /// The namespace it was placed in (`namespace` of the configuration), when written
    /// without one.
    placed: Option<String>,
    /// In input offsets.
    splices: Splices,
    rename_error: Option<Box<KrmResult>>,
    mentions: Vec<KrmResult>,
    /// The renamed objects this item's references point at.
    pointed: Vec<RenameId>,
    /// Boxed: most items of a large input are not workloads, and the report of each
    /// is kept until the conclusion.
    stamp: Option<Box<ItemOutcome>>,
    /// Name references outside pod specs, for views.
    names: Vec<Resolved>,
    /// What a workload's manifest says about rolling, for views.
    marks: Option<Box<resolution::Marks>>,
}

impl ItemReport {
    fn is_empty(&self) -> bool {
        self.splices.is_empty()
            && self.rename_error.is_none()
            && self.mentions.is_empty()
            && self.pointed.is_empty()
            && self.stamp.is_none()
            && self.names.is_empty()
    }
}

/// How many chunks pass 2 works on before their reports are gathered: enough for every
/// thread to have work, few enough that the reports of a large input never all live
/// at once.
const BATCH: usize = 512;

/// The item reports of pass 2, folded in input order as they arrive.
struct Gathered {
    /// Views asked for the resolution.
    resolution: Option<Resolution>,
    rename_errors: Vec<KrmResult>,
    mentions: Vec<KrmResult>,
    /// References per renamed object: two objects of one name in two namespaces may get
    /// the same hashed name, and each result counts only the references to its object.
    pointed: Vec<usize>,
    item_edits: Splices,
    stale: Vec<ResourceId>,
    stamping: stamp::Finish,
}

impl Gathered {
    fn new(renamed: usize, want_resolution: bool, stamping: stamp::Finish) -> Self {
        Gathered {
            resolution: want_resolution.then(Resolution::default),
            rename_errors: Vec::new(),
            mentions: Vec::new(),
            pointed: vec![0; renamed],
            item_edits: Splices::new(),
            stale: Vec::new(),
            stamping,
        }
    }

    fn add(&mut self, mut r: ItemReport) {
        for &p in &r.pointed {
            self.pointed[Renames::position(p)] += 1;
        }
        if let Some(e) = r.rename_error.take() {
            self.rename_errors.push(*e);
        }
        self.mentions.append(&mut r.mentions);
        let id = r.id.take();
        let edited = !r.splices.is_empty();
        if edited {
            r.splices.append_to(&mut self.item_edits);
        }
        let mut workload = None;
        let mut renamed = None;
        if let Some(mut o) = r.stamp.take() {
            workload = o.resolution.take();
            renamed = o.renamed.take();
            self.stamping.add(*o);
        }
        // Read from where it was placed: an object in that namespace is shown as the
        // object names it, without one.
        if let Some(placed) = r.placed.take() {
            let refs = workload.iter_mut().flat_map(|w| w.references.iter_mut());
            for resolved in refs.chain(r.names.iter_mut()) {
                if resolved.namespace.as_deref() == Some(placed.as_str()) {
                    resolved.namespace = None;
                }
            }
        }
        if let (Some(resolution), Some(id)) = (&mut self.resolution, &id) {
            if workload.is_some() || !r.names.is_empty() {
                // Under the name it has in the output, as the results say.
                resolution.items.push(ItemResolution {
                    id: renamed.unwrap_or_else(|| id.clone()),
                    marks: r.marks.take(),
                    workload,
                    names: std::mem::take(&mut r.names),
                });
            }
        }
        if edited {
            self.stale.extend(id);
        }
    }
}

/// Everything pass 2 reads.
struct Shared<'c> {
    config: &'c Config,
    catalog: &'c Catalog,
    renames: &'c Renames,
    index: &'c SourceIndex,
    /// Objects being renamed: (kind, namespace, name) -> base and new name, borrowed
    /// from the list of renames rather than copied (a large input renames thousands).
    renamed: HashMap<(SourceKind, Option<&'c str>, &'c str), &'c Renaming>,
    /// Keep the resolution for views.
    record: bool,
    /// Report each item's id (for the stale list and the edges).
    ids: bool,
}

/// What holds the items: nothing (a manifest stream), or a ResourceList read from its
/// skeleton (the input without its items) or, when the input is one chunk, from the
/// whole text, whose tree is then that chunk's too.
struct Frame<'t> {
    tree: Option<Tree<'t>>,
    list: Option<ResourceList>,
    /// Where the items were cut out of the input, for a skeleton's tree.
    cut: Option<(usize, usize)>,
    /// The items of the whole input, when the tree is of the whole input.
    whole_items: Option<Vec<NodeId>>,
}

impl<'t> Frame<'t> {
    /// Reads the frame the splitter found. A skeleton that does not read as the
    /// ResourceList it should be makes the input one chunk.
    fn read(
        body: &'t str,
        skeleton: Option<&'t str>,
        split: &Split,
        ctx: Context,
    ) -> Result<Frame<'t>, Stop> {
        let unusual = || {
            Stop::Coarser(Coarser::UnusualList {
                line: 1,
                what: "not separable from the list around them",
            })
        };
        match (&split.frame, skeleton) {
            (Frame_::List { list: cut }, Some(text)) => {
                let tree = Tree::parse(text, ctx).map_err(|_| unusual())?;
                if !crate::read::stream::is_resource_list(&tree) {
                    return Err(Stop::Coarser(Coarser::PossibleResourceList));
                }
                let list = ResourceList::locate(&tree).map_err(|_| unusual())?;
                // The cut must be where the frame's own `items` value was: a line that
                // only looked like `items:` (inside a multi-line quoted scalar, say) would
                // make chunks of text the whole input reads otherwise.
                if !tree.only_separators_after_key(list.root, "items", cut.0)
                    || !list.items.is_empty()
                {
                    return Err(unusual());
                }
                Ok(Frame {
                    tree: Some(tree),
                    list: Some(list),
                    cut: Some(*cut),
                    whole_items: None,
                })
            }
            (Frame_::Whole, _) => {
                let tree = Tree::parse(body, ctx).map_err(InputError::from)?;
                let list = if crate::read::stream::is_resource_list(&tree) {
                    Some(ResourceList::locate(&tree)?)
                } else {
                    None
                };
                let items = match &list {
                    Some(l) => l.items.clone(),
                    None => crate::read::stream::items(&tree),
                };
                Ok(Frame {
                    tree: Some(tree),
                    list,
                    cut: None,
                    whole_items: Some(items),
                })
            }
            _ => Ok(Frame {
                tree: None,
                list: None,
                cut: None,
                whole_items: None,
            }),
        }
    }

    fn is_resource_list(&self) -> bool {
        self.list.is_some()
    }

    /// The ResourceList's functionConfig, unless it is absent or null.
    fn function_config(&self) -> Option<(&Tree<'t>, NodeId)> {
        let (tree, list) = (self.tree.as_ref()?, self.list.as_ref()?);
        let node = list.function_config.filter(|&n| !tree.is_null(n))?;
        Some((tree, node))
    }

    /// Runs `f` on a chunk's tree and items: the whole input's are the frame's own,
    /// every other chunk is parsed here.
    fn with_chunk<R>(
        &self,
        body: &'t str,
        chunk: &Chunk,
        ctx: Context,
        f: impl FnOnce(&Tree<'t>, &[NodeId]) -> R,
    ) -> Result<R, Stop> {
        if let (Shape::Whole, Some(tree), Some(items)) =
            (chunk.shape, &self.tree, &self.whole_items)
        {
            return Ok(f(tree, items));
        }
        let tree = parse_chunk(body, chunk, ctx)?;
        let items = items_of(&tree, chunk)?;
        Ok(f(&tree, &items))
    }

    /// Writes the ResourceList's results where the frame says (nothing for a stream).
    fn write_results(
        &self,
        body: &str,
        splices: &mut Splices,
    ) -> Option<crate::edit::results::ResultsStyle> {
        let (tree, list) = (self.tree.as_ref()?, self.list.as_ref()?);
        let Some((s, e)) = self.cut else {
            return crate::edit::results::write_results(tree, list, splices);
        };
        let end = crate::edit::results::TextEnd::of_cut(tree, list.root, body, s..e);
        let mut in_skeleton = Splices::new();
        let style = crate::edit::results::write_results_before(tree, list, end, &mut in_skeleton);
        in_skeleton.uncut(s..e).append_to(splices);
        style
    }
}

fn attempt<'a>(
    body: &'a str,
    bom: &'a str,
    invocation: &Invocation,
    want: Want,
    split: Split,
) -> Result<Prepared<'a>, Stop> {
    let want_resolution = want == Want::Resolution;
    // Every part of the input is read as the whole would be (JSON or YAML, its line
    // endings), with the whole input's line numbers.
    let ctx = Context::of(body);
    let coarser = split.coarser.clone();
    let skeleton = match split.frame {
        Frame_::List { list: (s, e) } => Some(format!("{}{}", &body[..s], &body[e..])),
        _ => None,
    };
    let frame = Frame::read(body, skeleton.as_deref(), &split, ctx)?;

    // The configuration. The Kptfile a ResourceList carries is read only when nothing
    // else configures the run, and only the chunks that can hold it are parsed for it.
    let parsed_kptfile;
    let input_config = match (frame.function_config(), &frame.tree, &frame.whole_items) {
        (Some((tree, node)), _, _) => InputConfig::FunctionConfig(tree, node),
        _ if !frame.is_resource_list() || !invocation.reads_input_config() => InputConfig::None,
        (None, Some(tree), Some(items)) => items
            .iter()
            .find(|&&item| is_package_kptfile(tree, item))
            .map_or(InputConfig::None, |&item| InputConfig::Kptfile(tree, item)),
        (None, _, _) => {
            parsed_kptfile = kptfile_chunk(body, &split.chunks, ctx)?;
            match &parsed_kptfile {
                Some((tree, item)) => InputConfig::Kptfile(tree, *item),
                None => InputConfig::None,
            }
        }
    };
    let settings = match invocation.settings(input_config) {
        Ok(settings) => settings,
        Err(errors) => {
            // Nothing is stamped and the results say why, unless an item cannot be read:
            // that is reported first, as always (a chunk that does not read makes the
            // input one chunk, which words the error).
            split
                .chunks
                .par_iter()
                .try_for_each(|chunk| frame.with_chunk(body, chunk, ctx, |_, _| ()))?;
            return Ok(finish_with_config_errors(
                body, bom, &frame, errors, coarser,
            ));
        }
    };
    let (config, catalog) = (&settings.config, &settings.catalog);

    // Pass 1: the sources' content and rename decisions.
    let prefilter = catalog.prefilter_kinds();
    let pass1: Vec<Pass1> = split
        .chunks
        .par_iter()
        .map(|chunk| {
            let text = &body[chunk.start..chunk.end];
            if !chunks::may_matter_before_stamping(text, &prefilter) {
                return Ok(Pass1::Unparsed);
            }
            frame.with_chunk(body, chunk, ctx, |tree, items| {
                let stream = !frame.is_resource_list();
                first_pass(tree, items, config, catalog, stream, want_resolution)
            })
        })
        .collect::<Result<_, Stop>>()?;

    // Between the passes: renames, then the index under final names.
    let Indexed {
        renames,
        renamed_list,
        mut index,
        mut results,
        duplicates,
        generated,
        busy,
    } = index_sources(pass1);
    let renamed: HashMap<(SourceKind, Option<&str>, &str), &Renaming> = renamed_list
        .iter()
        .map(|(key, r)| ((key.kind, key.namespace.as_deref(), key.name.as_str()), r))
        .collect();

    // Pass 2: every chunk that has work, against the complete index.
    let shared = Shared {
        config,
        catalog,
        renames: &renames,
        index: &index,
        renamed,
        record: want_resolution,
        ids: want != Want::Output,
    };
    let everything = !renames.is_empty();
    let stamping = stamp::Finish::new(duplicates, index.unreadable());
    let renamed_sources: Vec<resolution::RenamedSource> = if want_resolution {
        renamed_list
            .iter()
            .map(|(key, r)| resolution::RenamedSource {
                kind: key.kind,
                namespace: key.namespace.clone(),
                base: r.base.clone(),
                name: r.new_name.clone(),
            })
            .collect()
    } else {
        Vec::new()
    };
    let mut gathered = Gathered::new(renames.len(), want_resolution, stamping);
    // In batches of chunks, each batch's reports gathered before the next starts.
    for (chunks, busy) in split.chunks.chunks(BATCH).zip(busy.chunks(BATCH)) {
        let reports: Vec<Vec<ItemReport>> = chunks
            .par_iter()
            .zip(busy.par_iter())
            .map(|(chunk, &busy)| {
                // Without renames, an item that is neither a workload nor has name
                // sites yields no report (not even for views): its chunk is not read.
                if !busy && !everything {
                    return Ok(Vec::new());
                }
                frame.with_chunk(body, chunk, ctx, |tree, items| {
                    second_pass(tree, items, chunk.start, &shared)
                })
            })
            .collect::<Result<_, Stop>>()?;
        for r in reports.into_iter().flatten() {
            gathered.add(r);
        }
    }

    // Conclusion: results in a fixed order, edits, stale list, edges.
    drop(shared);
    drop(renames);
    let Gathered {
        rename_errors,
        mentions,
        pointed,
        item_edits,
        stale,
        stamping,
        resolution,
        ..
    } = gathered;
    results.extend(rename_errors);
    results.extend(mentions);
    // What the results need of the index is taken out of it, and the rest dropped, as
    // the renames were: nothing reads them any more, and their memory is free for what
    // follows.
    results.extend(
        renamed_list
            .into_iter()
            .zip(&pointed)
            .filter_map(|((key, r), &n)| {
                let key = SourceKey {
                    name: r.new_name.clone(),
                    ..key
                };
                // Views keep the index: the result gets a copy.
                let source = if want_resolution {
                    Box::new(index.get(&key)?.clone())
                } else {
                    index.take(&key)?
                };
                Some(source.into_renamed_result(r, n))
            }),
    );
    let resolution = match resolution {
        Some(mut r) => {
            r.sources = index;
            r.renamed = renamed_sources;
            Some(r)
        }
        None => {
            drop(index);
            None
        }
    };
    if generated > 0 {
        results.push(KrmResult::new(Finding::Generated { count: generated }));
    }
    results.extend(stamping.results());

    let mut prepared = crate::run::conclude::conclude(
        Concluding {
            body,
            bom,
            item_edits,
            results,
            resource_list: frame.is_resource_list(),
            keep_edits: want == Want::Edits,
        },
        |edited| if edited { stale } else { Vec::new() },
        |splices: &mut Splices| frame.write_results(body, splices),
    );
    prepared.coarser = coarser;
    prepared.resolution = resolution.unwrap_or_default();
    Ok(prepared)
}

/// A run that stops at configuration errors: no edits, the errors as results.
fn finish_with_config_errors<'a>(
    body: &'a str,
    bom: &'a str,
    frame: &Frame<'_>,
    errors: Vec<crate::model::config::ConfigError>,
    coarser: Vec<Coarser>,
) -> Prepared<'a> {
    let mut prepared = crate::run::conclude::conclude(
        Concluding {
            body,
            bom,
            item_edits: Splices::new(),
            results: errors
                .into_iter()
                .map(crate::run::conclude::config_error)
                .collect(),
            resource_list: frame.is_resource_list(),
            keep_edits: false,
        },
        |_| Vec::new(),
        |splices: &mut Splices| frame.write_results(body, splices),
    );
    prepared.coarser = coarser;
    prepared
}

/// What the passes share once pass 1 is done.
struct Indexed {
    renames: Renames,
    /// The objects renamed, by their key in the input, in input order.
    renamed_list: Vec<(SourceKey, Renaming)>,
    /// Every source under its final name.
    index: SourceIndex,
    /// The first results: configuration look-alikes, then renames refused.
    results: Vec<KrmResult>,
    /// Sources that appear more than once.
    duplicates: Vec<KrmResult>,
    /// Objects kustomize's generators made, which keep their names here.
    generated: usize,
    /// Per chunk: pass 2 has work there even without renames.
    busy: Vec<bool>,
}

/// Between the passes: decides the renames, then indexes every source under its final
/// name.
fn index_sources(mut pass1: Vec<Pass1>) -> Indexed {
    let mut renames = Renames::default();
    let mut results = Vec::new();
    for p in &mut pass1 {
        if let Pass1::Parsed {
            lookalikes: Some(lookalikes),
            ..
        } = p
        {
            results.append(lookalikes);
        }
    }
    let mut renamed_list: Vec<(SourceKey, Renaming)> = Vec::new();
    let mut generated = 0usize;
    for p in &mut pass1 {
        let Pass1::Parsed { sources, .. } = p else {
            continue;
        };
        for s in sources {
            let id = &s.entry.id;
            // Taken, not copied: nothing after this reads a decision.
            match std::mem::replace(&mut s.decision, Decision::Keep) {
                Decision::Keep => {}
                Decision::Generated {
                    name_after_build,
                    opted_in,
                } => {
                    generated += usize::from(opted_in);
                    renames.add_after_build(s.kind, id.namespace(), id.name(), &name_after_build);
                }
                Decision::Refused(r) => results.push(*r),
                Decision::Rename(r) => {
                    renames.add(s.kind, id.namespace(), id.name(), &r.base, &r.new_name);
                    renamed_list.push((SourceKey::new(s.kind, id.namespace(), id.name()), *r));
                }
            }
        }
    }
    // Existing objects matter only to renaming (never taken for an earlier suffixed name).
    if !renames.is_empty() {
        for p in &pass1 {
            if let Pass1::Parsed { sources, .. } = p {
                for s in sources {
                    renames.add_existing(s.kind, s.entry.id.namespace(), s.entry.id.name());
                }
            }
        }
    }
    let mut index = SourceIndex::default();
    let mut duplicates = Vec::new();
    let mut busy = Vec::with_capacity(pass1.len());
    for p in pass1 {
        busy.push(p.busy());
        match p {
            Pass1::Unparsed => {}
            Pass1::Parsed { sources, .. } => {
                for s in sources {
                    let id = &s.entry.id;
                    let name = renames
                        .final_name(s.kind, id.namespace(), id.name())
                        .unwrap_or(id.name())
                        .to_string();
                    let key = SourceKey::new(s.kind, id.namespace(), &name);
                    if let Err(dup) = index.insert(key, s.entry) {
                        duplicates.push(*dup);
                    }
                }
            }
        }
    }
    Indexed {
        renames,
        renamed_list,
        index,
        results,
        duplicates,
        generated,
        busy,
    }
}

/// The package's Kptfile among the items of a ResourceList cut into chunks, if any:
/// only chunks whose text names a Kptfile are parsed for it.
fn kptfile_chunk<'a>(
    body: &'a str,
    chunks: &[Chunk],
    ctx: Context,
) -> Result<Option<(Tree<'a>, NodeId)>, Stop> {
    for chunk in chunks {
        if !body[chunk.start..chunk.end].contains("Kptfile") {
            continue;
        }
        let tree = parse_chunk(body, chunk, ctx)?;
        let items = items_of(&tree, chunk)?;
        if let Some(&item) = items.iter().find(|&&i| is_package_kptfile(&tree, i)) {
            return Ok(Some((tree, item)));
        }
    }
    Ok(None)
}

/// Parses one chunk; a chunk that does not parse makes the whole input one chunk, which
/// reports the error as the whole input's.
fn parse_chunk<'a>(body: &'a str, chunk: &Chunk, ctx: Context) -> Result<Tree<'a>, Stop> {
    Tree::parse(&body[chunk.start..chunk.end], ctx.at_line(chunk.line_base)).map_err(|_| {
        Stop::Coarser(Coarser::ChunkUnreadable {
            line: chunk.line_base + 1,
        })
    })
}

/// The items of a chunk's tree, or a reason to read the input whole.
fn items_of(tree: &Tree<'_>, chunk: &Chunk) -> Result<Vec<NodeId>, Stop> {
    let unreadable = || {
        Stop::Coarser(Coarser::ChunkUnreadable {
            line: chunk.line_base + 1,
        })
    };
    let items: Vec<NodeId> = match (chunk.shape, tree.documents()) {
        (Shape::Documents, _) => return Ok(crate::read::stream::items(tree)),
        // A chunk of entries starts at a dash at the entries' column, so it reads as one
        // block sequence (a root of another kind has no items here); a JSON item starts
        // at its opening brace, so it reads as one mapping.
        (Shape::Entries, [doc]) => tree.items(doc.root()).collect(),
        (Shape::Node, [doc]) => vec![doc.root()],
        _ => return Err(unreadable()),
    };
    // Every item must be a resource: one that is not is refused by the whole read.
    if items.is_empty() || !items.iter().all(|&i| tree.is_map(i)) {
        return Err(unreadable());
    }
    Ok(items)
}

/// Pass 1 over the items of one tree; `stream`: they are plain manifests; `views`: the
/// resolution is kept, with what only views read.
fn first_pass(
    tree: &Tree<'_>,
    items: &[NodeId],
    config: &Config,
    catalog: &Catalog,
    stream: bool,
    views: bool,
) -> Pass1 {
    let mut sources = Vec::new();
    let mut lookalikes = Vec::new();
    let mut busy = false;
    for &item in items {
        if stream && crate::model::config::looks_like_function_config(tree, item) {
            lookalikes.push(KrmResult::new(Finding::ConfigAmongManifests).about(tree, item));
        }
        if is_local_config(tree, item) {
            continue;
        }
        let id = placed(ResourceId::of(tree, item), config);
        // Whatever else it is (a catalog may declare any kind a workload).
        busy |= catalog.workload(id.api_version(), id.kind()).is_some()
            || catalog.has_name_sites(id.api_version(), id.kind());
        if let Some(kind) = SourceKind::from_kind(id.api_version(), id.kind()) {
            let decision = renames::decide(tree, item, &id, kind, config);
            let mut entry = Box::new(SourceEntry::read(tree, item, id, kind));
            if views {
                entry.hashed_name = resolution::hashed_name(tree, item, entry.id.name());
            }
            sources.push(SourceSeen {
                kind,
                entry,
                decision,
            });
        } else if catalog
            .producers_for(id.api_version(), id.kind())
            .next()
            .is_some()
        {
            for p in catalog.producers_for(id.api_version(), id.kind()) {
                for made in crate::read::produced::read(tree, item, &id, p) {
                    let kind = made.kind;
                    let mut entry =
                        Box::new(SourceEntry::produced(tree, item, &id, made, p.runtime));
                    if views {
                        entry.hashed_name = resolution::hashed_name(tree, item, entry.id.name());
                    }
                    sources.push(SourceSeen {
                        kind,
                        entry,
                        decision: Decision::Keep,
                    });
                }
            }
        }
    }
    // Most chunks hold one item: no spare capacity for the whole run.
    Pass1::Parsed {
        sources: sources.into_boxed_slice(),
        lookalikes: (!lookalikes.is_empty()).then(|| Box::new(lookalikes)),
        busy,
    }
}

/// Whether the edit `s..e` lies inside one of `replaced` (sorted, disjoint ranges a
/// stamp replaces whole) without being that range itself: such an edit (the rename of a
/// name inside a `__data` reference the stamp rewrites) is moot, and applying both would
/// overlap. Only the last range starting at or before `s` can hold it.
fn within_a_replaced_range(replaced: &[(usize, usize)], s: usize, e: usize) -> bool {
    let at = replaced.partition_point(|&(a, _)| a <= s);
    at > 0 && {
        let (a, b) = replaced[at - 1];
        e <= b && (s, e) != (a, b)
    }
}

/// The object as installed: written without a namespace, a namespaced object lands in
/// the one the configuration names (Helm's release namespace, `kubectl apply -n`), so it
/// is resolved there.
fn placed(id: ResourceId, config: &Config) -> ResourceId {
    match &config.namespace {
        Some(ns)
            if id.namespace().is_none()
                && !crate::model::catalog::CLUSTER_SCOPED.contains(&id.kind()) =>
        {
            id.with_namespace(Some(ns))
        }
        _ => id,
    }
}

/// Pass 2 over the items of one tree whose text starts at `offset` in the input.
fn second_pass(
    tree: &Tree<'_>,
    items: &[NodeId],
    offset: usize,
    shared: &Shared<'_>,
) -> Vec<ItemReport> {
    let mut out = Vec::new();
    for &item in items {
        let mut report = second_pass_item(tree, item, shared);
        if !report.is_empty() {
            if offset > 0 {
                report.splices = std::mem::take(&mut report.splices).map_positions(|p| p + offset);
            }
            out.push(report);
        }
    }
    // Most chunks hold one item: no spare capacity kept for the rest of the run.
    out.shrink_to_fit();
    out
}

fn second_pass_item(tree: &Tree<'_>, item: NodeId, shared: &Shared<'_>) -> ItemReport {
    let mut report = ItemReport::default();
    if is_local_config(tree, item) {
        return report;
    }
    let id = placed(ResourceId::of(tree, item), shared.config);
    let catalog = shared.catalog;
    let mut renamed_here = false;
    if let Some(kind) = SourceKind::from_kind(id.api_version(), id.kind()) {
        let key = (kind, id.namespace(), id.name());
        if let Some(r) = shared.renamed.get(&key) {
            renamed_here = true;
            match renames::rename_object(tree, item, &id, &r.base, &r.new_name, shared.config) {
                Ok(splices) => splices.append_to(&mut report.splices),
                Err(r) => report.rename_error = Some(r),
            }
        }
    }
    if !shared.renames.is_empty() {
        let (mut rewritten, pointed, ambiguous) = renames::rewrite_references(
            tree,
            item,
            &id,
            catalog,
            shared.renames,
            &mut report.splices,
        );
        report.pointed = pointed;
        // Annotation reference sites name base names, which resolve to the renamed
        // objects: known fields, not stale mentions.
        if let Some(annotations) = tree.get_path(item, &["metadata", "annotations"]) {
            rewritten.extend(
                catalog
                    .annotation_sites
                    .iter()
                    .filter_map(|site| tree.get(annotations, &site.key)),
            );
        }
        report.mentions = ambiguous;
        if !renamed_here {
            report.mentions.extend(renames::warn_unknown_mentions(
                tree,
                shared.config,
                catalog,
                item,
                &id,
                shared.renames,
                &rewritten,
            ));
        }
    }
    let resolver = Resolver {
        index: shared.index,
        renames: shared.renames,
    };
    if shared.record && catalog.has_name_sites(id.api_version(), id.kind()) {
        report.names = resolution::resolve_names(tree, item, &id, catalog, resolver);
    }
    if let Some(kind) = catalog.workload(id.api_version(), id.kind()) {
        if shared.record {
            report.marks = Some(Box::new(crate::resolve::rollout::marks(
                tree,
                item,
                &id,
                kind,
                shared.config,
            )));
        }
        let ctx = resolution::Context {
            config: shared.config,
            catalog,
            resolver,
            record: shared.record,
        };
        if let Some(mut o) = stamp::stamp_item(tree, item, &id, kind, &ctx) {
            // A stamp that replaces a whole reference (`__data` becoming a value) makes
            // the rename of the name inside it moot.
            let replaced: Vec<(usize, usize)> = o
                .splices
                .edits()
                .into_iter()
                .filter(|(s, e, _)| e > s)
                .map(|(s, e, _)| (s, e))
                .collect();
            if !replaced.is_empty() && !report.splices.is_empty() {
                let mut kept = Splices::new();
                let mut moot: HashMap<String, usize> = HashMap::new();
                for (s, e, text) in report.splices.edits() {
                    if !within_a_replaced_range(&replaced, s, e) {
                        kept.replace(s, e, text);
                    } else {
                        // Nor does that reference point at the renamed object any more.
                        let name = text.trim_matches(|c| c == '"' || c == '\'');
                        *moot.entry(name.to_string()).or_default() += 1;
                    }
                }
                if !moot.is_empty() {
                    let renames = shared.renames;
                    report
                        .pointed
                        .retain(|&p| match moot.get_mut(renames.final_of(p)) {
                            Some(n) if *n > 0 => {
                                *n -= 1;
                                false
                            }
                            _ => true,
                        });
                }
                report.splices = kept;
            }
            std::mem::take(&mut o.splices).append_to(&mut report.splices);
            o.notes.shrink_to_fit();
            report.stamp = Some(Box::new(o));
        }
    }
    if shared.ids {
        // Read again only when it may have been placed.
        let written = match &shared.config.namespace {
            Some(_) => {
                let written = ResourceId::of(tree, item);
                if written.namespace().is_none() {
                    report.placed = id.namespace().map(str::to_string);
                }
                written
            }
            None => id,
        };
        report.id = Some(written);
    }
    report
}

#[cfg(test)]
mod tests {
    use crate::model::findings::Severity;
    use crate::{Invocation, graph, run};

    #[test]
    fn only_an_edit_strictly_inside_a_replaced_range_is_moot() {
        use super::within_a_replaced_range;
        let replaced = [(10, 20), (30, 40)];
        for (s, e, moot) in [
            (12, 15, true),  // inside the first
            (10, 14, true),  // from its start
            (15, 20, true),  // to its end
            (10, 20, false), // the range itself: the stamp's own edit
            (15, 25, false), // running out of it
            (5, 12, false),  // starting before it
            (25, 28, false), // between the ranges
            (31, 39, true),  // inside the second
            (0, 0, false),   // before every range
        ] {
            assert_eq!(within_a_replaced_range(&replaced, s, e), moot, "{s}..{e}");
        }
    }

    const LIST: &str = "apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata: {name: cfg, annotations: {config-hash.dev/name-suffix: 'true'}}
  data: {A: '1'}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web}
  spec:
    template:
      spec:
        containers:
        - name: app
          envFrom: [{configMapRef: {name: cfg}}]
          args: [--config, cfg]
";

    /// Runs `text` with no options, expecting success with every item read alone.
    fn read_apart(text: &str) -> crate::Outcome {
        let out = run(text, &Invocation::default()).unwrap();
        assert_eq!(out.exit_code, 0, "{:?}", out.results);
        assert!(out.coarser.is_empty(), "{:?}", out.coarser);
        out
    }

    #[test]
    fn renames_rewrites_and_stamps_in_one_pass_per_chunk() {
        let out = read_apart(LIST);
        let at = out
            .output
            .find("name: cfg-")
            .expect("the ConfigMap is renamed")
            + 6;
        let new_name = &out.output[at..at + "cfg-".len() + 10];
        assert!(
            out.output
                .contains(&format!("name: {new_name}, annotations")),
            "{}",
            out.output
        );
        assert!(
            out.output
                .contains(&format!("configMapRef: {{name: {new_name}}}"))
        );
        // The item edits are the whole change to the items: applied to the input, they
        // give the output up to its results.
        let mut edits = out.item_edits.clone();
        assert!(!edits.is_empty());
        edits.sort_by_key(|&(start, _, _)| std::cmp::Reverse(start));
        let mut edited = LIST.to_string();
        for (start, end, text) in edits {
            edited.replace_range(start..end, &text);
        }
        assert_eq!(out.output.split("results:").next(), Some(edited.as_str()));
        // Both items were edited, so both are stale before the run and neither after.
        let stale: Vec<String> = out.stale.iter().map(ToString::to_string).collect();
        assert_eq!(stale, ["ConfigMap cfg", "Deployment web"]);
        assert!(
            run(&out.output, &Invocation::default())
                .unwrap()
                .stale
                .is_empty()
        );
        // Results, in their fixed order: the old name left in args, the rename, the stamp.
        let messages: Vec<(&Severity, String)> = out
            .results
            .iter()
            .map(|r| (&r.severity, r.message()))
            .collect();
        assert_eq!(messages.len(), 4, "{messages:?}");
        assert_eq!(messages[0].0, &Severity::Warning);
        assert!(
            messages[0]
                .1
                .contains("spec.template.spec.containers[0].args[1] is \"cfg\""),
            "{messages:?}"
        );
        assert!(
            messages[1]
                .1
                .contains("hashed name for base name cfg (1 reference(s)"),
            "{messages:?}"
        );
        assert!(
            messages[2].1.starts_with("Deployment web: annotation"),
            "{messages:?}"
        );
        assert!(
            messages[3]
                .1
                .starts_with("config-hash: 1 workload(s) stamped"),
            "{messages:?}"
        );
    }

    /// A JSON ResourceList is cut into its items like a YAML one, each read alone.
    #[test]
    fn a_json_resource_list_is_read_item_by_item() {
        let json = "{\"apiVersion\": \"config.kubernetes.io/v1\", \"kind\": \"ResourceList\", \"items\": [\n{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"a\"}, \"data\": {\"A\": \"1\"}},\n{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"b\"}}\n]}\n";
        read_apart(json);
    }

    /// A plain stream is cut into its documents, each read alone, and a document that
    /// looks like config-hash's own configuration is warned about from its chunk.
    #[test]
    fn a_stream_is_read_document_by_document_and_a_config_lookalike_warned() {
        let stream = "apiVersion: config-hash.dev/v1alpha1\nkind: ConfigHash\nmetadata: {name: c}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {A: '1'}\n";
        let out = read_apart(stream);
        assert!(
            out.results.iter().any(|r| matches!(
                *r.finding,
                crate::model::findings::Finding::ConfigAmongManifests
            )),
            "{:?}",
            out.results
        );
    }

    /// `--debug` says why chunks were bigger than one item, also when the run stops at
    /// configuration errors.
    #[test]
    fn why_chunks_were_coarser_reaches_the_outcome() {
        let shared = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n  data: &d {A: '1'}\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: b}\n  data: *d\n";
        let bad_config = format!(
            "{shared}functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {{name: c}}\n  data: {{mode: sometimes}}\n"
        );
        for (input, exit_code) in [(shared, 0), (bad_config.as_str(), 1)] {
            let out = run(input, &Invocation::default()).unwrap();
            assert_eq!(out.exit_code, exit_code, "{:?}", out.results);
            assert!(
                matches!(
                    out.coarser[..],
                    [crate::read::chunks::Coarser::SharedAnchor { .. }]
                ),
                "{:?}",
                out.coarser
            );
        }
    }

    /// With a namespace for objects written without one, a workload placed there shows
    /// its references as it names them (without a namespace), as it reads in the input;
    /// a workload written with its own namespace keeps it.
    #[test]
    fn references_of_a_placed_workload_read_as_written() {
        let stream = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {A: '1'}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: placed}\nspec: {template: {spec: {containers: [{name: c, envFrom: [{configMapRef: {name: cfg}}]}]}}}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: own, namespace: prod}\nspec: {template: {spec: {containers: [{name: c, envFrom: [{configMapRef: {name: cfg}}]}]}}}\n";
        let mut invocation = Invocation::default();
        invocation.overrides.namespace = Some("prod".into());
        let resolution = crate::resolve(stream, &invocation).unwrap();
        let namespaces: Vec<(&str, Option<&str>, crate::model::reference::Status)> = resolution
            .items
            .iter()
            .flat_map(|item| {
                let refs = &item.workload.as_ref().unwrap().references;
                refs.iter()
                    .map(|r| (item.id.name(), r.namespace.as_deref(), r.status.clone()))
            })
            .collect();
        assert_eq!(
            namespaces,
            [
                ("placed", None, crate::model::reference::Status::Found),
                ("own", Some("prod"), crate::model::reference::Status::Found)
            ]
        );
    }

    #[test]
    fn graph_resolves_base_names_like_stamping() {
        // After a render with suffixes, a new Deployment reads the base name.
        let rendered = run(LIST, &Invocation::default()).unwrap().output;
        let added = rendered.replace(
            "- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: web}",
            "- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: new}\n  spec: {template: {spec: {containers: [{name: c, envFrom: [{configMapRef: {name: cfg}}]}]}}}\n- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: web}",
        );
        let edges = graph(&added, &Invocation::default()).unwrap();
        let new = edges.iter().find(|e| e.workload.name() == "new").unwrap();
        assert!(
            rendered.contains(&format!("name: {}, annotations", new.name)),
            "{}",
            new.name
        );
        assert_eq!(new.status, crate::views::graph::Status::Found);
        // And --check agrees that the new Deployment is out of date.
        let stale: Vec<String> = run(&added, &Invocation::default())
            .unwrap()
            .stale
            .iter()
            .map(|id| id.name().to_string())
            .collect();
        assert_eq!(stale, ["new"]);
    }

    #[test]
    fn a_paragraph_separator_before_the_first_key_is_a_line_break() {
        // Found by the fuzz smoke: go-yaml breaks the line at U+2029, so the key after
        // it is at column 0 and so are the results.
        let text = format!("\u{2029}{LIST}");
        let out = run(&text, &Invocation::default()).unwrap();
        assert!(out.output.contains("\nresults:\n"), "{}", out.output);
        assert!(crate::yaml::parse(&out.output).is_ok(), "{}", out.output);
    }

    #[test]
    fn a_second_byte_order_mark_is_not_indentation() {
        // Found by the fuzz target: results were written at column 1, so the output
        // did not parse.
        let text = format!("\u{feff}\u{feff}{LIST}");
        let out = run(&text, &Invocation::default()).unwrap();
        assert!(out.output.contains("\nresults:\n"), "{}", out.output);
        let body = out.output.trim_start_matches('\u{feff}');
        assert!(crate::yaml::parse(body).is_ok(), "{}", out.output);
    }

    #[test]
    fn an_opted_in_job_is_renamed_by_config_and_template_and_stays_put_on_its_output() {
        let input = "kind: ResourceList
items:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: c}, data: {A: '1'}}
- apiVersion: batch/v1
  kind: Job
  metadata: {name: j, annotations: {config-hash.dev/name-suffix: 'true'}}
  spec: {template: {spec: {containers: [{name: a, image: 'x:1', envFrom: [{configMapRef: {name: c}}]}]}}}
";
        let name = |out: &str| {
            let at = out.find("name: j-").expect("the Job is renamed") + 6;
            out[at..at + 12].to_string()
        };
        let first = run(input, &Invocation::default()).unwrap().output;
        let j = name(&first);
        assert!(j.chars().skip(2).all(|c| c.is_ascii_alphanumeric()), "{j}");
        // Its own output keeps the name (the base name is recorded).
        let again = run(&first, &Invocation::default()).unwrap();
        assert_eq!(again.output, first);
        assert!(again.stale.is_empty());
        // A config change, or an image change, gives a new name; the base stays.
        let config = run(&first.replace("A: '1'", "A: '2'"), &Invocation::default()).unwrap();
        assert_ne!(name(&config.output), j);
        let image = run(&first.replace("x:1", "x:2"), &Invocation::default()).unwrap();
        assert_ne!(name(&image.output), j);
        assert_ne!(name(&image.output), name(&config.output));
        // Mode both: the env var does not feed its own name.
        let both = Invocation {
            config_text: Some(
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: f}\ndata: {mode: both}\n".into(),
            ),
            ..Invocation::default()
        };
        let out = run(input, &both).unwrap().output;
        assert_eq!(run(&out, &both).unwrap().output, out);
    }

    #[test]
    fn configuration_errors_are_results_unless_an_item_cannot_be_read() {
        let bad = "kind: ResourceList\nfunctionConfig: {apiVersion: v1, kind: ConfigMap, data: {mode: sideways}}\nitems:\n- {kind: ConfigMap, metadata: {name: a}}\n- {kind: ConfigMap, metadata: {name: b}}\n";
        let out = run(bad, &Invocation::default()).unwrap();
        assert_eq!(out.exit_code, 1);
        assert!(out.resource_list);
        assert!(out.item_edits.is_empty());
        assert!(
            out.results[0]
                .message()
                .contains("\"sideways\" is not accepted"),
            "{:?}",
            out.results
        );
        // Read item by item: the configuration alone does not make the input one chunk.
        assert!(out.coarser.is_empty(), "{:?}", out.coarser);
        // An item that cannot be read is the error, as with a good configuration.
        let unreadable = bad.replace("{name: b}}", "{name: [b}}");
        let good = unreadable.replace("sideways", "env");
        assert_eq!(
            run(&unreadable, &Invocation::default()).unwrap_err(),
            run(&good, &Invocation::default()).unwrap_err()
        );
    }

    /// A chunk that does not read alone as the items expected makes the input one chunk,
    /// and `--debug` names the chunk's first line: an alias of an anchor outside the
    /// items, and an entry that is the rest of a quoted scalar continued at column 0 (as
    /// go-yaml reads it; the item before it is read in pass 2 only, after this one).
    #[test]
    fn a_chunk_that_does_not_read_alone_is_named_by_its_line() {
        use crate::read::chunks::Coarser;
        let alias = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nx: &d {A: '1'}\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: a}\n  data: {B: '2'}\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: b}\n  data: *d\n";
        let quoted = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: Service\n  metadata: {name: a, annotations: {note: \"x\n- y ConfigMap\"}}\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: b}\n";
        for (input, line) in [(alias, 9), (quoted, 7)] {
            let out = run(input, &Invocation::default()).unwrap();
            assert_eq!(out.exit_code, 0, "{:?}", out.results);
            assert_eq!(out.coarser, [Coarser::ChunkUnreadable { line }]);
            let whole = Invocation {
                one_chunk: true,
                ..Invocation::default()
            };
            assert_eq!(out.output, run(input, &whole).unwrap().output);
        }
    }

    /// An `items:` line inside a quoted scalar is not the list, though the list it does
    /// have is empty: the items cut at that line are no items of the ResourceList, and
    /// the Deployment in the scalar is not stamped.
    #[test]
    fn an_items_line_inside_a_quoted_scalar_is_not_the_list() {
        let input = "kind: ResourceList\nitems: []\nnote: \"a\nitems:\n- {apiVersion: apps/v1, kind: Deployment, metadata: {name: w}, spec: {template: {spec: {containers: [{name: c}]}}}}\nb\"\n";
        let out = run(input, &Invocation::default()).unwrap();
        assert_eq!(out.exit_code, 0, "{:?}", out.results);
        assert!(
            matches!(
                out.coarser[..],
                [crate::read::chunks::Coarser::UnusualList { .. }]
            ),
            "{:?}",
            out.coarser
        );
        assert!(out.item_edits.is_empty(), "{:?}", out.item_edits);
        assert!(out.output.starts_with(input), "{}", out.output);
    }

    #[test]
    fn pass_two_reads_again_only_chunks_it_may_edit() {
        let config = crate::model::config::Config::default();
        let catalog = crate::model::catalog::Catalog::builtin();
        let busy = |text: &str| {
            let tree = crate::yaml::parse(text).unwrap();
            let root = tree.documents()[0].root();
            super::first_pass(&tree, &[root], &config, &catalog, false, false).busy()
        };
        // Its content is in the index; only a rename (which reads every chunk) edits it.
        assert!(!busy(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n"
        ));
        assert!(!busy(
            "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {a: Yg==}\n"
        ));
        assert!(!busy(
            "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n"
        ));
        assert!(busy(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {template: {spec: {containers: []}}}\n"
        ));
    }

    #[test]
    fn a_chunk_that_does_not_read_makes_the_input_one_chunk_with_the_same_error() {
        let bad = "kind: ResourceList\nitems:\n- a: [1\n- b: 2\n";
        let chunked = run(bad, &Invocation::default()).unwrap_err();
        let whole = run(
            bad,
            &Invocation {
                one_chunk: true,
                ..Invocation::default()
            },
        )
        .unwrap_err();
        assert_eq!(chunked, whole);
    }
}
