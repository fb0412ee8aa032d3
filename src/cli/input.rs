//! The binary's input edge: what to read (stdin, files, directories, a kpt package's
//! Kptfile), how several texts become the one stream the library reads, and how the
//! library's edits map back onto each text. The library never touches the file system;
//! this module and `main.rs` do.
//!
//! Several files, or JSON that is not one document (a top-level array of objects, or
//! concatenated objects), are read as *segments*: each file, or each JSON object, is
//! one document of a joined `---` stream. The library edits that stream; its
//! `item_edits` (byte ranges of the joined text) map back to the segment, and so to the
//! file and offset they came from. Each file is then edited in place of its own bytes,
//! so output stays lossless whatever shape the input had.

use std::fs;
use std::io::Read as _;
use std::path::{Path, PathBuf};

use config_hash::model::invocation::{KptStep, kptfile_text_step};
use config_hash::yaml::NodeId;
use config_hash::yaml::breaks::UNICODE_BREAKS;

/// One text read: a file, or stdin (`path` None).
#[derive(Debug)]
pub struct Source {
    pub path: Option<PathBuf>,
    pub text: String,
}

impl Source {
    pub fn name(&self) -> String {
        self.path
            .as_ref()
            .map_or_else(|| "stdin".to_string(), |p| p.display().to_string())
    }
}

/// A span of one source that is one document of the joined stream.
#[derive(Debug)]
struct Segment {
    source: usize,
    start: usize,
    end: usize,
    /// Where the span starts in the joined text.
    joined_start: usize,
}

/// Sources joined into one stream for the library, with the way back.
#[derive(Debug)]
pub struct Package {
    pub sources: Vec<Source>,
    segments: Vec<Segment>,
    /// The joined text, when it is not one source's own text: a large input on stdin
    /// is not copied.
    joined: Option<String>,
}

/// The edits mapped to one source: `(start, end, replacement)` in its own bytes.
pub type Edits = Vec<(usize, usize, String)>;

impl Package {
    /// Joins `sources` (files in order; the JSON ones split into their objects).
    pub fn new(sources: Vec<Source>) -> Result<Package, String> {
        let mut segments = Vec::new();
        let mut joined = String::new();
        let mut spans_of = Vec::with_capacity(sources.len());
        for source in &sources {
            spans_of.push(match split_json(&source.text) {
                Some(Ok(spans)) => spans,
                Some(Err(e)) => return Err(format!("{}: {e}", source.name())),
                None => {
                    // A BOM belongs to its file, not to the joined stream.
                    let start = if source.text.starts_with('\u{feff}') {
                        3
                    } else {
                        0
                    };
                    vec![(start, source.text.len())]
                }
            });
        }
        // One text read whole is not copied (see `joined()`).
        let copy = !matches!(spans_of.as_slice(), [spans] if spans.len() == 1);
        for (i, (source, spans)) in sources.iter().zip(spans_of).enumerate() {
            for (start, end) in spans {
                if !joined.is_empty() {
                    if !joined.ends_with('\n') {
                        joined.push('\n');
                    }
                    joined.push_str("---\n");
                }
                segments.push(Segment {
                    source: i,
                    start,
                    end,
                    joined_start: joined.len(),
                });
                if copy {
                    joined.push_str(&source.text[start..end]);
                }
            }
        }
        Ok(Package {
            sources,
            segments,
            joined: copy.then_some(joined),
        })
    }

    /// The sources joined into one stream (`---` between them).
    pub fn joined(&self) -> &str {
        match (&self.joined, self.segments.as_slice()) {
            (Some(text), _) => text,
            (None, [seg]) => &self.sources[seg.source].text[seg.start..seg.end],
            (None, _) => "",
        }
    }

    /// True when the joined text is one source read whole: the library can read that
    /// source directly (and a ResourceList stays a ResourceList).
    pub fn is_one_text(&self) -> bool {
        let whole = |s: &Segment| {
            let text = &self.sources[s.source].text;
            let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
            s.end == text.len() && s.start == bom
        };
        self.sources.len() == 1 && matches!(self.segments.as_slice(), [s] if whole(s))
    }

