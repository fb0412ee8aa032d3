//! Parser speed on one file: `cargo run --release -p goyaml-splice --example speed --
//! FILE [ours|saphyr] [runs]`. Prints MB/s of one core (best of the runs), and the
//! nodes read; `saphyr` runs saphyr-parser's events alone over the same text, for
//! comparison (instruction counts: run under `valgrind --tool=callgrind`).
use std::time::Instant;

use goyaml_splice::{Context, Tree};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let text = std::fs::read_to_string(&args[0]).expect("a readable file");
    let which = args.get(1).map_or("ours", String::as_str);
    let runs: usize = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(5);
    let mut best = f64::MAX;
    let mut count = 0;
    for _ in 0..runs {
        let t = Instant::now();
        count = match which {
            "saphyr" => {
                let mut n = 0;
                for e in saphyr_parser::Parser::new_from_str(&text) {
                    e.expect("saphyr reads it");
                    n += 1;
                }
                n
            }
            _ => Tree::parse(&text, Context::of(&text)).expect("reads").len(),
        };
        best = best.min(t.elapsed().as_secs_f64());
    }
    let mb = text.len() as f64 / 1e6;
    println!(
        "{which}: {mb:.1} MB in {:.3} s: {:.0} MB/s ({count} nodes or events)",
        best,
        mb / best
    );
}
