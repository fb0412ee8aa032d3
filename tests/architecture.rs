//! The architecture as a test: the library's folders are its layers, and a module may
//! name modules of its own layer or of a lower one, never of a higher one; no modules
//! name each other in a circle, in the library, the binary or the YAML crate.
//!
//! ```text
//! cli (the binary: src/main.rs, src/cli/)      -- names the library through config_hash::
//! lib.rs          the library's entry points
//! views           graph, diff, audit, prune
//! run             frame, pass 1, pass 2, conclusion
//! edit            stamps, env shifts, renames, results
//! resolve         sources, renames decided, workloads, rollout holds
//! read            chunks, streams, reference sites, producers, content
//! model           resources, catalog, configuration, findings and their words, hashes
//! yaml.rs         the door to the YAML crate (crates/yaml)
//! ```
//!
//! What a module names is read from its code, not its comments or strings: every path
//! that starts at `crate::`, `super::` or `self::`, or at a child module the file
//! declares. Unit tests (`#[cfg(test)]` modules) may set up their cases through any
//! entry point, so they are not read.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The library's layers, lowest first: a top-level module of the library, a folder
/// under `src/` or a file at its root, and the layer it is in.
const LAYERS: &[&str] = &["yaml", "model", "read", "resolve", "edit", "run", "views"];

/// The rank of the library's root, above every layer.
const ROOT: usize = LAYERS.len();

/// A source file, as a module: where it is and the module path of its items.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Module {
    file: PathBuf,
    /// From the crate root: `["model", "catalog"]`; empty for the root.
    path: Vec<String>,
}

/// What a file's code says, outside comments, strings and unit tests: the paths it
/// names (each as its segments), and the child modules it declares.
#[derive(Debug, Default)]
struct Code {
    paths: Vec<Vec<String>>,
    children: Vec<String>,
}

fn read_code(text: &str) -> Code {
    let tokens = tokens(text);
    let mut code = Code::default();
    let mut i = 0;
    while i < tokens.len() {
        let t = &tokens[i];
        // `#[cfg(test)]` then an item: skip the item (a module, or a single function).
        if t == "#"
            && tokens
                .get(i + 1..i + 7)
                .is_some_and(|w| w == ["[", "cfg", "(", "test", ")", "]"])
        {
            i = skip_item(&tokens, i + 7);
            continue;
        }
        if t == "mod" && tokens.get(i + 2).is_some_and(|s| s == ";") {
            code.children.push(tokens[i + 1].clone());
            i += 3;
            continue;
        }
        if is_ident(t)
            && tokens.get(i + 1).is_some_and(|s| s == "::")
            && !(i > 0 && tokens[i - 1] == "::")
        {
            // A path: its segments; `use a::{b, c::d}` names a::b and a::c.
            let mut segments = vec![t.clone()];
            let mut j = i + 1;
            while tokens.get(j).is_some_and(|s| s == "::") {
                match tokens.get(j + 1) {
                    Some(s) if is_ident(s) => {
                        segments.push(s.clone());
                        j += 2;
                    }
                    Some(s) if s == "{" => {
                        // A use group names what is in it, not the module before it.
                        for group in brace_group(&tokens, j + 1) {
                            let mut p = segments.clone();
                            p.extend(group);
                            code.paths.push(p);
                        }
                        segments.clear();
                        break;
                    }
                    _ => break,
                }
            }
            if !segments.is_empty() {
                code.paths.push(segments);
            }
            i = j.max(i + 1);
            continue;
        }
        i += 1;
    }
    code
}