    /// Maps edits of the joined text to edits of each source.
    pub fn map_edits(&self, edits: &[(usize, usize, String)]) -> Result<Vec<Edits>, String> {
        let mut out: Vec<Edits> = self.sources.iter().map(|_| Vec::new()).collect();
        for (start, end, text) in edits {
            let idx = self
                .segments
                .partition_point(|s| s.joined_start <= *start)
                .checked_sub(1)
                .ok_or("an edit before the first document")?;
            let seg = &self.segments[idx];
            let offset = seg.start + (start - seg.joined_start);
            let len = end - start;
            if offset + len > seg.end {
                return Err("an edit across two documents (a bug in config-hash)".into());
            }
            out[seg.source].push((offset, offset + len, text.clone()));
        }
        Ok(out)
    }

    /// A line (1-based) of the joined text, worded as a place in a source.
    pub fn locate(&self, line: usize, column: usize) -> String {
        let line_start = self
            .joined()
            .split_inclusive('\n')
            .take(line.saturating_sub(1))
            .map(str::len)
            .sum::<usize>();
        let idx = self
            .segments
            .partition_point(|s| s.joined_start <= line_start)
            .saturating_sub(1);
        match self.segments.get(idx) {
            Some(seg) => {
                let source = &self.sources[seg.source];
                let at = (seg.start + line_start.saturating_sub(seg.joined_start)).min(seg.end);
                let line = source.text[..at].matches('\n').count() + 1;
                format!("{}: line {line} column {column}", source.name())
            }
            None => format!("line {line} column {column}"),
        }
    }
}

/// Where the lines of a package's joined text come from: see [`Package::line_index`].
#[derive(Debug)]
pub struct LineIndex {
    /// Where each line of the joined text starts.
    starts: Vec<usize>,
    /// Per segment, the lines of its source before it.
    before: Vec<usize>,
}

/// Where a resource of a package is: `file:line` of its document.
pub type Places = std::collections::HashMap<(String, Option<String>, String), String>;

impl Package {
    /// Where each resource of the files is, by kind, namespace and name: the file and
    /// the line its object starts on. The files are parsed again, so this is for runs
    /// that have something to report. Input from stdin has no place to name.
    pub fn places(&self) -> Places {
        let mut places = Places::new();
        let index = self.line_index();
        for (seg, &lines_before) in self.segments.iter().zip(&index.before) {
            let source = &self.sources[seg.source];
            let Some(path) = &source.path else { continue };
            let text = &source.text[seg.start..seg.end];
            let Ok(tree) = config_hash::yaml::parse(text) else {
                continue;
            };
            for doc in tree.documents() {
                let root = doc.root();
                let is_list = tree
                    .get(root, "kind")
                    .and_then(|k| tree.str(k))
                    .is_some_and(|k| k.ends_with("List"));
                let objects: Vec<NodeId> = if tree.is_seq(root) {
                    tree.items(root).collect()
                } else if is_list {
                    tree.get(root, "items")
                        .map(|i| tree.items(i).collect())
                        .unwrap_or_default()
                } else {
                    vec![root]
                };
                for object in objects.into_iter().filter(|&o| tree.is_map(o)) {
                    let id = config_hash::model::resource::ResourceId::of(&tree, object);
                    let (line, _) = tree.line_col(tree.content_start(object));
                    places
                        .entry(id.kind_namespace_name())
                        .or_insert_with(|| format!("{}:{}", path.display(), lines_before + line));
                }
            }
        }
        places
    }

