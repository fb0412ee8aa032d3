//! The promises every run keeps, checked on any input: the output parses whenever the
//! input does, a second run changes nothing, bytes outside the function's item edits
//! and its `results` stay as they were, and an error exit leaves the items unchanged.

use config_hash::read::resource_list::ResourceList;
use config_hash::yaml::parse;
use config_hash::{Invocation, Outcome};

const BOM: &str = "\u{feff}";

fn parses(text: &str) -> bool {
    parse(text.strip_prefix(BOM).unwrap_or(text)).is_ok()
}

/// True when `text` is refused at a work limit only (README, "Limits"): a limit counts
/// per text, and one that grew by the function's edits may pass a byte budget that the
/// input kept within.
fn past_a_limit(text: &str) -> bool {
    parse(text.strip_prefix(BOM).unwrap_or(text)).is_err_and(|e| e.limit().is_some())
}

/// The text of each item of a ResourceList (trailing whitespace trimmed), and of its
/// functionConfig.
fn item_texts(text: &str) -> Option<(Vec<String>, Option<String>)> {
    let tree = parse(text).ok()?;
    let list = ResourceList::locate(&tree).ok()?;
    let text_of = |i| {
        let span = tree.span(i);
        text[span.start()..span.end()].trim_end().to_string()
    };
    // The functionConfig from its key: saphyr's span of an empty block scalar (`|`)
    // leaves out the indicator where more follows, and has it at the end of the text.
    let config = tree
        .own_entries(list.root)
        .find(|&(k, _)| tree.str(k) == Some("functionConfig"))
        .map(|(k, v)| {
            let (start, end) = (tree.span(k).start(), tree.span(v).end());
            text[start..end.max(start)].trim_end().to_string()
        });
    Some((list.items.iter().map(|&i| text_of(i)).collect(), config))
}

/// Checks one run of `input` under `options`.
pub fn check(input: &str, options: &Invocation) {
    let first = config_hash::run(input, options);
    // One item per chunk (or whatever the splitter made) and the whole input as one
    // chunk agree byte for byte.
    let whole = config_hash::run(
        input,
        &Invocation {
            one_chunk: !options.one_chunk,
            ..options.clone()
        },
    );
    match (&first, &whole) {
        (Ok(a), Ok(b)) => {
            assert_eq!(
                a.output, b.output,
                "chunked and whole readings write different output"
            );
            assert_eq!(
                a.exit_code, b.exit_code,
                "chunked and whole readings exit differently"
            );
        }
        (Err(a), Err(b)) if a.limit.is_none() && b.limit.is_none() => {
            assert_eq!(a, b, "chunked and whole readings refuse differently")
        }
        // A work limit counts per text: the whole input read as one text may reach one
        // where its items read one by one do not (README, "Limits").
        (Err(e), _) | (_, Err(e)) if e.limit.is_some() => {}
        (a, b) => panic!(
            "one reading accepts what the other refuses: {:?} / {:?}",
            a.as_ref().map(|o| o.exit_code),
            b.as_ref().map(|o| o.exit_code)
        ),
    }
    let Ok(first) = first else {
        return;
    };
    check_outcome(input, &first);
    if parses(input) {
        let grown = first.output.len() > input.len();
        if grown && past_a_limit(&first.output) {
            return;
        }
        assert!(
            parses(&first.output),
            "the input parses but the output does not:\n{:?}",
            first.output
        );
    }
    if first.exit_code != 0 {
        assert!(
            first.item_edits.is_empty(),
            "an error exit with item edits: {:?}",
            first.item_edits
        );
    }
    // A second run changes nothing.
    let second = config_hash::run(&first.output, options)
        .unwrap_or_else(|e| panic!("the output cannot be read again: {e:?}\n{:?}", first.output));
    assert!(
        second.item_edits.is_empty(),
        "a second run edits again: {:?}\nfirst output:\n{:?}",
        second.item_edits,
        first.output
    );
    // Two warnings are given once, about something the first run put right: a stale
    // mention of a previous suffixed name (the next run no longer knows that name), and
    // a `__data` record of an object that is gone (the record is dropped). The items
    // must still be identical; only `results` may differ.
    let renames = first.output.contains("config-hash.dev/base-name")
        || first.output.contains("the record dropped");
    if first.exit_code == 0 && !renames {
        assert_eq!(
            second.output, first.output,
            "a second run changes the output"
        );
    } else if first.exit_code == 0 && first.resource_list {
        assert_eq!(
            item_texts(&second.output),
            item_texts(&first.output),
            "a second run changes the items"
        );
    } else if first.exit_code == 0 {
        assert_eq!(
            second.output, first.output,
            "a second run changes the stream"
        );
    }
}

/// Outside the item edits, only `results` (in a ResourceList) may differ.
fn check_outcome(input: &str, out: &Outcome) {
    let (bom, body) = match input.strip_prefix(BOM) {
        Some(rest) => (BOM, rest),
        None => ("", input),
    };
    let output = out
        .output
        .strip_prefix(bom)
        .unwrap_or_else(|| panic!("the BOM was lost"));
    let expected = out
        .item_edits
        .apply(body)
        .unwrap_or_else(|e| panic!("{e}: {:?}", out.item_edits));
    if !out.resource_list {
        assert_eq!(output, expected, "a stream changed outside the item edits");
        return;
    }
    if expected == output {
        return;
    }
    // `results` may be replaced or moved; the items and functionConfig may not change.
    if let (Some(want), Some(got)) = (item_texts(&expected), item_texts(output)) {
        assert_eq!(
            want, got,
            "a ResourceList's items changed beyond the item edits\nexpected {expected:?}\noutput {output:?}"
        );
    }
}
