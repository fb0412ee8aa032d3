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
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use config_hash::model::invocation::{KptStep, kptfile_text_step};
use config_hash::model::lengths::Lengths;
use config_hash::yaml::breaks::UNICODE_BREAKS;
use config_hash::yaml::{Edits, JoinError, Joined, LineIndex, NodeId};
use rayon::prelude::*;

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

/// Sources joined into one stream for the library, with the way back.
#[derive(Debug)]
pub struct Package {
    pub sources: Vec<Source>,
    joined: Joined,
    /// Why the package is refused once it is known to read: a text named on the
    /// command line (a FILE, or stdin) that holds no Kubernetes object at all. kubectl
    /// and kustomize refuse such a file too; a file found in a directory is passed
    /// through, as kpt does.
    pub objectless: Option<String>,
}

impl AsRef<str> for Source {
    fn as_ref(&self) -> &str {
        &self.text
    }
}

impl Package {
    /// Joins `sources` (files in order; the JSON ones split into their objects).
    pub fn new(sources: Vec<Source>) -> Result<Package, String> {
        let joined = Joined::new(&sources).map_err(|e| match e {
            JoinError::NotAnObject { source, .. } => format!("{}: {e}", sources[source].name()),
        })?;
        Ok(Package {
            sources,
            joined,
            objectless: None,
        })
    }

    /// The sources joined into one stream (`---` between them).
    pub fn joined(&self) -> &str {
        self.joined.text(&self.sources)
    }

    /// True when the joined text is one source read whole: the library can read that
    /// source directly (and a ResourceList stays a ResourceList).
    pub fn is_one_text(&self) -> bool {
        self.joined.is_one_text(&self.sources)
    }

    /// Maps edits of the joined text to edits of each source.
    pub fn map_edits(&self, edits: &Edits) -> Result<Vec<Edits>, String> {
        self.joined.split(edits).map_err(|e| e.to_string())
    }

    /// A line (1-based) of the joined text, worded as a place in a source.
    pub fn locate(&self, line: usize, column: usize) -> String {
        match self.joined.locate(&self.sources, line) {
            Some((source, own)) => {
                format!(
                    "{}: line {own} column {column}",
                    self.sources[source].name()
                )
            }
            None => format!("line {line} column {column}"),
        }
    }
}

/// Where a resource of a package is: `file:line` of its document.
pub type Places = std::collections::HashMap<PlaceKey, String>;

/// A resource's kind, namespace and name.
pub type PlaceKey = (String, Option<String>, String);

/// The names whose places are asked for, to parse only the pieces that may hold them.
enum Wanted<'a> {
    Words {
        names: std::collections::HashSet<&'a [u8]>,
        /// Most words of a text have a length no name has, and are not hashed.
        lengths: Lengths,
    },
    /// A name that is no word of the text (empty, or holding a character that ends one).
    Any,
}

/// The bytes that end a word of the text, for [`Wanted::may_be_in`].
const BETWEEN: [bool; 256] = {
    let mut table = [false; 256];
    let ends = b" \t\r\n:\"',[]{}#";
    let mut i = 0;
    while i < ends.len() {
        table[ends[i] as usize] = true;
        i += 1;
    }
    table
};

