//! A ResourceList or manifest stream run with default options.
#![no_main]

mod promises;

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(input) = std::str::from_utf8(data) {
        promises::check(input, &config_hash::Invocation::default());
    }
});
