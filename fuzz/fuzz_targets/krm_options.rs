//! A run with options drawn from the input's first two bytes: mode, granularity,
//! onMissing, name suffixes, immutable, runtimeReload, a hash key, and the one-chunk path.
#![no_main]

mod promises;

use config_hash::Options;
use config_hash::hashing::HashKey;
use libfuzzer_sys::fuzz_target;

fn options(a: u8, b: u8) -> Options {
    let pick = |choices: &[&str], bits: u8| choices[bits as usize % choices.len()].to_string();
    let mut overrides = vec![
        (
            "mode".to_string(),
            pick(&["annotation", "env", "both"], a & 3),
        ),
        (
            "granularity".to_string(),
            pick(&["key", "object"], (a >> 2) & 1),
        ),
        (
            "onMissing".to_string(),
            pick(&["warn", "error", "ignore"], (a >> 3) & 3),
        ),
    ];
    if a & 0x20 != 0 {
        overrides.push(("nameSuffix".into(), "true".into()));
    }
    if a & 0x40 != 0 {
        overrides.push(("immutable".into(), "true".into()));
    }
    if b & 1 != 0 {
        overrides.push(("annotationKey".into(), "example.com/h".into()));
    }
    if b & 2 != 0 {
        overrides.push(("envName".into(), "H".into()));
    }
    if b & 8 != 0 {
        overrides.push(("runtimeReload".into(), "reloader".into()));
    }
    let mut typed = config_hash::config::Overrides::default();
    for (field, value) in &overrides {
        typed
            .set(field, value)
            .expect("every fuzzed value is accepted");
    }
    Options {
        overrides: typed,
        one_chunk: a & 0x80 != 0,
        hash_key: (b & 4 != 0).then(|| HashKey::new(b"fuzz key".to_vec()).unwrap()),
        ..Options::default()
    }
}

fuzz_target!(|data: &[u8]| {
    let [a, b, rest @ ..] = data else {
        return;
    };
    if let Ok(input) = std::str::from_utf8(rest) {
        promises::check(input, &options(*a, *b));
    }
});