/// The first segments of each path in a `{...}` use group starting at `open` (nested
/// groups give their own first segments after their prefix).
fn brace_group(tokens: &[String], open: usize) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut current: Vec<String> = Vec::new();
    let mut depth = 0;
    let mut i = open;
    while i < tokens.len() {
        let t = tokens[i].as_str();
        match t {
            "{" => {
                depth += 1;
                if depth > 1 {
                    // A nested group: its prefix is what came before.
                    for group in brace_group(tokens, i) {
                        let mut p = current.clone();
                        p.extend(group);
                        out.push(p);
                    }
                    i = matching(tokens, i);
                    depth -= 1;
                    current.clear();
                }
            }
            "}" => {
                if !current.is_empty() {
                    out.push(std::mem::take(&mut current));
                }
                return out;
            }
            "," if !current.is_empty() => out.push(std::mem::take(&mut current)),
            "as" => {
                i += 1;
            }
            "::" => {}
            t if is_ident(t) && depth == 1 => current.push(t.to_string()),
            _ => {}
        }
        i += 1;
    }
    out
}

fn matching(tokens: &[String], open: usize) -> usize {
    let mut depth = 0;
    for (i, t) in tokens.iter().enumerate().skip(open) {
        match t.as_str() {
            "{" => depth += 1,
            "}" => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
    }
    tokens.len()
}

/// Skips one item from `from`: to the end of its first `{...}` block, or its `;`.
fn skip_item(tokens: &[String], from: usize) -> usize {
    for (i, t) in tokens.iter().enumerate().skip(from) {
        match t.as_str() {
            "{" => return matching(tokens, i) + 1,
            ";" => return i + 1,
            _ => {}
        }
    }
    tokens.len()
}

fn is_ident(t: &str) -> bool {
    t.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// Identifiers, `::` and single punctuation characters, without comments, string,
/// character and byte literals, lifetimes and numbers.
fn tokens(text: &str) -> Vec<String> {
    let b: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == 'r' && (next == Some('"') || (next == Some('#') && raw_string_at(&b, i + 1)))
        {
            i = skip_raw_string(&b, i + 1);
        } else if c == 'b' && next == Some('r') && raw_string_at(&b, i + 2) {
            i = skip_raw_string(&b, i + 2);
        } else if c == '"' {
            i = skip_quoted(&b, i, '"');
        } else if c == '\'' {
            // A character literal ('a', '\n', '\u{1F}') or a lifetime ('a).
            if b.get(i + 1) == Some(&'\\') || b.get(i + 2) == Some(&'\'') {
                i = skip_quoted(&b, i, '\'');
            } else {
                i += 1;
                while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_') {
                    i += 1;
                }
            }
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_') {
                i += 1;
            }
            // `b"..."`, `b'x'`: a byte literal.
            if i - start == 1 && c == 'b' && matches!(b.get(i), Some('"') | Some('\'')) {
                continue;
            }
            out.push(b[start..i].iter().collect());
        } else if c.is_ascii_digit() {
            while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_' || b[i] == '.') {
                i += 1;
            }
        } else if c == ':' && next == Some(':') {
            out.push("::".to_string());
            i += 2;
        } else {
            if !c.is_whitespace() {
                out.push(c.to_string());
            }
            i += 1;
        }
    }
    out
}

/// Whether `r` followed by hashes then a quote starts at `at` (after the `r`).
fn raw_string_at(b: &[char], at: usize) -> bool {
    let mut i = at;
    while b.get(i) == Some(&'#') {
        i += 1;
    }
    b.get(i) == Some(&'"')
}

fn skip_raw_string(b: &[char], at: usize) -> usize {
    let mut hashes = 0;
    let mut i = at;
    while b.get(i) == Some(&'#') {
        hashes += 1;
        i += 1;
    }
    i += 1;
    while i < b.len() {
        if b[i] == '"' && (1..=hashes).all(|k| b.get(i + k) == Some(&'#')) {
            return i + 1 + hashes;
        }
        i += 1;
    }
    b.len()
}

