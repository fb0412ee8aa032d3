//! A run with options drawn from the input's first two bytes: mode, granularity,
//! onMissing, name suffixes, immutable, runtimeReload, a hash key, and the one-chunk path.
#![no_main]

mod promises;

use config_hash::Invocation;
use config_hash::model::config::Overrides;
use config_hash::model::hash::HashKey;
use libfuzzer_sys::fuzz_target;

fn options(a: u8, b: u8) -> Invocation {
    fn pick<'a>(choices: &[&'a str], bits: u8) -> &'a str {
        choices[bits as usize % choices.len()]
    }
    let mut overrides = Overrides::default();
    // The same typed values the command line and functionConfig parse into.
    let mut set = |field: &str, value: &str| {
        overrides
            .set(field, value)
            .expect("a value the fuzz target picks is accepted")
    };
    set("mode", pick(&["annotation", "env", "both"], a & 3));
    set("granularity", pick(&["key", "object"], (a >> 2) & 1));
    set(
        "onMissing",
        pick(&["warn", "error", "ignore"], (a >> 3) & 3),
    );
    if a & 0x20 != 0 {
        set("nameSuffix", "true");
    }
    if a & 0x40 != 0 {
        set("immutable", "true");
    }
    if b & 1 != 0 {
        set("annotationKey", "example.com/h");
    }
    if b & 2 != 0 {
        set("envName", "H");
    }
    if b & 8 != 0 {
        set("runtimeReload", "reloader");
    }
    if b & 0x10 != 0 {
        // Where objects written without a namespace land (a name the inputs use too).
        set("namespace", "default");
    }
    // The GitOps hand-off on renamed objects (merged into annotations already there).
    match (b >> 5) & 3 {
        1 => set("gitops", "argocd"),
        2 => set("gitops", "flux"),
        _ => {}
    }
    Invocation {
        overrides,
        one_chunk: a & 0x80 != 0,
        hash_key: (b & 4 != 0).then(|| HashKey::new(b"fuzz key".to_vec()).unwrap()),
        ..Invocation::default()
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