impl<'a> Wanted<'a> {
    fn new(names: &[&'a str]) -> Self {
        let word = |n: &&str| !n.is_empty() && !n.bytes().any(|b| BETWEEN[usize::from(b)]);
        if !names.iter().all(word) {
            return Wanted::Any;
        }
        let mut lengths = Lengths::default();
        for n in names {
            lengths.insert(n.as_bytes());
        }
        Wanted::Words {
            names: names.iter().map(|n| n.as_bytes()).collect(),
            lengths,
        }
    }

    /// Whether `text` may hold an object of one of the names: one of its words is one,
    /// or it holds an escape, which could spell one. One pass over the text, however
    /// many names are asked for.
    fn may_be_in(&self, text: &str) -> bool {
        let Wanted::Words { names, lengths } = self else {
            return true;
        };
        let b = text.as_bytes();
        memchr::memchr(b'\\', b).is_some()
            || b.split(|&c| BETWEEN[usize::from(c)])
                .any(|w| !w.is_empty() && lengths.may_hold(w) && names.contains(w))
    }
}

/// A text as the run reads it apart (the splitter's cut): whole; a list, as its frame
/// (the text without its items) and its items; or its documents. Each piece comes with
/// the lines before it.
enum Apart<'t> {
    Whole,
    List {
        frame: config_hash::yaml::Cut,
        items: Vec<(&'t str, usize)>,
    },
    Documents(Vec<(&'t str, usize)>),
}

impl<'t> Apart<'t> {
    fn of(text: &'t str) -> Self {
        use config_hash::read::chunks::{Frame, split};
        let split = split(text);
        let pieces = || {
            split
                .chunks
                .iter()
                .map(|c| (c.piece().of(text), c.line_base))
                .collect()
        };
        match split.frame {
            Frame::Whole => Apart::Whole,
            Frame::List { list } => Apart::List {
                frame: config_hash::yaml::Cut::new(text, list),
                items: pieces(),
            },
            Frame::Stream => Apart::Documents(pieces()),
        }
    }
}

/// A file's text in the pieces the run reads apart, each with the lines before it: its
/// documents, or a list's items; the whole text where the run reads it whole, or where
/// what looks like a list's frame is not one.
fn pieces_of(text: &str) -> Vec<(&str, usize)> {
    let is_list = |frame: &str| {
        config_hash::yaml::parse(frame).is_ok_and(|tree| match tree.documents() {
            [doc] => kind_ends_with_list(&tree, doc.root()),
            _ => false,
        })
    };
    match Apart::of(text) {
        Apart::List { frame, items } if is_list(frame.text()) => items,
        Apart::List { .. } | Apart::Whole => vec![(text, 0)],
        Apart::Documents(documents) => documents,
    }
}

fn kind_ends_with_list(tree: &config_hash::yaml::Tree<'_>, root: NodeId) -> bool {
    tree.get(root, "kind")
        .and_then(|k| tree.str(k))
        .is_some_and(|k| k.ends_with("List"))
}

/// The objects of `text` (a piece of the file `path`, after `before` lines of it), each
/// with its place: the line its content starts on. A list's objects are its items.
fn objects_in(path: &Path, text: &str, before: usize) -> Vec<(PlaceKey, String)> {
    let Ok(tree) = config_hash::yaml::parse(text) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for doc in tree.documents() {
        let root = doc.root();
        let objects: Vec<NodeId> = if tree.is_seq(root) {
            tree.items(root).collect()
        } else if kind_ends_with_list(&tree, root) {
            tree.get(root, "items")
                .map(|i| tree.items(i).collect())
                .unwrap_or_default()
        } else {
            vec![root]
        };
        for object in objects.into_iter().filter(|&o| tree.is_map(o)) {
            let id = config_hash::model::resource::ResourceId::of(&tree, object);
            let (line, _) = tree.line_col(tree.content_start(object));
            let place = format!("{}:{}", path.display(), before + line);
            found.push((id.kind_namespace_name(), place));
        }
    }
    found
}

impl Package {
    /// Where the resources of the files named `names` are (and maybe others), by kind,
    /// namespace and name: the file and the line its object starts on. The pieces of
    /// the files that may hold them are parsed again, so this is for runs that have
    /// something to report. Input from stdin has no place to name.
    pub fn places(&self, names: &[&str]) -> Places {
        let wanted = Wanted::new(names);
        // Each file cut as the run cuts its input, and the pieces read in parallel: a
        // large file is neither parsed whole on one thread nor held whole.
        let pieces: Vec<(&Path, &str, usize)> = self
            .joined
            .parts(&self.sources)
            .filter_map(|(source, text, before)| {
                Some((self.sources[source].path.as_deref()?, text, before))
            })
            .flat_map(|(path, text, before)| {
                pieces_of(text)
                    .into_iter()
                    .map(move |(piece, lines)| (path, piece, before + lines))
            })
            .collect();
        let found: Vec<Vec<(PlaceKey, String)>> = pieces
            .par_iter()
            .filter(|&&(_, text, _)| wanted.may_be_in(text))
            .map(|&(path, text, before)| objects_in(path, text, before))
            .collect();
        let mut places = Places::new();
        for (key, place) in found.into_iter().flatten() {
            places.entry(key).or_insert(place);
        }
        places
    }

    /// Where the lines of the joined text come from, for [`Package::source_line`]: built
    /// once, so that many findings with a line cost one pass over the text.
    pub fn line_index(&self) -> LineIndex {
        self.joined.line_index(&self.sources)
    }

    /// The source and its 1-based line that a line of the joined text comes from.
    pub fn source_line(&self, index: &LineIndex, line: usize) -> Option<(&Source, usize)> {
        let (source, own) = self.joined.source_line(index, line)?;
        Some((&self.sources[source], own))
    }

    /// The files of the package that are kustomizations, and the Kustomization objects
    /// among its documents: config-hash reads what kustomize builds, not what it builds
    /// from.
    pub fn kustomizations(&self) -> Vec<String> {
        self.sources
            .iter()
            .filter(|source| {
                let file_name = source
                    .path
                    .as_ref()
                    .and_then(|p| p.file_name())
                    .and_then(|n| n.to_str());
                matches!(
                    file_name,
                    Some("kustomization.yaml" | "kustomization.yml" | "Kustomization")
                ) || holds_a_kustomization(&source.text)
            })
            .map(Source::name)
            .collect()
    }
}

/// Whether a document of `text` is a kustomize Kustomization. Only what can be one is
/// parsed: the documents that spell the kind, or a ResourceList's frame without its
/// items. A stream of many objects with one Flux `Kustomization` (another API, the same
/// kind) is not parsed whole on one thread before the run starts.
fn holds_a_kustomization(text: &str) -> bool {
    let spelled = |t: &str| memchr::memmem::find(t.as_bytes(), b"Kustomization").is_some();
    let text = text.trim_start_matches('\u{feff}');
    if !spelled(text) {
        return false;
    }
    // `None`: the text does not parse.
    let is_kustomization = |doc: &str| {
        let tree = config_hash::yaml::parse(doc).ok()?;
        let found = tree.documents().iter().any(|d| {
            let root = d.root();
            tree.get(root, "kind").and_then(|k| tree.str(k)) == Some("Kustomization")
                && tree
                    .get(root, "apiVersion")
                    .and_then(|v| tree.str(v))
                    .is_some_and(|v| v.starts_with("kustomize.config.k8s.io/"))
        });
        Some(found)
    };
    match Apart::of(text) {
        Apart::Documents(documents) => documents
            .iter()
            .any(|&(doc, _)| spelled(doc) && is_kustomization(doc) == Some(true)),
        // One document, whose kind is in the frame around its items (the whole text when
        // the frame alone does not parse).
        Apart::List { frame, .. } => {
            is_kustomization(frame.text()).or_else(|| is_kustomization(text)) == Some(true)
        }
        Apart::Whole => is_kustomization(text) == Some(true),
    }
}

/// How much all inputs of one run may hold together unless `--max-input-size` says
/// otherwise: far above any real package (the API server stores objects of at most
/// 1.5 MiB), far below what would exhaust a CI runner's memory.
pub const DEFAULT_MAX_INPUT: u64 = 256 << 20;

/// The flag that raises [`DEFAULT_MAX_INPUT`], named in the error.
pub const MAX_INPUT_FLAG: &str = "--max-input-size";

/// The limit and what the inputs read so far hold. Process-wide on purpose: one run is
/// one process, and every input of it (stdin, files, `-c`, the key file, a Kptfile,
/// `--live`) counts against the same total wherever it is read.
static LIMIT: AtomicU64 = AtomicU64::new(DEFAULT_MAX_INPUT);
static USED: AtomicU64 = AtomicU64::new(0);

/// Sets the limit for all inputs of this run together (`--max-input-size`).
pub fn set_max_input_size(bytes: u64) {
    LIMIT.store(bytes, Ordering::Relaxed);
}

/// A size as `--max-input-size` takes it: bytes, or a number with K, M or G (KiB, MiB,
/// GiB; `Ki`, `KiB`, `KB` and lower case read alike).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let digits = text.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let unit = &text[digits.len()..];
    let shift = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "ki" | "kb" | "kib" => 10,
        "m" | "mi" | "mb" | "mib" => 20,
        "g" | "gi" | "gb" | "gib" => 30,
        _ => {
            return Err(format!(
                "{text:?}: the unit is one of K, M, G (or none, for bytes)"
            ));
        }
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(1 << shift))
        .ok_or_else(|| format!("{text:?} is not a size (bytes, or a number with K, M or G)"))
}

fn human(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 && b % (1 << 30) == 0 => format!("{} GiB", b >> 30),
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}

/// What an input holds: manifests or configuration (text: a NUL byte is refused as soon
/// as it is read, and it must be UTF-8), or a key (any bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Content {
    Text,
    Bytes,
}

