//! Pass 2: per chunk, against the complete index, each item's renames, rewritten
//! references, resolution and stamp, gathered in input order as they arrive.

use std::collections::HashMap;

use rayon::prelude::*;

use crate::edit::stamp::{self, ItemOutcome};
use crate::model::catalog::{Catalog, SourceKind};
use crate::model::config::Config;
use crate::model::resource::{ResourceId, is_local_config};
use crate::model::result::KrmResult;
use crate::read::chunks::Chunk;
use crate::resolve::names;
use crate::resolve::renames::{RenameId, Renames, Renaming};
use crate::resolve::resolution::{self, ItemResolution, Resolution, Resolved};
use crate::resolve::sources::{Resolver, SourceIndex};
use crate::resolve::workload;
use crate::run::frame::{Frame, Stop};
use crate::run::pass1::{OwnRename, Work};
use crate::yaml::{Context, NodeId, Piece, Splices, Tree};

/// What pass 2 yields for one item.
#[derive(Default)]
pub(crate) struct ItemReport {
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
pub(crate) struct Gathered {
    /// Views asked for the resolution.
    pub(crate) resolution: Option<Resolution>,
    pub(crate) rename_errors: Vec<KrmResult>,
    pub(crate) mentions: Vec<KrmResult>,
    /// References per renamed object: two objects of one name in two namespaces may get
    /// the same hashed name, and each result counts only the references to its object.
    pub(crate) pointed: Vec<usize>,
    pub(crate) item_edits: Splices,
    pub(crate) stale: Vec<ResourceId>,
    pub(crate) stamping: stamp::Finish,
}

impl Gathered {
    pub(crate) fn new(renamed: usize, want_resolution: bool, stamping: stamp::Finish) -> Self {
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

    /// Adds an object of a settled chunk, the text of `piece` of the input: what
    /// [`Gathered::add`] would of the report [`second_pass`] would give, from what pass 1
    /// made, leaving its edits where they are.
    fn add_settled(&mut self, own: &mut OwnRename, piece: Piece) {
        match &mut own.edits {
            Ok(splices) if !splices.is_empty() => {
                if self.resolution.is_none() {
                    let shifted = piece.shift(std::mem::take(splices));
                    shifted.copy_to(&mut self.item_edits);
                    *splices = shifted;
                }
                // The id is there when pass 2 reports ids; views keep no stale list.
                if self.resolution.is_none() {
                    self.stale.extend(own.id.take());
                }
            }
            Ok(_) => {}
            Err(r) => self.rename_errors.push((**r).clone()),
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
        // Views write no output: the edits are not kept for them.
        if edited && self.resolution.is_none() {
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
        match (&mut self.resolution, id) {
            // Views read the resolution, never the stale list: the id moves into it.
            (Some(resolution), Some(id)) => {
                if workload.is_some() || !r.names.is_empty() {
                    // Under the name it has in the output, as the results say.
                    resolution.items.push(ItemResolution {
                        id: renamed.unwrap_or(id),
                        marks: r.marks.take(),
                        workload,
                        names: std::mem::take(&mut r.names),
                    });
                }
            }
            (Some(_), None) => {}
            (None, id) => {
                if edited {
                    self.stale.extend(id);
                }
            }
        }
    }
}

/// Everything pass 2 reads.
pub(crate) struct Shared<'c> {
    pub(crate) config: &'c Config,
    pub(crate) catalog: &'c Catalog,
    pub(crate) renames: &'c Renames,
    pub(crate) index: &'c SourceIndex,
    /// Objects being renamed: (kind, namespace, name) -> base and new name, borrowed
    /// from the list of renames rather than copied (a large input renames thousands).
    pub(crate) renamed: HashMap<(SourceKind, Option<&'c str>, &'c str), &'c Renaming>,
    /// Keep the resolution for views.
    pub(crate) record: bool,
    /// Report each item's id (for the stale list and the edges).
    pub(crate) ids: bool,
}

/// Pass 2 over every chunk that has work (see [`Work`]; every chunk but the settled
/// when objects are renamed, for references and stale mentions), in batches, each
/// batch's reports gathered in input order before the next starts.
// The renames stay boxed as pass 1 made them (see `Indexed::own`).
#[allow(clippy::vec_box)]
pub(crate) fn run(
    body: &str,
    ctx: Context,
    frame: &Frame<'_>,
    chunks: &[Chunk],
    (work, mut own): (Vec<Work>, Vec<Box<OwnRename>>),
    shared: &Shared<'_>,
    mut gathered: Gathered,
) -> Result<Gathered, Stop> {
    let everything = !shared.renames.is_empty();
    // `own` is freed once pass 2 is done (see `Indexed::spent`): the edits are copied
    // from it.
    let mut own_at = 0;
    for (n, (chunks, work)) in chunks.chunks(BATCH).zip(work.chunks(BATCH)).enumerate() {
        let reports: Vec<Vec<ItemReport>> = chunks
            .par_iter()
            .zip(work.par_iter())
            .map(|(chunk, work)| match work {
                // Reported below, on this thread: what pass 1 made is freed here, not
                // on a worker, which would lock another thread's heap to free it.
                Work::Settled => Ok(Vec::new()),
                // Without renames, an item that is neither a workload nor has name
                // sites yields no report (not even for views): its chunk is not read.
                Work::Idle if !everything => Ok(Vec::new()),
                Work::Idle | Work::Read => frame.with_chunk(body, chunk, ctx, |tree, items| {
                    second_pass(tree, items, chunk.piece(), shared)
                }),
            })
            .collect::<Result<_, Stop>>()?;
        for (i, (reports, chunk)) in reports.into_iter().zip(chunks).enumerate() {
            let at = n * BATCH + i;
            for r in reports {
                gathered.add(r);
            }
            while let Some(o) = own.get_mut(own_at).filter(|o| o.chunk == at) {
                gathered.add_settled(o, chunk.piece());
                own_at += 1;
            }
        }
    }
    drop(own);
    Ok(gathered)
}

/// Pass 2 over the items of one tree, the text of `piece` of the input.
fn second_pass(
    tree: &Tree<'_>,
    items: &[NodeId],
    piece: Piece,
    shared: &Shared<'_>,
) -> Vec<ItemReport> {
    let mut out = Vec::new();
    for &item in items {
        let mut report = second_pass_item(tree, item, shared);
        if !report.is_empty() {
            report.splices = piece.shift(std::mem::take(&mut report.splices));
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
    let id = shared.config.placed(ResourceId::of(tree, item));
    let renamed_here = rename_object(tree, item, &id, shared, &mut report);
    if !shared.renames.is_empty() {
        rewrite_references(tree, item, &id, shared, renamed_here, &mut report);
    }
    let resolver = Resolver {
        index: shared.index,
        renames: shared.renames,
    };
    let catalog = shared.catalog;
    if shared.record && catalog.has_name_sites(id.api_version(), id.kind()) {
        report.names = names::resolve_names(tree, item, &id, catalog, resolver);
    }
    if let Some(kind) = catalog.workload(id.api_version(), id.kind()) {
        if shared.record {
            report.names.extend(names::resolve_pod_names(
                tree, item, &id, kind, catalog, resolver,
            ));
            report.marks = Some(Box::new(crate::resolve::rollout::marks(
                tree,
                item,
                &id,
                kind,
                shared.config,
            )));
        }
        let ctx = workload::Context {
            config: shared.config,
            catalog,
            resolver,
            record: shared.record,
        };
        if let Some(o) = stamp::stamp_item(tree, item, &id, kind, &ctx) {
            add_stamp(&mut report, o, shared.renames);
        }
    }
    if shared.ids {
        let (id, placed) = crate::run::pass1::written_id(tree, item, id, shared.config);
        report.id = Some(id);
        report.placed = placed;
    }
    report
}

/// Renames the item when it is a ConfigMap or Secret being renamed; whether it is.
fn rename_object(
    tree: &Tree<'_>,
    item: NodeId,
    id: &ResourceId,
    shared: &Shared<'_>,
    report: &mut ItemReport,
) -> bool {
    let Some(kind) = SourceKind::from_kind(id.api_version(), id.kind()) else {
        return false;
    };
    let Some(r) = shared.renamed.get(&(kind, id.namespace(), id.name())) else {
        return false;
    };
    match crate::edit::rename::rename_object(tree, item, id, &r.base, &r.new_name, shared.config) {
        Ok(splices) => splices.append_to(&mut report.splices),
        Err(r) => report.rename_error = Some(r),
    }
    true
}

/// Rewrites the item's references to renamed objects, and asks about old names left in
/// fields the catalog does not know (not in an object renamed here, whose own fields
/// hold its old name on purpose).
fn rewrite_references(
    tree: &Tree<'_>,
    item: NodeId,
    id: &ResourceId,
    shared: &Shared<'_>,
    renamed_here: bool,
    report: &mut ItemReport,
) {
    let catalog = shared.catalog;
    let (mut rewritten, pointed, ambiguous) = crate::edit::rename::rewrite_references(
        tree,
        item,
        id,
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
        report
            .mentions
            .extend(crate::edit::rename::warn_unknown_mentions(
                tree,
                shared.config,
                catalog,
                item,
                id,
                shared.renames,
                &rewritten,
            ));
    }
}

/// Adds a workload's stamp to its report. A stamp that replaces a whole reference
/// (`__data` becoming a value) makes the rename of the name inside it moot: that edit
/// goes, and the reference no longer points at the renamed object.
fn add_stamp(report: &mut ItemReport, mut o: ItemOutcome, renames: &Renames) {
    let dropped = report.splices.drop_within(&o.splices);
    if !dropped.is_empty() {
        let mut moot: HashMap<String, usize> = HashMap::new();
        for text in &dropped {
            let name = text.trim_matches(|c| c == '"' || c == '\'');
            *moot.entry(name.to_string()).or_default() += 1;
        }
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
    std::mem::take(&mut o.splices).append_to(&mut report.splices);
    o.notes.shrink_to_fit();
    report.stamp = Some(Box::new(o));
}