    /// Where the lines of the joined text come from, for [`Package::source_line`]: built
    /// once, so that many findings with a line cost one pass over the text.
    pub fn line_index(&self) -> LineIndex {
        let starts = std::iter::once(0)
            .chain(self.joined().match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        // Lines of its source before each segment, counted once per source.
        let mut before = Vec::with_capacity(self.segments.len());
        let mut counted: Option<(usize, usize, usize)> = None; // (source, offset, lines)
        for seg in &self.segments {
            let (from, lines) = match counted {
                Some((source, offset, lines)) if source == seg.source => (offset, lines),
                _ => (0, 0),
            };
            let text = &self.sources[seg.source].text;
            let lines = lines + text[from..seg.start].matches('\n').count();
            before.push(lines);
            counted = Some((seg.source, seg.start, lines));
        }
        LineIndex { starts, before }
    }

    /// The source and its 1-based line that a line of the joined text comes from.
    pub fn source_line(&self, index: &LineIndex, line: usize) -> Option<(&Source, usize)> {
        let line_start = *index.starts.get(line.checked_sub(1)?)?;
        let idx = self
            .segments
            .partition_point(|s| s.joined_start <= line_start)
            .checked_sub(1)?;
        let seg = &self.segments[idx];
        let first_line = index.starts.partition_point(|&s| s <= seg.joined_start);
        Some((
            &self.sources[seg.source],
            index.before[idx] + line - first_line + 1,
        ))
    }

    /// The files of the package that are kustomizations, and the Kustomization objects
    /// among its documents: config-hash reads what kustomize builds, not what it builds
    /// from.
    pub fn kustomizations(&self) -> Vec<String> {
        let mut found = Vec::new();
        for source in &self.sources {
            let file_name = source
                .path
                .as_ref()
                .and_then(|p| p.file_name())
                .and_then(|n| n.to_str());
            if matches!(
                file_name,
                Some("kustomization.yaml" | "kustomization.yml" | "Kustomization")
            ) {
                found.push(source.name());
                continue;
            }
            if !source.text.contains("Kustomization") {
                continue;
            }
            let Ok(tree) = config_hash::yaml::parse(source.text.trim_start_matches('\u{feff}'))
            else {
                continue;
            };
            let is_kustomization = |root| {
                tree.get(root, "kind").and_then(|k| tree.str(k)) == Some("Kustomization")
                    && tree
                        .get(root, "apiVersion")
                        .and_then(|v| tree.str(v))
                        .is_some_and(|v| v.starts_with("kustomize.config.k8s.io/"))
            };
            if tree.documents().iter().any(|d| is_kustomization(d.root())) {
                found.push(source.name());
            }
        }
        found
    }
}

/// `edits` (non-overlapping, any order) applied to `text`.
pub fn apply(text: &str, edits: &[(usize, usize, String)]) -> String {
    let mut sorted: Vec<&(usize, usize, String)> = edits.iter().collect();
    sorted.sort_by_key(|e| (e.0, e.1));
    let mut out = String::with_capacity(text.len() + 256);
    let mut at = 0;
    for (start, end, replacement) in sorted {
        out.push_str(&text[at..*start]);
        out.push_str(replacement);
        at = *end;
    }
    out.push_str(&text[at..]);
    out
}

/// The spans of the objects of JSON that is not one document: `[{...}, {...}]` or
/// `{...} {...}`. `None` for anything else (YAML, one JSON document, or text the YAML
/// reader should report on); `Err` for an array that holds something other than objects.
fn split_json(text: &str) -> Option<Result<Vec<(usize, usize)>, String>> {
    let bytes = text.as_bytes();
    let skip_ws = |mut i: usize| {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let first = skip_ws(bom);
    match bytes.get(first) {
        Some(b'[') => {
            let end = value_end(bytes, first)?;
            if skip_ws(end) != bytes.len() {
                return None;
            }
            let mut spans = Vec::new();
            let mut i = skip_ws(first + 1);
            while i < end - 1 {
                if bytes[i] != b'{' {
                    return Some(Err(format!(
                        "a top-level JSON array must hold only objects (manifests); item {} is not an object",
                        spans.len()
                    )));
                }
                let item_end = value_end(bytes, i)?;
                spans.push((i, item_end));
                i = skip_ws(item_end);
                if bytes.get(i) == Some(&b',') {
                    i = skip_ws(i + 1);
                }
            }
            Some(Ok(spans))
        }
        Some(b'{') => {
            let mut spans = Vec::new();
            let mut i = first;
            while i < bytes.len() {
                if bytes[i] != b'{' {
                    return None;
                }
                let end = value_end(bytes, i)?;
                spans.push((i, end));
                i = skip_ws(end);
            }
            (spans.len() > 1).then_some(Ok(spans))
        }
        _ => None,
    }
}

/// The end (exclusive) of the JSON array or object that starts at `start`, or `None`
/// when it does not close.
fn value_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut i = start;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
        } else {
            match b {
                b'"' => in_string = true,
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        return Some(i + 1);
                    }
                }
                _ => {}
            }
        }
        i += 1;
    }
    None
}

