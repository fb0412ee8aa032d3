//! Prints how the reader reads a file: each document's data as one JSON-like line
//! (`--spans`: each node's kind and text).
use goyaml_splice::{Context, Kind, NodeId, Tree};

fn spans(tree: &Tree<'_>, id: NodeId, depth: usize) {
    let s = tree.span(id);
    println!(
        "{}{:?} {:?} lead={:?}",
        "  ".repeat(depth),
        tree.kind(id),
        &tree.src()[s.start()..s.end()],
        tree.lead(id)
    );
    match tree.kind(id) {
        Kind::Map { .. } => {
            for (k, v) in tree.own_entries(id) {
                spans(tree, k, depth + 1);
                spans(tree, v, depth + 2);
            }
        }
        Kind::Seq { .. } => {
            for i in tree.items(id) {
                spans(tree, i, depth + 1);
            }
        }
        _ => {}
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.iter().find(|a| !a.starts_with("--")).expect("a file");
    let text = std::fs::read_to_string(path).expect("readable");
    match Tree::parse(&text, Context::of(&text)) {
        Ok(tree) => {
            for d in tree.documents() {
                if args.iter().any(|a| a == "--spans") {
                    spans(&tree, d.root(), 0);
                } else {
                    println!("{}", tree.data(d.root()));
                }
            }
        }
        Err(e) => println!("error: {e} ({:?})", e.kind()),
    }
}
