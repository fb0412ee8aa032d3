//! The item-by-item path (large inputs, parsed one item at a time on several threads)
//! and the single-tree path give the same output, byte for byte, on every golden input.

use std::fs;
use std::path::Path;

use config_hash::{Options, run, run_item_by_item};

#[test]
fn item_by_item_and_single_tree_agree_on_every_golden_input() {
    let testdata = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let mut compared = 0;
    let mut cases = 0;
    for entry in fs::read_dir(&testdata).unwrap() {
        let dir = entry.unwrap().path();
        let input = ["input.yaml", "input.json"]
            .iter()
            .map(|f| dir.join(f))
            .find(|p| p.exists());
        let Some(input) = input else { continue };
        let Ok(text) = fs::read_to_string(&input) else {
            continue;
        };
        cases += 1;
        let single = run(
            &text,
            &Options {
                single_tree: true,
                ..Options::default()
            },
        );
        let Some(chunked) = run_item_by_item(&text, &Options::default()) else {
            continue;
        };
        let single = single.unwrap_or_else(|e| {
            panic!(
                "{}: single tree failed ({e}) where items parsed",
                dir.display()
            )
        });
        assert_eq!(
            chunked.output,
            single.output,
            "{}: outputs differ",
            dir.display()
        );
        assert_eq!(
            chunked.exit_code,
            single.exit_code,
            "{}: exit codes differ",
            dir.display()
        );
        assert_eq!(
            chunked.item_edits,
            single.item_edits,
            "{}: edits differ",
            dir.display()
        );
        assert_eq!(
            chunked.stale,
            single.stale,
            "{}: stale lists differ",
            dir.display()
        );
        compared += 1;
    }
    assert!(cases > 100, "found only {cases} golden inputs");
    // Most golden inputs are block YAML, which the item-by-item path takes.
    assert!(
        compared * 2 > cases,
        "the item-by-item path took only {compared} of {cases} inputs"
    );
    eprintln!("item-by-item path compared on {compared} of {cases} golden inputs");
}

/// Inputs where the two paths once disagreed (F11, F12): a `---` then a flow document
/// (the item alone starts with `{` and was taken for JSON), and comment-only documents
/// holding a BOM, a lone CR or a NUL.
#[test]
fn item_by_item_and_single_tree_agree_on_unusual_documents() {
    let dep = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w}\nspec:\n  template:\n    spec:\n      containers:\n      - envFrom: [{configMapRef: {name: c, optional: true}}]\n";
    let flow = "{apiVersion: apps/v1, kind: Deployment, metadata: {name: f}, spec: {template: {spec: {containers: [{envFrom: [{configMapRef: {name: c, optional: true}}]}]}}}}";
    let cases = [
        format!("---\n{flow}\n---\n{dep}"),
        format!("{dep}---\n{flow}\n"),
        format!("{dep}---\n# c \u{feff} x\n---\n{dep}"),
        format!("{dep}---\n# c\r# d\n---\n{dep}"),
        format!("{dep}---\n# c \0 d\n---\n{dep}"),
    ];
    for text in &cases {
        let single = run(
            text,
            &Options {
                single_tree: true,
                ..Options::default()
            },
        );
        match (single, run_item_by_item(text, &Options::default())) {
            (Ok(single), Some(chunked)) => {
                assert_eq!(chunked.output, single.output, "{text:?}");
                assert_eq!(chunked.exit_code, single.exit_code, "{text:?}");
            }
            (Err(e), Some(_)) => panic!("{text:?}: single tree refused ({e}), items accepted"),
            // The item-by-item path declined: the single tree answers alone.
            (_, None) => {}
        }
        // And `run` (whichever path it takes) agrees with the single tree.
        let chosen = run(text, &Options::default()).map(|o| o.output);
        let single = run(
            text,
            &Options {
                single_tree: true,
                ..Options::default()
            },
        )
        .map(|o| o.output);
        assert_eq!(
            chosen.map_err(|e| e.to_string()),
            single.map_err(|e| e.to_string()),
            "{text:?}"
        );
    }
}