/// Why [`read_limited`] stopped.
#[derive(Debug)]
pub enum Refused {
    Io(std::io::Error),
    /// More than the limit; nothing past it was read.
    TooLarge,
    /// A NUL byte at this offset; nothing past its chunk was read.
    Nul(u64),
}

/// The most a key file may hold: HMAC-SHA256 hashes any key longer than 64 bytes to 32.
const MAX_KEY: u64 = 64 << 10;

/// How much is read (and checked for NUL) at a time: an endless stream of NULs
/// (`/dev/zero`) stops after one chunk.
const CHUNK: u64 = 1 << 20;

/// Reads `reader` to its end, chunk by chunk, refusing more than `limit` bytes and, for
/// text, a NUL byte as soon as its chunk is read. `capacity`: the expected size (a
/// file's), so a file is read into one allocation of its size.
pub fn read_limited(
    mut reader: impl std::io::Read,
    limit: u64,
    content: Content,
    capacity: u64,
) -> Result<Vec<u8>, Refused> {
    let mut out = Vec::with_capacity(usize::try_from(capacity.min(limit)).unwrap_or(0));
    loop {
        let start = out.len();
        let room = limit
            .saturating_add(1)
            .saturating_sub(start as u64)
            .min(CHUNK);
        let n = (&mut reader)
            .take(room)
            .read_to_end(&mut out)
            .map_err(Refused::Io)?;
        if content == Content::Text {
            if let Some(at) = memchr::memchr(0, &out[start..]) {
                return Err(Refused::Nul((start + at) as u64));
            }
        }
        if out.len() as u64 > limit {
            return Err(Refused::TooLarge);
        }
        if n == 0 {
            return Ok(out);
        }
    }
}

