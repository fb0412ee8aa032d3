//! The output does not depend on how the input is cut into chunks: every golden input
//! gives the same bytes, results, edits and stale list read one item per chunk (the
//! default) and read as one chunk. Inputs the splitter could not cut are counted apart,
//! so the comparison never pits one reading against itself unnoticed.

mod common;

use std::fs;

use config_hash::{Invocation, run};

#[test]
fn one_item_per_chunk_and_one_chunk_agree_on_every_golden_input() {
    let mut compared = 0;
    let mut cases = 0;
    let mut whole = Vec::new();
    for case in common::golden_cases() {
        let dir = case.dir.clone();
        let Some(input) = case.input() else { continue };
        let Ok(text) = fs::read_to_string(&input) else {
            continue;
        };
        cases += 1;
        let one = run(
            &text,
            &Invocation {
                one_chunk: true,
                ..Invocation::default()
            },
        );
        let chunked = run(&text, &Invocation::default());
        let (one, chunked) = match (one, chunked) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(a), Err(b)) => {
                assert_eq!(a, b, "{}: errors differ", dir.display());
                continue;
            }
            (a, b) => panic!(
                "{}: one chunk gives {:?}, chunks give {:?}",
                dir.display(),
                a.map(|o| o.exit_code),
                b.map(|o| o.exit_code)
            ),
        };
        if chunked.coarser.iter().any(|c| c.is_whole()) {
            whole.push(dir.file_name().unwrap().to_string_lossy().into_owned());
        }
        assert_eq!(
            chunked.output,
            one.output,
            "{}: outputs differ",
            dir.display()
        );
        assert_eq!(
            chunked.exit_code,
            one.exit_code,
            "{}: exit codes differ",
            dir.display()
        );
        assert_eq!(
            chunked.item_edits,
            one.item_edits,
            "{}: edits differ",
            dir.display()
        );
        assert_eq!(
            chunked.stale,
            one.stale,
            "{}: stale lists differ",
            dir.display()
        );
        assert_eq!(
            chunked.results,
            one.results,
            "{}: results differ",
            dir.display()
        );
        compared += 1;
    }
    assert!(cases > 100, "found only {cases} golden inputs");
    // Only inputs that cannot be cut (YAML directives, flow-style lists, broken
    // configuration) are read whole by default; the rest compare two real readings.
    assert!(
        whole.len() * 10 < compared,
        "{} of {compared} golden inputs were read whole by default: {whole:?}",
        whole.len()
    );
    eprintln!("compared {compared} of {cases} golden inputs; read whole by default: {whole:?}");
}

/// Inputs where chunked and whole readings once disagreed (F11, F12): a `---` then a
/// flow document (the chunk alone starts with `{` and was taken for JSON), and
/// comment-only documents holding a BOM, a lone CR or a NUL.
#[test]
fn one_item_per_chunk_and_one_chunk_agree_on_unusual_documents() {
    let dep = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w}\nspec:\n  template:\n    spec:\n      containers:\n      - envFrom: [{configMapRef: {name: c, optional: true}}]\n";
    let flow = "{apiVersion: apps/v1, kind: Deployment, metadata: {name: f}, spec: {template: {spec: {containers: [{envFrom: [{configMapRef: {name: c, optional: true}}]}]}}}}";
    let cases = [
        format!("---\n{flow}\n---\n{dep}"),
        format!("{dep}---\n{flow}\n"),
        format!("{dep}---\n# c \u{feff} x\n---\n{dep}"),
        format!("{dep}---\n# c\r# d\n---\n{dep}"),
        format!("{dep}---\n# c \0 d\n---\n{dep}"),
        // Content after a document end marker (found by the fuzz target).
        format!("{dep}... a: 1\n{dep}"),
        // More quoted scalars continued at column 0 (go-yaml reads them; saphyr needs
        // each repaired and the text parsed again) than one text may repair: read as
        // one text, the input refused what its documents read one by one accepted
        // (found by the fuzz target).
        (0..80)
            .map(|i| format!("apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{i}}}\ndata:\n  a: \"x\ny\"\n---\n"))
            .collect::<String>()
            + dep,
    ];
    for text in &cases {
        let one = run(
            text,
            &Invocation {
                one_chunk: true,
                ..Invocation::default()
            },
        );
        let chunked = run(text, &Invocation::default());
        match (one, chunked) {
            (Ok(one), Ok(chunked)) => {
                assert_eq!(chunked.output, one.output, "{text:?}");
                assert_eq!(chunked.exit_code, one.exit_code, "{text:?}");
            }
            (Err(a), Err(b)) => assert_eq!(a, b, "{text:?}"),
            (a, b) => panic!(
                "{text:?}: one chunk {:?}, chunks {:?}",
                a.map(|o| o.exit_code),
                b.map(|o| o.exit_code)
            ),
        }
    }
}

/// An input of more chunks than pass 2 takes in one batch, whose references, renames,
/// old names and missing objects cross the batches' boundaries:
/// the results, in their order, and the output are those of the one-chunk reading, and
/// the output the binary streams (`prepare`, which keeps no stale list) is `run`'s.
#[test]
fn batches_of_chunks_give_what_one_chunk_gives() {
    let n = 700;
    let mut text = String::from("kind: ResourceList\nitems:\n");
    for i in 0..n {
        let other = (i * 7 + 300) % n;
        text.push_str(&format!(
            "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {{name: cfg{i}}}\n  data: {{A: '{i}'}}\n\
             - apiVersion: apps/v1\n  kind: Deployment\n  metadata: {{name: web{i}}}\n  spec:\n    template:\n      spec:\n        containers:\n        - name: app\n          args: [--config, cfg{other}]\n          envFrom: [{{configMapRef: {{name: cfg{other}}}}}, {{secretRef: {{name: gone{i}}}}}]\n"
        ));
    }
    let options = Invocation {
        overrides: config_hash::model::config::Overrides {
            name_suffix: Some(true),
            on_missing: Some(config_hash::model::config::OnMissing::Warn),
            ..Default::default()
        },
        ..Invocation::default()
    };
    let chunked = run(&text, &options).unwrap();
    let one = run(
        &text,
        &Invocation {
            one_chunk: true,
            ..options.clone()
        },
    )
    .unwrap();
    assert!(chunked.coarser.is_empty(), "{:?}", chunked.coarser);
    assert_eq!(chunked.exit_code, 0);
    assert_eq!(chunked.results, one.results);
    assert_eq!(chunked.output, one.output);
    assert_eq!(chunked.stale, one.stale);
    // Every kind of result is there, so the comparison covers each list's order.
    let messages: Vec<String> = chunked.results.iter().map(|r| r.message()).collect();
    for wanted in [
        "the old name of an object",
        "hashed name for base name cfg699",
        "refers to Secret \"gone0\"",
        "config-hash: 700 workload(s) stamped",
    ] {
        assert!(messages.iter().any(|m| m.contains(wanted)), "{wanted}");
    }
    let mut streamed = Vec::new();
    config_hash::prepare(&text, &options)
        .unwrap()
        .write_to(&mut streamed)
        .unwrap();
    assert_eq!(String::from_utf8(streamed).unwrap(), chunked.output);
}