fn skip_quoted(b: &[char], at: usize, quote: char) -> usize {
    let mut i = at + 1;
    while i < b.len() {
        match b[i] {
            '\\' => i += 2,
            c if c == quote => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

/// Every `.rs` file under `dir`, as modules of a crate rooted at `root_file`.
fn modules(src: &Path, root_file: &str) -> Vec<Module> {
    let mut out = Vec::new();
    collect(src, src, root_file, &mut out);
    out.sort();
    out
}

fn collect(src: &Path, dir: &Path, root_file: &str, out: &mut Vec<Module>) {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(src, &p, root_file, out);
            continue;
        }
        if p.extension().and_then(|e| e.to_str()) != Some("rs") {
            continue;
        }
        let rel = p.strip_prefix(src).unwrap();
        let mut path: Vec<String> = rel
            .iter()
            .map(|s| s.to_string_lossy().into_owned())
            .collect();
        let last = path.pop().unwrap();
        let stem = last.trim_end_matches(".rs");
        if !(path.is_empty() && stem == root_file.trim_end_matches(".rs")) && stem != "mod" {
            path.push(stem.to_string());
        }
        out.push(Module { file: p, path });
    }
}

/// The module a path names, from `from`: the deepest module of `modules` it goes
/// through (an item's path names the module that holds the item).
fn target<'m>(
    modules: &'m [Module],
    from: &Module,
    path: &[String],
    children: &[String],
) -> Option<&'m Module> {
    let (mut at, rest): (Vec<String>, &[String]) = match path.first().map(String::as_str) {
        Some("crate") => (Vec::new(), &path[1..]),
        Some("self") => (from.path.clone(), &path[1..]),
        Some("super") => {
            let mut base = from.path.clone();
            let mut rest = path;
            while rest.first().map(String::as_str) == Some("super") {
                base.pop();
                rest = &rest[1..];
            }
            (base, rest)
        }
        Some(first) if children.iter().any(|c| c == first) => (from.path.clone(), path),
        _ => return None,
    };
    let find = |p: &[String]| modules.iter().find(|m| m.path == p);
    let mut best = find(&at);
    for seg in rest {
        at.push(seg.clone());
        match find(&at) {
            Some(m) => best = Some(m),
            None => break,
        }
    }
    best
}

/// Who names whom, between files: (from, to), from's code only.
fn edges(src: &Path, root_file: &str) -> (Vec<Module>, BTreeSet<(usize, usize)>) {
    let modules = modules(src, root_file);
    let mut edges = BTreeSet::new();
    for (i, m) in modules.iter().enumerate() {
        let text = fs::read_to_string(&m.file).unwrap();
        let code = read_code(&text);
        for path in &code.paths {
            if let Some(t) = target(&modules, m, path, &code.children) {
                let j = modules.iter().position(|x| x == t).unwrap();
                if i != j {
                    edges.insert((i, j));
                }
            }
        }
    }
    (modules, edges)
}

fn rank(m: &Module) -> usize {
    match m.path.first() {
        None => ROOT,
        Some(top) => LAYERS.iter().position(|l| l == top).unwrap_or_else(|| {
            panic!(
                "{} is in no layer: put it in one of {LAYERS:?}",
                m.file.display()
            )
        }),
    }
}

/// Circles among the files: each strongly connected component of more than one file.
fn circles(n: usize, edges: &BTreeSet<(usize, usize)>) -> Vec<Vec<usize>> {
    let mut out: BTreeMap<Vec<usize>, ()> = BTreeMap::new();
    let adj = |v: usize| edges.iter().filter(move |e| e.0 == v).map(|e| e.1);
    // Reachability by repeated search: the inputs are a few dozen files.
    let reach: Vec<BTreeSet<usize>> = (0..n)
        .map(|v| {
            let mut seen = BTreeSet::new();
            let mut stack = vec![v];
            while let Some(x) = stack.pop() {
                for y in adj(x) {
                    if seen.insert(y) {
                        stack.push(y);
                    }
                }
            }
            seen
        })
        .collect();
    for v in 0..n {
        let comp: Vec<usize> = (0..n)
            .filter(|&w| w == v || (reach[v].contains(&w) && reach[w].contains(&v)))
            .collect();
        if comp.len() > 1 || reach[v].contains(&v) {
            out.insert(comp, ());
        }
    }
    out.into_keys().collect()
}