/// The one reader of every input of the binary: reads `reader` (named `name` in
/// errors) within what is left of the run's limit, and counts it.
pub fn read_input(
    name: &str,
    reader: impl std::io::Read,
    content: Content,
    capacity: u64,
) -> Result<Vec<u8>, String> {
    let limit = LIMIT.load(Ordering::Relaxed);
    let left = limit.saturating_sub(USED.load(Ordering::Relaxed));
    // A key is short: a key file of more is the wrong file (`/dev/zero`), whatever the
    // limit on manifests.
    let key_cap = content == Content::Bytes && left > MAX_KEY;
    let left = if key_cap { MAX_KEY } else { left };
    match read_limited(reader, left, content, capacity) {
        Ok(bytes) => {
            USED.fetch_add(bytes.len() as u64, Ordering::Relaxed);
            Ok(bytes)
        }
        Err(Refused::Io(e)) => Err(format!("cannot read {name}: {e}")),
        Err(Refused::TooLarge) if key_cap => Err(format!(
            "{name} holds more than {}, which no key needs: is it the right file?",
            human(MAX_KEY)
        )),
        Err(Refused::TooLarge) => Err(format!(
            "{name} is too large: all inputs of a run together may hold {} ({MAX_INPUT_FLAG} raises the limit)",
            human(limit)
        )),
        Err(Refused::Nul(at)) => Err(format!(
            "{name} holds a NUL byte (at byte {at}): it is not YAML or JSON text"
        )),
    }
}

