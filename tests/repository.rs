//! What the repository promises about itself: no test is written where it would never
//! run.

mod common;

use std::fs;

use common::repo_root;

/// A `#[test]` in a file that runs under the harness of `tests/common/harness.rs`
/// (`harness = false` in Cargo.toml) would never run: register it with `trial!`.
#[test]
fn no_test_hides_in_a_file_without_libtest() {
    let manifest = fs::read_to_string(repo_root().join("Cargo.toml")).expect("Cargo.toml");
    let mut own_harness = Vec::new();
    for block in manifest.split("[[test]]").skip(1) {
        let field = |key: &str| {
            block.lines().find_map(|l| l.strip_prefix(key)).map(|v| {
                v.trim()
                    .trim_start_matches('=')
                    .trim()
                    .trim_matches('"')
                    .to_string()
            })
        };
        if field("harness").as_deref() == Some("false") {
            own_harness.push(field("name").expect("a [[test]] has a name"));
        }
    }
    assert!(own_harness.len() >= 10, "{own_harness:?}");
    for name in own_harness {
        let path = repo_root().join("tests").join(format!("{name}.rs"));
        let text = fs::read_to_string(&path).expect("the test file");
        assert!(
            !text.contains("#[test]"),
            "tests/{name}.rs runs under tests/common/harness.rs: a #[test] there never runs; list it in main() with trial!"
        );
        assert!(
            text.contains("common::harness::run("),
            "tests/{name}.rs has harness = false but does not run common::harness::run"
        );
    }
}
