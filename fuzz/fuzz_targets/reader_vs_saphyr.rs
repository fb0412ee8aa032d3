//! The reader against saphyr-parser (a YAML 1.2 reader) on any text: where both read it
//! and nothing in the text is read otherwise by go-yaml than by YAML 1.2, both must read
//! the same data (values, styles, tags by presence, aliases and merge keys followed).
//! A refusal by either side is not compared here: go-yaml and YAML 1.2 refuse different
//! texts (tabs, flow indentation, ...), and what go-yaml refuses is checked against
//! go-yaml itself by tests/kustomize_structure.rs.
//!
//! Its saphyr reference builder is the crate's own test helper, used by path.

#![no_main]

use goyaml_splice::{Context, Data, Tree};
use libfuzzer_sys::fuzz_target;

#[path = "../../crates/yaml/tests/common/mod.rs"]
mod saphyr_reference;

/// Texts go-yaml reads otherwise than YAML 1.2 by construction (each a known, tested
/// difference): NEL, LS, PS as breaks; a tab after ':'; JSON text (kubectl's decoder);
/// directives; an anchor or alias name running into ':' in flow, or into any character
/// go-yaml does not take for a name (`&ame: x` is an anchor on an empty key to go-yaml
/// v3, kustomize's reader, and the anchor `ame:` to YAML 1.2); a ':' right before a
/// flow indicator, which go-yaml (v2 and v3) keeps in a plain scalar (`{k:, l: v}` has
/// the key `k:`) where YAML 1.2 reads an indicator; a `?` in flow (go-yaml takes it for
/// the explicit key indicator whatever follows: `{?a: b}` has the key `a`, and `{k: a,
/// ?}` an empty key, as kustomize prints them; YAML 1.2 reads `?a`); a `...` line, after which kubectl,
/// kustomize and kpt read nothing up to the next `---` line (they cut a stream at its
/// `---` lines and read the first document of each piece); a byte-order mark past the
/// start (go-yaml v2 skips one at the start of any line, go-yaml v3 then loses the first
/// character of each later line, as kpt fn source shows; YAML 1.2 and the reader read it
/// as a character); a tag running into a flow indicator (`{a: !!str,b: x}`: go-yaml v2
/// and v3 read the tag `!!str,b`, as kubectl prints `a: x`; YAML 1.2 ends it at `,`); a
/// block scalar as a document's root, tagged or anchored or not, after a byte-order mark
/// or not (go-yaml, as libyaml, indents its content at least one column, so a line at
/// column 0 ends it; YAML 1.2 reads such a line as content).
fn differs_by_dialect(text: &str) -> bool {
    let flow = text.contains(['{', '[']);
    Context::of(text).json()
        || text.contains(['\u{85}', '\u{2028}', '\u{2029}'])
        || text.contains(":\t")
        || text.contains('%')
        || flow && text.contains(['&', '*', '?'])
        || name_runs_on(text)
        || [":,", ":]", ":}", ":[", ":{"]
            .iter()
            .any(|p| text.contains(p))
        || text.starts_with("...")
        || text.contains("\n...")
        || text.contains("\r...")
        || text.chars().skip(1).any(|c| c == '\u{feff}')
        || tag_runs_into_flow_indicator(text)
        || root_block_scalar(text)
        || flow && colon_starts_a_token(text)
}

/// A `:` where a token starts (after a blank, a line break, `{`, `[` or `,`), followed by
/// something other than a blank: in flow context go-yaml takes it for the value
/// indicator whatever follows (`{! :ab cd}` is the key "" with the value "ab cd", as
/// kubectl kustomize prints it), YAML 1.2 for the start of a plain scalar `:ab cd`.
fn colon_starts_a_token(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().any(|(i, &b)| {
        b == b':'
            && (i == 0
                || matches!(
                    bytes[i - 1],
                    b' ' | b'\t' | b'\n' | b'\r' | b'{' | b'[' | b','
                ))
            && bytes
                .get(i + 1)
                .is_some_and(|c| !matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
    })
}

fn root_block_scalar(text: &str) -> bool {
    text.split(['\n', '\r']).any(|line| {
        // A byte-order mark at the start of the text is not part of the first line.
        let line = line.strip_prefix('\u{feff}').unwrap_or(line);
        let mut line = line
            .strip_prefix("---")
            .unwrap_or(line)
            .trim_start_matches([' ', '\t']);
        // Past its properties (`!tag >`, `&anchor |`): the scalar is still the root.
        while line.starts_with(['!', '&']) {
            line = line
                .split_once([' ', '\t'])
                .map_or("", |(_, rest)| rest)
                .trim_start_matches([' ', '\t']);
        }
        line.starts_with(['|', '>'])
    })
}

fn tag_runs_into_flow_indicator(text: &str) -> bool {
    text.match_indices('!').any(|(i, _)| {
        let tag = text[i..]
            .split([' ', '\t', '\n', '\r'])
            .next()
            .unwrap_or("");
        // A verbatim tag (`!<tag:yaml.org,2002:str>`) holds commas in both readings.
        let tag = match tag.strip_prefix("!<") {
            Some(rest) => rest.split_once('>').map_or("", |(_, after)| after),
            None => tag,
        };
        tag.contains([',', '[', ']', '{', '}'])
    })
}

/// An anchor or alias whose name (letters, digits, `_`, `-` to go-yaml) runs into a
/// character other than a blank, a line break or a flow indicator.
fn name_runs_on(text: &str) -> bool {
    let b = text.as_bytes();
    b.iter().enumerate().any(|(i, &c)| {
        if c != b'&' && c != b'*' {
            return false;
        }
        let end = b[i + 1..]
            .iter()
            .position(|&c| !(c.is_ascii_alphanumeric() || c == b'_' || c == b'-'))
            .map(|n| i + 1 + n);
        end.is_some_and(|e| !matches!(b[e], b' ' | b'\t' | b'\n' | b'\r' | b',' | b']' | b'}'))
    })
}

fuzz_target!(|bytes: &[u8]| {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    // go-yaml ends a block scalar at an end of text without a break without one, YAML 1.2
    // with one: compared with a last break, as the crate's differential test does.
    let text = if text.is_empty() || text.ends_with(['\n', '\r']) {
        text.to_owned()
    } else {
        format!("{text}\n")
    };
    if differs_by_dialect(&text) {
        return;
    }
    let Ok(tree) = Tree::parse(&text, Context::of(&text)) else {
        return;
    };
    let Ok(theirs) = saphyr_reference::saphyr_documents(&text) else {
        return;
    };
    let ours: Vec<Data> = tree
        .documents()
        .iter()
        .map(|d| saphyr_reference::normal(tree.data(d.root())))
        .collect();
    let theirs: Vec<Data> = theirs.into_iter().map(saphyr_reference::normal).collect();
    assert_eq!(
        ours, theirs,
        "the reader and saphyr read {text:?} differently"
    );
});