/// [`read_input`] for text: UTF-8 or refused, naming `name`.
fn text_of(name: &str, bytes: Vec<u8>) -> Result<String, String> {
    String::from_utf8(bytes)
        .map_err(|_| format!("{name} is not UTF-8 text (manifests are YAML or JSON)"))
}

pub fn read_stdin() -> Result<String, String> {
    let bytes = read_input("stdin", std::io::stdin().lock(), Content::Text, 0)?;
    text_of("stdin", bytes)
}

/// Opens `path` for [`read_input`]: the file and its size.
pub fn open(path: &Path) -> std::io::Result<(fs::File, u64)> {
    let file = fs::File::open(path)?;
    let size = file.metadata().map_or(0, |m| m.len());
    Ok((file, size))
}

/// A file's bytes (`content`), read within the run's limit; `name` words it in errors.
pub fn read_path(path: &Path, name: &str, content: Content) -> Result<Vec<u8>, String> {
    let (file, size) = open(path).map_err(|e| format!("cannot read {name}: {e}"))?;
    read_input(name, file, content, size)
}

pub fn read_file(path: &Path) -> Result<String, String> {
    let name = path.display().to_string();
    text_of(&name, read_path(path, &name, Content::Text)?)
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
    package_of(read_sources(paths, skip)?, paths)
}

/// The package of `sources`, read from `paths` (none: stdin); refused when it holds
/// nothing but blanks and comments.
pub fn package_of(sources: Vec<Source>, paths: &[PathBuf]) -> Result<Package, String> {
    let package = Package::new(sources)?;
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
    for source in &package.sources {
        check_marks(source)?;
    }
    let mut package = package;
    package.objectless = package
        .sources
        .iter()
        .find(|s| s.path.as_ref().is_none_or(|p| paths.contains(p)) && holds_no_object(s))
        .map(|s| {
            format!(
                "{} holds no Kubernetes object (no document has a kind or an apiVersion): \
                 config-hash reads manifests, not other YAML or JSON (a chart's values, a config \
                 file); is it the right file?",
                s.name()
            )
        });
    Ok(package)
}

/// True when a text that is not blank holds no Kubernetes object at all: no `kind` and
/// no `apiVersion` anywhere in it (a chart's values.yaml, /etc/passwd).
fn holds_no_object(source: &Source) -> bool {
    let has = |word: &str| memchr::memmem::find(source.text.as_bytes(), word.as_bytes()).is_some();
    !has("kind") && !has("apiVersion") && !is_blank(&source.text)
}

