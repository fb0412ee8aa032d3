//! `graph` in every format: no panic, the JSON is JSON, and the graph is readable
//! whenever a run is.
#![no_main]

use config_hash::views::{graph, to_text};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(resolution) = config_hash::resolve(input, &config_hash::Invocation::default()) else {
        return;
    };
    let json = to_text(|w| graph::write_json(&resolution, w));
    if let Err(e) = serde_json::from_str::<serde_json::Value>(&json) {
        panic!("graph JSON does not parse: {e}\n{json}");
    }
    let table = to_text(|w| graph::write_table(&resolution, w));
    assert!(!table.is_empty(), "an empty table");
    let dot = to_text(|w| graph::write_dot(&resolution, w));
    assert!(
        dot.starts_with("digraph") && dot.trim_end().ends_with('}'),
        "{dot}"
    );
});