pub fn read_stdin() -> Result<String, String> {
    let mut input = Vec::new();
    std::io::stdin()
        .read_to_end(&mut input)
        .map_err(|e| format!("cannot read stdin: {e}"))?;
    String::from_utf8(input)
        .map_err(|_| "stdin is not UTF-8 text (manifests are YAML or JSON)".to_string())
}

pub fn read_file(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// What the PATHs (or stdin, when there are none) hold: files as given, directories
/// expanded to their manifest files (see [`manifest_files`]). `skip` are files
/// that are configuration, not manifests (a Kptfile's configPath).
pub fn read_sources(paths: &[PathBuf], skip: &[PathBuf]) -> Result<Vec<Source>, String> {
    if paths.is_empty() {
        return Ok(vec![Source {
            path: None,
            text: read_stdin()?,
        }]);
    }
    let mut sources = Vec::new();
    for path in paths {
        for file in manifest_files(path)? {
            let same = |p: &PathBuf| p.canonicalize().ok() == file.canonicalize().ok();
            if path.is_dir() && skip.iter().any(same) {
                continue;
            }
            let text = read_file(&file)?;
            sources.push(Source {
                path: Some(file),
                text,
            });
        }
    }
    Ok(sources)
}

/// Reads PATHs (or stdin) as one package.
pub fn read_package(paths: &[PathBuf], skip: &[PathBuf]) -> Result<Package, String> {
    let package = Package::new(read_sources(paths, skip)?)?;
    if is_blank(package.joined()) {
        return Err(if paths.is_empty() {
            "stdin holds no manifests (only whitespace or comments); did the command before the pipe fail?".to_string()
        } else {
            format!(
                "{} hold(s) no manifests (only whitespace or comments, or no *.yaml, *.yml, *.json files)",
                paths
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        });
    }
    Ok(package)
}

/// The functionConfig of the kpt packages among `paths` (directories with a Kptfile
/// whose pipeline runs config-hash), and the configPath files to leave out of the
/// manifests. Packages that disagree are an error: run them one at a time.
pub fn kpt_config(paths: &[PathBuf]) -> Result<(Option<String>, Vec<PathBuf>), String> {
    let mut found: Vec<(PathBuf, String)> = Vec::new();
    for dir in paths.iter().filter(|p| p.is_dir()) {
        if let Some(config) = kptfile_config(dir)? {
            found.push(config);
        }
    }
    let skip = found.iter().map(|(from, _)| from.clone()).collect();
    match found.as_slice() {
        [] => Ok((None, skip)),
        [(_, first), rest @ ..] => {
            if let Some((other, _)) = rest.iter().find(|(_, c)| c != first) {
                return Err(format!(
                    "the kpt packages configure config-hash differently ({} and {}); run config-hash on one package at a time",
                    found[0].0.display(),
                    other.display()
                ));
            }
            Ok(((!first.is_empty()).then(|| first.clone()), skip))
        }
    }
}

/// True when `text` holds no YAML content: only whitespace, comments, document markers
/// (`---`, `...`) and a BOM. An upstream command that failed (`kubectl kustomize dir |
/// config-hash`) leaves exactly this, and passing it on as "nothing to stamp" would
/// hide the failure.
pub fn is_blank(text: &str) -> bool {
    // A lone CR is a line break too (go-yaml reads it so): `# c\rkind: X` is not a
    // comment; so are NEL, LS and PS in YAML text.
    text.trim_start_matches('\u{feff}')
        .split(|c| matches!(c, '\n' | '\r') || UNICODE_BREAKS.contains(&c))
        .all(|line| {
            let line = line.trim();
            line.is_empty()
                || line.starts_with('#')
                || line == "..."
                || line.strip_prefix("---").is_some_and(|rest| {
                    let rest = rest.trim_start();
                    rest.is_empty() || rest.starts_with('#')
                })
        })
}

/// The Helm charts among `paths`: a directory holding `Chart.yaml`, given or below one
/// given (hidden directories skipped, as the manifest walk skips them), and the chart a
/// given file belongs to (under a directory holding `Chart.yaml`). Its templates are not
/// manifests until Helm renders them.
pub fn charts(paths: &[PathBuf]) -> Vec<PathBuf> {
    fn below(dir: &Path, out: &mut Vec<PathBuf>) {
        if dir.join("Chart.yaml").is_file() {
            out.push(dir.to_path_buf());
            return;
        }
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        let mut dirs: Vec<PathBuf> = entries
            .flatten()
            .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        for d in dirs {
            below(&d, out);
        }
    }
    let mut out = Vec::new();
    for path in paths {
        if path.is_dir() {
            below(path, &mut out);
        } else {
            // As written where it names the chart, else from its absolute path (a
            // template named from inside the chart).
            let absolute = path.canonicalize().ok();
            let chart = [Some(path.as_path()), absolute.as_deref()]
                .into_iter()
                .flatten()
                .find_map(|p| {
                    p.ancestors()
                        .skip(1)
                        .filter(|d| !d.as_os_str().is_empty())
                        .find(|d| d.join("Chart.yaml").is_file())
                });
            out.extend(chart.map(Path::to_path_buf));
        }
    }
    out
}

/// The manifest files under `path`: itself when it is a file; for a directory every
/// `*.yaml`, `*.yml` and `*.json` below it, sorted, skipping hidden files and
/// directories (`.git`, kpt's `.expected`). A Kptfile has no such extension, so it is
/// never read as a manifest.
pub fn manifest_files(path: &Path) -> Result<Vec<PathBuf>, String> {
    let meta = fs::metadata(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    if !meta.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut out = Vec::new();
    walk(path, &mut out)?;
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .and_then(|rd| rd.collect::<Result<Vec<_>, _>>())
        .map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        let file_type =
            fs::metadata(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        if file_type.is_dir() {
            walk(&path, out)?;
        } else if [".yaml", ".yml", ".json"]
            .iter()
            .any(|ext| name.ends_with(ext))
        {
            out.push(path);
        }
    }
    Ok(())
}

/// Writes `text` to `path` atomically: a temporary file in the same directory, given
/// the original's permissions, then renamed over it. A reader (or an interrupted run)
/// sees the old file or the new one, never half of one. No fsync: durability across a
/// power loss is the file system's business, and syncing each file made rewriting a
/// 10,000-file package take 17 s instead of 5 s here.
pub fn write_atomically(path: &Path, text: &str) -> Result<(), String> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let tmp = dir.join(format!(".{name}.config-hash-{}.tmp", std::process::id()));
    let result = (|| {
        let permissions = fs::metadata(path)?.permissions();
        fs::write(&tmp, text)?;
        fs::set_permissions(&tmp, permissions)?;
        fs::rename(&tmp, path)
    })();
    result.map_err(|e| {
        let _ = fs::remove_file(&tmp);
        format!("cannot write {}: {e}", path.display())
    })
}

/// The functionConfig a kpt package's Kptfile gives config-hash: the first pipeline
/// mutator whose `exec` or `image` names config-hash, with its `configMap` (as a
/// ConfigMap document) or `configPath` (that file, relative to the package), and the
/// file it came from. `Ok(None)` when the directory has no Kptfile or its pipeline does
/// not run config-hash; an empty text when the step has no configuration.
pub fn kptfile_config(dir: &Path) -> Result<Option<(PathBuf, String)>, String> {
    let kptfile = dir.join("Kptfile");
    let text = match fs::read_to_string(&kptfile) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read {}: {e}", kptfile.display())),
    };
    match kptfile_text_step(&text).map_err(|e| format!("{}: {e}", kptfile.display()))? {
        None => Ok(None),
        Some(KptStep::Bare) => Ok(Some((kptfile, String::new()))),
        Some(KptStep::Map(config)) => Ok(Some((kptfile, config))),
        Some(KptStep::Path(path)) => {
            let file = dir.join(&path);
            let config = fs::read_to_string(&file).map_err(|e| {
                format!(
                    "{}: pipeline step configPath {path}: cannot read {}: {e}",
                    kptfile.display(),
                    file.display()
                )
            })?;
            Ok(Some((file, config)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blank_is_only_whitespace_comments_and_markers() {
        for blank in ["", "\n \n", "# c\n---\n  # d\n...\n", "\u{feff}--- # x\n"] {
            assert!(is_blank(blank), "{blank:?}");
        }
        for content in [
            "a: 1",
            "--- a: 1\n",
            "# c\n{}\n",
            "[]",
            "--- !tag\n",
            "# c\u{2029}a: 1\n",
        ] {
            assert!(!is_blank(content), "{content:?}");
        }
    }

    #[test]
    fn splits_json_arrays_and_concatenations_only() {
        let text = " [ {\"a\": \"]\"}, {\"b\": [1, {\"c\": \"\\\"}\"}]} ]\n";
        let spans = split_json(text).unwrap().unwrap();
        let parts: Vec<&str> = spans.iter().map(|&(s, e)| &text[s..e]).collect();
        assert_eq!(
            parts,
            ["{\"a\": \"]\"}", "{\"b\": [1, {\"c\": \"\\\"}\"}]}"]
        );
        let text = "{\"a\": 1}\n{\"b\": 2}{\"c\": 3}\n";
        let spans = split_json(text).unwrap().unwrap();
        assert_eq!(spans, [(0, 8), (9, 17), (17, 25)]);
        assert!(split_json("{\"a\": 1}\n").is_none());
        assert!(split_json("a: [1]\n").is_none());
        assert!(split_json("{\"a\": 1}\nb: 2\n").is_none());
        assert!(split_json("[{\"a\": 1}, 2]").unwrap().is_err());
    }

    #[test]
    fn edits_map_back_to_their_source() {
        let sources = vec![
            Source {
                path: Some("a.yaml".into()),
                text: "a: 1".into(),
            },
            Source {
                path: Some("b.json".into()),
                text: "[{\"b\": 2}, {\"c\": 3}]".into(),
            },
        ];
        let package = Package::new(sources).unwrap();
        assert_eq!(package.joined(), "a: 1\n---\n{\"b\": 2}\n---\n{\"c\": 3}");
        let at = |s: &str| package.joined().find(s).unwrap();
        let edits = package
            .map_edits(&[
                (at("1"), at("1") + 1, "9".into()),
                (at("3"), at("3") + 1, "7".into()),
            ])
            .unwrap();
        assert_eq!(apply(&package.sources[0].text, &edits[0]), "a: 9");
        assert_eq!(
            apply(&package.sources[1].text, &edits[1]),
            "[{\"b\": 2}, {\"c\": 7}]"
        );
        assert_eq!(package.locate(5, 3), "b.json: line 1 column 3");
    }

    #[test]
    fn lines_and_places_map_back_to_each_file() {
        let sources = vec![
            Source {
                path: Some("a.yaml".into()),
                text: "# a\nkind: ConfigMap\nmetadata: {name: x}\n---\nkind: Secret\nmetadata: {name: y}\n".into(),
            },
            Source {
                path: Some("b.json".into()),
                text: "[\n{\"kind\": \"Secret\",\n \"metadata\": {\"name\": \"z\"}},\n{\"kind\": \"Job\", \"metadata\": {\"name\": \"w\"}}\n]\n".into(),
            },
        ];
        let package = Package::new(sources).unwrap();
        let places = package.places();
        let at =
            |kind: &str, name: &str| places[&(kind.to_string(), None, name.to_string())].clone();
        assert_eq!(at("ConfigMap", "x"), "a.yaml:2");
        assert_eq!(at("Secret", "y"), "a.yaml:5");
        assert_eq!(at("Secret", "z"), "b.json:2");
        assert_eq!(at("Job", "w"), "b.json:4");
        let index = package.line_index();
        let joined_line = |needle: &str| {
            package.joined()[..package.joined().find(needle).unwrap()]
                .matches('\n')
                .count()
                + 1
        };
        for (needle, file, line) in [
            ("name: y", "a.yaml", 6),
            ("\"z\"", "b.json", 3),
            ("\"w\"", "b.json", 4),
        ] {
            let (source, own) = package.source_line(&index, joined_line(needle)).unwrap();
            assert_eq!((source.name().as_str(), own), (file, line), "{needle}");
        }
    }
}