/// Refuses a byte-order mark that starts a line past the start of a text (files that
/// each begin with one, concatenated: `helm template` of such templates). kubectl,
/// kustomize and kpt read it as the first character of the key after it, so
/// `apiVersion` becomes another key and the object has no apiVersion: passed on, it
/// would look right and fail to apply.
fn check_marks(source: &Source) -> Result<(), String> {
    let text = source.text.as_bytes();
    for at in memchr::memmem::find_iter(text, "\u{feff}".as_bytes()) {
        if at == 0 || !matches!(text[at - 1], b'\n' | b'\r') {
            continue;
        }
        let line = 1 + text[..at].iter().filter(|&&b| b == b'\n').count();
        return Err(format!(
            "{}: line {line}: a byte-order mark (U+FEFF) starts the line, inside the stream: \
             kubectl, kustomize and kpt read it as a character of what follows (a key \
             `<U+FEFF>apiVersion` is not `apiVersion`, and the object has no apiVersion); remove it \
             (it comes from joining files that each begin with one)",
            source.name()
        ));
    }
    Ok(())
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

/// Writes each `(path, text)` back, all or nothing: every text goes first to a
/// temporary file beside the file it replaces (same directory, so the rename is atomic),
/// given that file's mode and owner; only when every temporary is written are they
/// renamed over their files. Any failure before the renames removes the temporaries and
/// leaves every file as it was. A symbolic link is followed: the file it points to is
/// written and the link stays a link. A reader (or an interrupted run) sees each file
/// old or new, never half of one. No fsync: durability across a power loss is the file
/// system's business, and syncing each file made rewriting a 10,000-file package take
/// 17 s instead of 5 s here.
pub fn write_all_or_nothing(files: &[(&Path, &str)]) -> Result<(), String> {
    let mut staged: Vec<(PathBuf, PathBuf)> = Vec::with_capacity(files.len());
    let result = files.iter().try_for_each(|&(path, text)| {
        let target = fs::canonicalize(path).map_err(|e| cannot_write(path, &e))?;
        // Staged in the order of `files`: the path given for the same file, not its
        // temporary.
        if let Some(at) = staged.iter().position(|(t, _)| *t == target) {
            return Err(format!(
                "cannot write {}: it is the same file as {} (a link), which is written too",
                path.display(),
                files[at].0.display()
            ));
        }
        let tmp = stage(&target, text).map_err(|e| cannot_write(path, &e))?;
        staged.push((target, tmp));
        Ok(())
    });
    let result = result.and_then(|()| {
        for (at, ((target, tmp), &(path, _))) in staged.iter().zip(files).enumerate() {
            if let Err(e) = fs::rename(tmp, target) {
                // Only a file system that changed under the run fails here; the files
                // renamed before stay written, and the run says which.
                let written: Vec<String> = files[..at]
                    .iter()
                    .map(|(p, _)| p.display().to_string())
                    .collect();
                let done = if written.is_empty() {
                    String::new()
                } else {
                    format!(" (already written: {})", written.join(", "))
                };
                return Err(format!("{}{done}", cannot_write(path, &e)));
            }
        }
        Ok(())
    });
    if result.is_err() {
        for (_, tmp) in &staged {
            let _ = fs::remove_file(tmp);
        }
    }
    result
}

fn cannot_write(path: &Path, e: &std::io::Error) -> String {
    format!("cannot write {}: {e}", path.display())
}

/// Writes `text` to a new temporary file beside `target` (a file, no link) with its mode
/// and owner, and returns the temporary's path. The temporary is created new (never
/// through something already at its name), and removed again when a step fails.
fn stage(target: &Path, text: &str) -> std::io::Result<PathBuf> {
    let meta = fs::metadata(target)?;
    let dir = target.parent().unwrap_or(Path::new("/"));
    let name = target
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let tmp = dir.join(format!(".{name}.config-hash-{}.tmp", std::process::id()));
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(&tmp)?;
    let written = (|| {
        file.write_all(text.as_bytes())?;
        keep_owner(&file, &meta)?;
        file.set_permissions(meta.permissions())
    })();
    match written {
        Ok(()) => Ok(tmp),
        Err(e) => {
            let _ = fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// Gives `file` the owner and group of `meta` (a run as root must not make another
/// user's file root's). Before the mode is set: changing the owner may clear set-id bits.
#[cfg(unix)]
fn keep_owner(file: &fs::File, meta: &fs::Metadata) -> std::io::Result<()> {
    use std::os::unix::fs::MetadataExt as _;
    let own = file.metadata()?;
    if (own.uid(), own.gid()) == (meta.uid(), meta.gid()) {
        return Ok(());
    }
    std::os::unix::fs::fchown(file, Some(meta.uid()), Some(meta.gid()))
}

#[cfg(not(unix))]
fn keep_owner(_: &fs::File, _: &fs::Metadata) -> std::io::Result<()> {
    Ok(())
}

/// The functionConfig a kpt package's Kptfile gives config-hash: the first pipeline
/// mutator whose `exec` or `image` names config-hash, with its `configMap` (as a
/// ConfigMap document) or `configPath` (that file, relative to the package), and the
/// file it came from. `Ok(None)` when the directory has no Kptfile or its pipeline does
/// not run config-hash; an empty text when the step has no configuration.
pub fn kptfile_config(dir: &Path) -> Result<Option<(PathBuf, String)>, String> {
    let kptfile = dir.join("Kptfile");
    let text = match fs::metadata(&kptfile) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        _ => read_file(&kptfile)?,
    };
    match kptfile_text_step(&text).map_err(|e| format!("{}: {e}", kptfile.display()))? {
        None => Ok(None),
        Some(KptStep::Bare) => Ok(Some((kptfile, String::new()))),
        Some(KptStep::Map(config)) => Ok(Some((kptfile, config))),
        Some(KptStep::Path(path)) => {
            let file = dir.join(&path);
            let config = read_file(&file).map_err(|e| {
                format!(
                    "{}: pipeline step configPath {path}: {e}",
                    kptfile.display()
                )
            })?;
            Ok(Some((file, config)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found in any document of a stream, in a ResourceList-shaped document, or in a text
    /// read whole; not a Flux Kustomization, nor the word elsewhere.
    #[test]
    fn a_kustomization_is_found_wherever_it_is_and_only_there() {
        let kustomize = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n";
        let flux = "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\n";
        let cm = "apiVersion: v1\nkind: ConfigMap\ndata: {a: Kustomization}\n";
        for (text, found) in [
            (format!("{cm}---\n{kustomize}---\n{cm}"), true),
            (format!("{cm}---\n{flux}---\n{cm}"), false),
            (cm.to_string(), false),
            // Read as a ResourceList would be (a document with `items`), and whole.
            (
                format!("# ResourceList\n{kustomize}items:\n- a: 1\n- b: 2\n"),
                true,
            ),
            (
                format!("# ResourceList\n{flux}items:\n- a: 1\n- b: 2\n"),
                false,
            ),
            (
                "{\"apiVersion\": \"kustomize.config.k8s.io/v1\", \"kind\": \"Kustomization\"}"
                    .to_string(),
                true,
            ),
            (
                format!(
                    "\u{feff}{flux}---\n{{kind: Kustomization, apiVersion: kustomize.config.k8s.io/v1}}\n"
                ),
                true,
            ),
        ] {
            assert_eq!(holds_a_kustomization(&text), found, "{text:?}");
        }
    }

    #[test]
    fn reading_stops_at_the_limit_and_at_the_first_nul() {
        use std::io::Read as _;
        let read = |bytes: &[u8], limit, content| read_limited(bytes, limit, content, 0);
        assert_eq!(read(b"abc", 3, Content::Text).unwrap(), b"abc");
        assert!(matches!(
            read(b"abcd", 3, Content::Text),
            Err(Refused::TooLarge)
        ));
        assert_eq!(read(b"", 0, Content::Text).unwrap(), b"");
        assert!(matches!(
            read(b"ab\0c", 9, Content::Text),
            Err(Refused::Nul(2))
        ));
        assert_eq!(read(b"ab\0c", 9, Content::Bytes).unwrap(), b"ab\0c");
        // An endless stream stops after one chunk (NUL) or at the limit.
        let endless = std::io::repeat(0);
        assert!(matches!(
            read_limited(endless, u64::MAX, Content::Text, 0),
            Err(Refused::Nul(0))
        ));
        let mut endless = std::io::repeat(b'a');
        assert!(matches!(
            read_limited(&mut endless, 3 * CHUNK + 5, Content::Text, 0),
            Err(Refused::TooLarge)
        ));
        // A NUL past the first chunk, and nothing read past its chunk.
        let mut text = vec![b'a'; CHUNK as usize + 10];
        text[CHUNK as usize + 3] = 0;
        text.extend(vec![b'b'; 3 * CHUNK as usize]);
        let mut reader = &text[..];
        assert!(matches!(
            read_limited(&mut reader, u64::MAX, Content::Text, 0),
            Err(Refused::Nul(n)) if n == CHUNK + 3
        ));
        assert!(
            reader.bytes().count() >= CHUNK as usize,
            "read on past the NUL's chunk"
        );
    }

    #[test]
    fn sizes_read_with_their_units() {
        assert_eq!(parse_size("1000"), Ok(1000));
        assert_eq!(parse_size("2K"), Ok(2048));
        assert_eq!(parse_size("256Mi"), Ok(256 << 20));
        assert_eq!(parse_size("1gib"), Ok(1 << 30));
        for bad in ["", "M", "1T", "-1", "1.5M", "99999999999G"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
        assert_eq!(human(256 << 20), "256 MiB");
        assert_eq!(human(1500), "1500 bytes");
    }

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
    fn files_join_into_one_stream_whose_lines_map_back() {
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
        assert!(!package.is_one_text());
        assert_eq!(package.locate(5, 3), "b.json: line 1 column 3");
        let refused = Package::new(vec![Source {
            path: Some("c.json".into()),
            text: "[{\"a\": 1}, 2]".into(),
        }])
        .unwrap_err();
        assert!(
            refused.starts_with("c.json: a top-level JSON array must hold only objects"),
            "{refused}"
        );
    }

    #[test]
    fn lines_and_places_map_back_to_each_file() {
        let file = |path: &str, text: &str| Source {
            path: Some(path.into()),
            text: text.into(),
        };
        let sources = vec![
            file(
                "a.yaml",
                "# a\nkind: ConfigMap\nmetadata: {name: x}\n---\nkind: Secret\nmetadata: {name: y}\n",
            ),
            file(
                "b.json",
                "[\n{\"kind\": \"Secret\",\n \"metadata\": {\"name\": \"z\"}},\n{\"kind\": \"Job\", \"metadata\": {\"name\": \"w\"}}\n]\n",
            ),
            // Read in pieces: a list's items, documents after blank lines and comments.
            file(
                "c.yaml",
                "kind: List # not a ResourceList\nitems:\n- kind: Role\n  metadata: {name: r}\n\n- kind: Role\n  metadata:\n    name: s\n",
            ),
            file(
                "d.yaml",
                "\n# d\n---\n\nkind: Pod\nmetadata: {name: p}\n--- # e\n# f\nkind: Pod\nmetadata: {name: q}\n",
            ),
            // Not a list, though it has items: the map itself is the object.
            file(
                "e.yaml",
                "# ResourceList\nkind: Thing\nmetadata: {name: t}\nitems:\n- kind: Role\n  metadata: {name: u}\n",
            ),
        ];
        let package = Package::new(sources).unwrap();
        let places = package.places(&["x", "y", "z", "w", "r", "s", "p", "q", "t"]);
        let at =
            |kind: &str, name: &str| places[&(kind.to_string(), None, name.to_string())].clone();
        assert_eq!(at("ConfigMap", "x"), "a.yaml:2");
        assert_eq!(at("Secret", "y"), "a.yaml:5");
        assert_eq!(at("Secret", "z"), "b.json:2");
        assert_eq!(at("Job", "w"), "b.json:4");
        assert_eq!(at("Role", "r"), "c.yaml:3");
        assert_eq!(at("Role", "s"), "c.yaml:6");
        assert_eq!(at("Pod", "p"), "d.yaml:5");
        assert_eq!(at("Pod", "q"), "d.yaml:9");
        assert_eq!(at("Thing", "t"), "e.yaml:2");
        assert!(!places.contains_key(&("Role".to_string(), None, "u".to_string())));
        // Only the pieces that spell a name asked for are read, unless a name is no word.
        let key = |kind: &str, name: &str| (kind.to_string(), None, name.to_string());
        let places = package.places(&["q"]);
        assert!(places.contains_key(&key("Pod", "q")) && !places.contains_key(&key("Pod", "p")));
        let places = package.places(&["q", "odd name"]);
        assert!(places.contains_key(&key("Pod", "q")) && places.contains_key(&key("Pod", "p")));
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
