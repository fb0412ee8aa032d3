//! Large inputs item by item: split a block-style ResourceList or manifest stream into
//! the texts of its items, so each is parsed, used and dropped (on several threads)
//! instead of holding one tree of the whole input. Anything unusual falls back to the
//! single-tree path, which gives the same output.

use std::collections::HashMap;

use crate::krm::{self, KrmResult, ResourceId, ResourceList};
use crate::references;
use crate::stamp::{self, ItemOutcome, SourceEntry, SourceIndex, SourceKey};
use crate::suffix::{self, Renames};
use crate::workloads;
use crate::yaml::{NodeId, Splices, Tree};
use crate::{Concluding, Options, Prepared};

/// Below this many items, threads cost more than they save.
const PARALLEL_MIN_ITEMS: usize = 64;

/// Where the items of the input are.
#[derive(Debug, PartialEq, Eq)]
struct Split {
    /// Byte ranges of the items' texts, in order; together with the marker lines of a
    /// stream they cover the input.
    items: Vec<(usize, usize)>,
    /// For a ResourceList: the byte range of the whole `items` sequence.
    list: Option<(usize, usize)>,
}

/// A line of the input: its start, its end (before the line break), and the next start.
fn lines(src: &str) -> impl Iterator<Item = (usize, &str, usize)> {
    let mut pos = 0;
    std::iter::from_fn(move || {
        if pos >= src.len() {
            return None;
        }
        let start = pos;
        let rest = &src[start..];
        let (line, next) = match rest.find('\n') {
            Some(i) => (&rest[..i], start + i + 1),
            None => (rest, src.len()),
        };
        pos = next;
        Some((start, line.strip_suffix('\r').unwrap_or(line), next))
    })
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

fn is_blank_or_comment(line: &str) -> bool {
    let t = line.trim_start_matches([' ', '\t']);
    t.is_empty() || t.starts_with('#')
}

/// `---` or `...` at the start of a line: a document boundary.
fn is_marker(line: &str) -> bool {
    (line.starts_with("---") || line.starts_with("..."))
        && matches!(line.as_bytes().get(3), None | Some(b' ' | b'\t'))
}

/// The items of a block ResourceList whose `items:` key is at column 0.
fn split_resource_list(src: &str) -> Option<Split> {
    let mut it = lines(src).skip_while(|(_, line, _)| {
        !(line.starts_with("items:") && is_blank_or_comment(&line["items:".len()..]))
    });
    it.next()?;
    let mut items: Vec<(usize, usize)> = Vec::new();
    let mut dash_col = None;
    let mut end = src.len();
    for (start, line, _) in it {
        // Most lines are deeper than the items' dashes: skip them without looking further.
        if let Some(d) = dash_col {
            if line.len() > d && line.as_bytes()[..=d].iter().all(|&c| c == b' ') {
                continue;
            }
        }
        if is_blank_or_comment(line) {
            continue;
        }
        let col = indent_of(line);
        let rest = &line[col..];
        let is_item = rest.starts_with('-') && matches!(rest.as_bytes().get(1), None | Some(b' '));
        match dash_col {
            None if is_item => dash_col = Some(col),
            None => return None,
            Some(d) if col > d => continue,
            Some(_) => {}
        }
        if is_item && Some(col) == dash_col && !is_marker(line) {
            if let Some(last) = items.last_mut() {
                last.1 = start;
            }
            items.push((start, src.len()));
        } else {
            end = start;
            break;
        }
    }
    let last = items.last_mut()?;
    last.1 = end;
    // Comment lines after the last item stay with it; the list ends at the next key.
    Some(Split {
        list: Some((items[0].0, end)),
        items,
    })
}

/// The documents of a stream, between `---`/`...` marker lines.
fn split_stream(src: &str) -> Option<Split> {
    let mut items = Vec::new();
    let mut start = 0;
    for (line_start, line, next) in lines(src) {
        if line.starts_with('%') {
            return None;
        }
        if is_marker(line) {
            // Content after a marker (`--- {a: 1}`) is not handled here.
            if !is_blank_or_comment(&line[3..]) {
                return None;
            }
            items.push((start, line_start));
            start = next;
        }
    }
    items.push((start, src.len()));
    items.retain(|&(s, e)| !src[s..e].lines().all(is_blank_or_comment));
    Some(Split { items, list: None })
}

/// What the first pass learned of one item.
enum Seen {
    Source(Box<(SourceKey, SourceEntry, ResourceId)>),
    Workload,
    Other,
    /// Not parsed yet: it is no source, so pass 2 finds out what it is.
    Unparsed,
}

/// Whether an item's text may be a ConfigMap or Secret, or carry a renaming opt-in: the
/// kind and annotation names must appear in it (an alias can only repeat text of the
/// same item), unless an escape sequence could spell them otherwise.
fn may_matter_before_stamping(text: &str) -> bool {
    // One pass over the bytes: this runs on every item of a large input.
    let b = text.as_bytes();
    b.iter().enumerate().any(|(i, &c)| {
        let at = |needle: &str| b[i..].starts_with(needle.as_bytes());
        match c {
            b'C' => at("ConfigMap"),
            b'S' => at("Secret"),
            b'\\' => true,
            b'n' => at(NEEDS_HASH_TAIL) || at(NAME_SUFFIX_TAIL),
            _ => false,
        }
    })
}

/// The distinctive ends of the renaming opt-in annotations.
const NEEDS_HASH_TAIL: &str = "needs-hash";
const NAME_SUFFIX_TAIL: &str = "name-suffix";

/// Runs `f` on every element, on up to as many threads as there are cores.
fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(8));
    if threads < 2 || items.len() < PARALLEL_MIN_ITEMS {
        return items.iter().map(f).collect();
    }
    let per = items.len().div_ceil(threads);
    std::thread::scope(|s| {
        let f = &f;
        let handles: Vec<_> = items
            .chunks(per)
            .map(|part| s.spawn(move || part.iter().map(f).collect::<Vec<R>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}

/// The single item in an item's text: the root mapping of a stream document, or the one
/// item of a one-item sequence cut from a ResourceList. `None` when the text is anything
/// else, which sends the whole input down the single-tree path.
fn the_item(tree: &Tree<'_>, in_list: bool) -> Option<NodeId> {
    let [doc] = tree.docs.as_slice() else {
        return None;
    };
    let item = if in_list {
        match tree.items(doc.root) {
            [item] if !tree.is_flow(doc.root) => *item,
            _ => return None,
        }
    } else {
        doc.root
    };
    if !tree.is_map(item) {
        return None;
    }
    let kind = tree
        .get(item, "kind")
        .and_then(|k| tree.str(k))
        .unwrap_or("");
    // Lists are flattened by the single-tree path.
    if !in_list && kind.ends_with("List") {
        return None;
    }
    Some(item)
}

/// Opt-in annotations for renaming: renaming rewrites references anywhere, so it takes
/// the single-tree path.
fn wants_suffix(tree: &Tree<'_>, item: NodeId) -> bool {
    krm::flag(tree, item, suffix::NEEDS_HASH_ANNOTATION)
        || krm::flag(tree, item, suffix::NAME_SUFFIX_ANNOTATION)
}

/// Runs the function item by item, or returns `None` for the single-tree path.
pub(crate) fn run<'a>(body: &'a str, bom: &'a str, options: &Options) -> Option<Prepared<'a>> {
    if body.trim_start().starts_with(['{', '[']) {
        return None;
    }
    let list_split = split_resource_list(body);
    let (split, skeleton) = match list_split {
        Some(split) => {
            let (s, e) = split.list?;
            let skeleton = format!("{}{}", &body[..s], &body[e..]);
            (split, Some((skeleton, s, e)))
        }
        None => (split_stream(body)?, None),
    };
    let in_list = skeleton.is_some();

    // The ResourceList around the items: its functionConfig and where results go.
    let skeleton_tree = match &skeleton {
        Some((text, _, _)) => {
            let tree = Tree::parse(text).ok()?;
            if !crate::stream::is_resource_list(&tree) {
                return None;
            }
            Some(tree)
        }
        None => None,
    };
    let list = match &skeleton_tree {
        Some(tree) => Some(ResourceList::locate(tree).ok()?),
        None => None,
    };
    let config = match &skeleton_tree {
        Some(tree) => {
            crate::configure(tree, list.as_ref().and_then(|l| l.function_config), options)
        }
        None => {
            let empty = Tree::parse("").ok()?;
            crate::configure(&empty, None, options)
        }
    };
    // Renaming rewrites references anywhere; a bad config is reported by the single
    // tree, which also reports any unreadable item first, as it always has.
    let config = match config {
        Ok(c) if !c.name_suffix => c,
        _ => return None,
    };

    let text_of = |&(s, e): &(usize, usize)| &body[s..e];
    let renames = Renames::default();
    // Pass 1: the sources' content. Text that cannot be a ConfigMap or Secret (or opt in
    // to renaming) waits for pass 2, so each item is parsed once.
    let seen: Vec<Option<Seen>> = par_map(&split.items, |range| {
        if !may_matter_before_stamping(text_of(range)) {
            return Some(Seen::Unparsed);
        }
        let tree = Tree::parse(text_of(range)).ok()?;
        let Some(item) = the_item(&tree, in_list) else {
            return if in_list || !tree.docs.is_empty() {
                None
            } else {
                Some(Seen::Other)
            };
        };
        if wants_suffix(&tree, item) {
            return None;
        }
        let items = [item];
        if let Some((item, id, kind)) = references::config_objects(&tree, &items).next() {
            let (key, entry) = SourceEntry::read(&tree, item, &id, kind, &renames);
            return Some(Seen::Source(Box::new((key, entry, id))));
        }
        let id = ResourceId::of(&tree, item);
        Some(match workloads::lookup(&id.api_version, &id.kind) {
            Some(_) => Seen::Workload,
            None => Seen::Other,
        })
    });
    let seen: Vec<Seen> = seen.into_iter().collect::<Option<_>>()?;

    let mut index = SourceIndex::default();
    let mut early = Vec::new();
    let mut workload_ranges = Vec::new();
    for (range, s) in split.items.iter().zip(seen) {
        match s {
            Seen::Source(b) => {
                let (key, entry, id) = *b;
                if let Err(dup) = index.insert(key, entry, &id) {
                    early.push(*dup);
                }
            }
            Seen::Workload | Seen::Unparsed => workload_ranges.push(*range),
            Seen::Other => {}
        }
    }

    // Pass 2: stamp the workloads against the complete index.
    // The line each workload starts on, in one pass (the ranges are in input order).
    let mut first_lines = Vec::with_capacity(workload_ranges.len());
    let (mut at, mut lines) = (0, 0);
    for &(start, _) in &workload_ranges {
        lines += body.as_bytes()[at.min(start)..start]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        at = at.max(start);
        first_lines.push(lines);
    }
    let first_line_of: HashMap<usize, usize> = workload_ranges
        .iter()
        .map(|r| r.0)
        .zip(first_lines)
        .collect();
    let stamp_one = |&(start, end): &(usize, usize)| {
        let mut tree = Tree::parse(&body[start..end]).ok()?;
        tree.first_line = first_line_of[&start];
        let Some(item) = the_item(&tree, in_list) else {
            // A comment-only document of a stream is no item; anything else this path
            // does not handle goes to the single tree.
            return (!in_list && tree.docs.is_empty()).then_some(None);
        };
        if wants_suffix(&tree, item) {
            return None;
        }
        let Some(mut outcome) = stamp::stamp_item(&tree, item, &config, &renames, &index) else {
            return Some(None);
        };
        outcome.splices = std::mem::take(&mut outcome.splices).map_positions(|p| p + start);
        Some(Some((outcome, ResourceId::of(&tree, item))))
    };
    let outcomes: Vec<Option<Option<(ItemOutcome, ResourceId)>>> =
        par_map(&workload_ranges, stamp_one);
    let outcomes: Vec<Option<(ItemOutcome, ResourceId)>> =
        outcomes.into_iter().collect::<Option<_>>()?;
    let outcomes: Vec<(ItemOutcome, ResourceId)> = outcomes.into_iter().flatten().collect();
    let stale: Vec<ResourceId> = outcomes
        .iter()
        .filter(|(o, _)| !o.splices.is_empty())
        .map(|(_, id)| id.clone())
        .collect();
    let stamped = stamp::finish(early, outcomes.into_iter().map(|(o, _)| o), &index);

    Some(crate::conclude(
        Concluding {
            body,
            bom,
            item_edits: stamped.splices,
            results: stamped.results,
            resource_list: in_list,
        },
        |edits| if edits.is_empty() { Vec::new() } else { stale },
        |results: &[KrmResult], splices: &mut Splices| {
            if let (Some(tree), Some(list), Some((_, s, e))) = (&skeleton_tree, &list, &skeleton) {
                // Skeleton offsets past the removed items move back by their length.
                let (s, e) = (*s, *e);
                let to_body = |p: usize| if p >= s { p + (e - s) } else { p };
                let end = krm::TextEnd::at(body, to_body(list.content_end));
                let mut in_skeleton = Splices::new();
                krm::write_results_before(tree, list, results, end, &mut in_skeleton);
                in_skeleton.map_positions(to_body).append_to(splices);
            }
        },
    ))
}

/// Where a ResourceList's sources and workloads of one kind are, for tests.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_a_resource_list_into_item_texts() {
        let src = "apiVersion: v1\nkind: ResourceList\nitems:\n- a: 1\n  b: |\n    - not an item\n\n- c: 2\n# trailing\nfunctionConfig: {}\n";
        let split = split_resource_list(src).unwrap();
        let texts: Vec<&str> = split.items.iter().map(|&(s, e)| &src[s..e]).collect();
        assert_eq!(
            texts,
            [
                "- a: 1\n  b: |\n    - not an item\n\n",
                "- c: 2\n# trailing\n"
            ]
        );
        assert_eq!(&src[split.list.unwrap().1..], "functionConfig: {}\n");
    }

    #[test]
    fn the_prefilter_sees_every_source_and_opt_in() {
        assert!(suffix::NEEDS_HASH_ANNOTATION.ends_with(NEEDS_HASH_TAIL));
        assert!(suffix::NAME_SUFFIX_ANNOTATION.ends_with(NAME_SUFFIX_TAIL));
        for text in [
            "kind: ConfigMap",
            "kind: \"Secret\"",
            "a: \"\\x41\"",
            "x/needs-hash: 'true'",
        ] {
            assert!(may_matter_before_stamping(text), "{text}");
        }
        assert!(!may_matter_before_stamping(
            "kind: Deployment\nsecretKeyRef: {name: s}"
        ));
    }

    #[test]
    fn splits_indented_items() {
        let src = "kind: ResourceList\nitems:\n  - a: 1\n  - b: 2\nresults: []\n";
        let split = split_resource_list(src).unwrap();
        assert_eq!(split.items.len(), 2);
    }

    #[test]
    fn splits_a_stream_on_markers() {
        let src = "a: 1\n---\n# only a comment\n--- # c\nb: 2\n...\n";
        let split = split_stream(src).unwrap();
        let texts: Vec<&str> = split.items.iter().map(|&(s, e)| &src[s..e]).collect();
        assert_eq!(texts, ["a: 1\n", "b: 2\n"]);
        assert!(split_stream("%YAML 1.2\n---\na: 1\n").is_none());
        assert!(split_stream("--- {a: 1}\n").is_none());
    }
}
