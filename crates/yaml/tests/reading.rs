//! Reading as the product relies on it, through the public API only: exact spans,
//! JSON escapes, duplicate keys, merge order, and the typed work limits.

use goyaml_splice::{Context, Error, ErrorKind, MAX_DEPTH, Tree};

fn parse(src: &str) -> Result<Tree<'_>, Error> {
    Tree::parse(src, Context::of(src))
}

#[test]
fn spans_are_byte_offsets_of_the_original_text() {
    let src = "k: 'ü' # c\nn: \"x\" # d\n";
    let tree = parse(src).unwrap();
    let root = tree.documents()[0].root();
    let n = tree.get(root, "n").unwrap();
    let span = tree.span(n);
    assert_eq!(&src[span.start()..span.end()], "\"x\"");
}

#[test]
fn json_surrogate_pairs_are_read_and_offsets_kept() {
    let src = r#"{"a": "x\ud83d\ude80y", "b": "z"}"#;
    let tree = parse(src).unwrap();
    let root = tree.documents()[0].root();
    assert_eq!(tree.str(tree.get(root, "a").unwrap()), Some("x\u{1f680}y"));
    let b = tree.span(tree.get(root, "b").unwrap());
    assert_eq!(&src[b.start()..b.end()], "\"z\"");
}

#[test]
fn surrogate_text_outside_double_quotes_stays_literal() {
    let src = "a: '\\ud83d\\ude80'\n";
    let tree = parse(src).unwrap();
    assert_eq!(
        tree.str(tree.get(tree.documents()[0].root(), "a").unwrap()),
        Some("\\ud83d\\ude80")
    );
}

#[test]
fn duplicate_keys_are_rejected_with_a_position() {
    let err = parse("a: 1\nb: 2\na: 3\n").unwrap_err();
    assert_eq!((err.line(), err.column()), (3, 1));
    assert!(
        err.kind().describe().contains("duplicate key"),
        "{}",
        err.kind().describe()
    );
}

/// A duplicate key's message names the key as written (it named only the line).
#[test]
fn a_duplicate_key_is_named_as_written() {
    for (src, key) in [
        (
            "data:\n  LOG_LEVEL: info\n  LOG_LEVEL: debug\n",
            "LOG_LEVEL",
        ),
        ("data: {a: 1, 'a': 2}\n", "'a'"),
        (
            "{\"data\": {\"k.e\\\"y\": 1, \"k.e\\\"y\" : 2}}\n",
            "\"k.e\\\"y\"",
        ),
        ("? x\n: 1\nx : 2\n", "x"),
    ] {
        let err = parse(src).unwrap_err();
        assert!(
            err.message()
                .starts_with(&format!("duplicate key {key} in a mapping")),
            "{src:?}: {}",
            err.message()
        );
        assert!(err.to_string().contains(&err.message()), "{err}");
    }
    let long = format!("{0}: 1\n{0}: 2\n", "k".repeat(65));
    assert_eq!(
        parse(&long).unwrap_err().message(),
        ErrorKind::DuplicateKey.describe()
    );
}

/// F4: aliases that multiply a document are refused with the limit's name, before
/// any walk through them starts.
#[test]
fn alias_fan_out_is_refused_naming_the_limit() {
    let refs = |name: &str, n: usize| vec![format!("*{name}"); n].join(", ");
    let src = format!(
        "e: &e {{configMapRef: {{name: c}}}}\nc: &c {{name: a, envFrom: [{}]}}\ncontainers: [{}]\n",
        refs("e", 2000),
        refs("c", 2000)
    );
    let err = parse(&src).unwrap_err();
    assert!(
        err.kind().describe().contains("alias expansion limit"),
        "{}",
        err.kind().describe()
    );
    // Where: the collection that passed the limit, from its start.
    assert_eq!((err.line(), err.column()), (3, 13), "{err}");
    // Ordinary reuse of an anchor stays fine.
    let ok = format!(
        "e: &e {{configMapRef: {{name: c}}}}\nl: [{}]\n",
        refs("e", 50)
    );
    assert!(parse(&ok).is_ok());
}

#[test]
fn a_control_character_is_named_not_taken_for_the_end_of_the_stream() {
    let err = parse("a: 1\nb: \"x\0y\"\n").unwrap_err();
    assert_eq!((err.line(), err.column()), (2, 6), "{err}");
    assert!(err.kind().describe().contains("U+0000"), "{err}");
    assert!(!err.kind().describe().contains("end of stream"), "{err}");
    // Anywhere, as go-yaml: also in a comment, and C1 controls and U+FFFF.
    for bad in ["# \u{7}\n", "a: \u{85}\u{9f}\n", "a: \u{ffff}\n"] {
        assert!(parse(bad).is_err(), "{bad:?}");
    }
    for (bad, code) in [("a: \u{fffe}\n", "U+FFFE"), ("# \u{ffff}\n", "U+FFFF")] {
        let err = parse(bad).unwrap_err();
        assert!(err.kind().describe().contains(code), "{bad:?}: {err}");
    }
    for good in ["a: \u{85}\n", "a: \"\\0\"\t# ok\r\n", "a: \u{a0}\u{fffd}\n"] {
        assert!(parse(good).is_ok(), "{good:?}");
    }
}

#[test]
fn a_flow_collection_ends_at_its_closing_bracket() {
    // Not at the next token: the blanks and a comment after it are not its text.
    for src in [
        "a: [x] # c\nb: 1\n",
        "{a: {k: v}   , b: 1}\n",
        "a: [x]  \r\nb: 1\n",
    ] {
        let tree = parse(src).unwrap();
        let a = tree.get(tree.documents()[0].root(), "a").unwrap();
        let span = tree.span(a);
        let text = &src[span.start()..span.end()];
        assert!(
            text.ends_with([']', '}']) && !text.ends_with(' '),
            "{src:?}: {text:?}"
        );
    }
}

#[test]
fn a_recursive_alias_is_refused() {
    let err = parse("a: &a [1, *a]\n").unwrap_err();
    assert!(
        err.kind().describe().contains("recursive alias"),
        "{}",
        err.kind().describe()
    );
}

#[test]
fn nesting_deeper_than_the_limit_is_refused_naming_it() {
    // `- - - x`: block sequences nest two bytes a level (saphyr itself stops flow
    // collections at 256 levels).
    let deep = |n: usize| format!("{}x\n", "- ".repeat(n));
    assert!(parse(&deep(MAX_DEPTH)).is_ok());
    let err = parse(&deep(MAX_DEPTH + 1)).unwrap_err();
    assert!(
        err.kind().describe().contains("nesting limit"),
        "{}",
        err.kind().describe()
    );
    assert_eq!((err.line(), err.column()), (1, 2 * MAX_DEPTH + 1));
}

#[test]
fn a_duplicate_key_is_never_quoted_in_the_message() {
    // A Secret value mistyped as a flow map is a key: it must not be echoed.
    let err = parse("stringData: {hunter2, hunter2}\n").unwrap_err();
    assert!(
        err.kind().describe().contains("duplicate key"),
        "{}",
        err.kind().describe()
    );
    assert!(!err.to_string().contains("hunter2"), "{err}");
    assert!(!err.message().contains("hunter2"), "{}", err.message());
}
