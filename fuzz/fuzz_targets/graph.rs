//! `graph` in every format: no panic, the JSON is JSON, and the graph is readable
//! whenever a run is.
#![no_main]

use config_hash::views::graph;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(input) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(edges) = config_hash::graph(input, &config_hash::Invocation::default()) else {
        return;
    };
    let json = graph::render_json(&edges);
    if let Err(e) = serde_json::from_str::<serde_json::Value>(&json) {
        panic!("graph JSON does not parse: {e}\n{json}");
    }
    let table = graph::render_table(&edges);
    assert!(!table.is_empty(), "an empty table");
    let dot = graph::render_dot(&edges);
    assert!(
        dot.starts_with("digraph") && dot.trim_end().ends_with('}'),
        "{dot}"
    );
});