fn names(modules: &[Module], ids: &[usize]) -> String {
    ids.iter()
        .map(|&i| modules[i].file.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn the_library_names_only_its_own_layer_and_those_below() {
    let (modules, edges) = edges(&root().join("src"), "lib.rs");
    let library: Vec<usize> = (0..modules.len())
        .filter(|&i| !is_binary(&modules[i]))
        .collect();
    assert!(library.len() > 20, "found {} library files", library.len());
    let mut upward = Vec::new();
    for &(a, b) in &edges {
        let (from, to) = (&modules[a], &modules[b]);
        if is_binary(from) || is_binary(to) {
            continue;
        }
        if rank(to) > rank(from) {
            upward.push(format!(
                "{} names {} (layer {} is above {})",
                from.file.display(),
                to.file.display(),
                layer_name(to),
                layer_name(from)
            ));
        }
    }
    assert!(
        upward.is_empty(),
        "imports that point up a layer:\n{}",
        upward.join("\n")
    );
}

fn layer_name(m: &Module) -> &str {
    m.path.first().map_or("the library root", String::as_str)
}

/// The binary's files: `src/main.rs` and `src/cli/`, a crate of their own.
fn is_binary(m: &Module) -> bool {
    m.path.first().is_some_and(|p| p == "main" || p == "cli")
}

#[test]
fn no_files_name_each_other_in_a_circle() {
    for (src, root_file) in [
        (root().join("src"), "lib.rs"),
        (root().join("crates/yaml/src"), "lib.rs"),
    ] {
        let (modules, edges) = edges(&src, root_file);
        let found = circles(modules.len(), &edges);
        let words: Vec<String> = found
            .iter()
            .map(|c| {
                let within: Vec<String> = edges
                    .iter()
                    .filter(|(a, b)| c.contains(a) && c.contains(b))
                    .map(|&(a, b)| {
                        format!(
                            "  {} names {}",
                            modules[a].file.display(),
                            modules[b].file.display()
                        )
                    })
                    .collect();
                format!("{}:\n{}", names(&modules, c), within.join("\n"))
            })
            .collect();
        assert!(
            found.is_empty(),
            "files that name each other in a circle:\n{}",
            words.join("\n")
        );
    }
}

/// The test reads what it must: an upward import, a circle, and what it must not count.
#[test]
fn the_reader_finds_paths_in_code_only() {
    let code = read_code(
        r##"
//! names crate::run::pipeline in a comment
use crate::model::{catalog::Catalog, config::{Config, Mode}};
use crate::read::references as refs;
mod child;
fn f() { let s = "crate::views::graph"; let r = r#"crate::edit"#; let c = '"'; child::g(); super::sibling::h(); }
#[cfg(test)]
mod tests { use crate::run::pipeline; }
"##,
    );
    let paths: Vec<String> = code.paths.iter().map(|p| p.join("::")).collect();
    for want in [
        "crate::model::catalog::Catalog",
        "crate::model::config::Config",
        "crate::model::config::Mode",
        "crate::read::references",
        "child::g",
        "super::sibling::h",
    ] {
        assert!(paths.contains(&want.to_string()), "{want} not in {paths:?}");
    }
    assert!(
        !paths
            .iter()
            .any(|p| p.contains("run") || p.contains("views") || p.contains("edit")),
        "{paths:?}"
    );
    assert_eq!(code.children, ["child"]);

    let n = 3;
    let edges: BTreeSet<(usize, usize)> = [(0, 1), (1, 2), (2, 0)].into();
    assert_eq!(circles(n, &edges), vec![vec![0, 1, 2]]);
    assert!(circles(n, &[(0, 1), (1, 2)].into()).is_empty());
}
