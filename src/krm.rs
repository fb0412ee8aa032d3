//! ResourceList framing (where the items, functionConfig and results live), resource
//! identities, and results written back into the list as text.

use crate::catalog::annotations;
use crate::findings::Finding;
use crate::yaml::scalar::double_quoted;
use crate::yaml::{Editor, Layout, NodeId, Splices, Tree};

/// The input is not a ResourceList we can read; reported on stderr, exit 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    pub line: usize,
    pub column: usize,
    pub message: String,
    /// The work limit the input reached, when that is why it was refused.
    pub limit: Option<crate::yaml::Limit>,
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {} column {}: {}",
            self.line, self.column, self.message
        )
    }
}

impl From<crate::yaml::Error> for InputError {
    fn from(e: crate::yaml::Error) -> Self {
        InputError {
            line: e.line(),
            column: e.column(),
            message: e.message(),
            limit: e.limit(),
        }
    }
}

/// Where the parts of a ResourceList are.
#[derive(Debug, Clone)]
pub struct ResourceList {
    pub root: NodeId,
    pub items: Vec<NodeId>,
    pub function_config: Option<NodeId>,
    /// The existing `results` entry (key, value), replaced on output.
    pub results: Option<(NodeId, NodeId)>,
}

impl ResourceList {
    pub fn locate(tree: &Tree<'_>) -> Result<ResourceList, InputError> {
        let at = |pos: usize, message: String| {
            let (line, column) = tree.line_col(pos);
            InputError {
                line,
                column,
                message,
                limit: None,
            }
        };
        let doc = match tree.documents() {
            [doc] => *doc,
            [] => return Err(at(0, "the input is empty; expected a ResourceList".into())),
            [_, second, ..] => {
                return Err(at(
                    tree.span(second.root()).start(),
                    "expected one ResourceList document, found several (a plain manifest stream is not a ResourceList)".into(),
                ));
            }
        };
        let root = doc.root();
        let kind = tree.get(root, "kind").and_then(|k| tree.str(k));
        if !tree.is_map(root) || kind != Some("ResourceList") {
            return Err(at(
                tree.span(root).start(),
                format!(
                    "expected kind: ResourceList, found {}",
                    kind.map_or("no kind".to_string(), |k| format!("kind: {k}"))
                ),
            ));
        }
        let items = match tree.get(root, "items") {
            Some(seq) if tree.is_seq(seq) => tree.items(seq).collect(),
            Some(n) if tree.is_null(n) => Vec::new(),
            Some(n) => {
                return Err(at(
                    tree.span(n).start(),
                    "items must be a list of resources".into(),
                ));
            }
            None => {
                return Err(at(
                    tree.span(root).start(),
                    "the ResourceList has no items field".into(),
                ));
            }
        };
        for &item in &items {
            if !tree.is_map(item) {
                return Err(at(
                    tree.span(item).start(),
                    "every item must be a resource (a mapping)".into(),
                ));
            }
        }
        let results = tree
            .own_entries(root)
            .find(|&(k, _)| tree.str(k) == Some("results"));
        // The function writes `results` anew: an anchor defined in the old ones would
        // leave the aliases naming it with nothing to name.
        if let Some((k, v)) = results {
            if tree.subtree_has_anchor(k) || tree.subtree_has_anchor(v) {
                return Err(at(
                    tree.span(k).start(),
                    "results defines an anchor (&name) that aliases may use, and the function replaces results: write them without anchors".into(),
                ));
            }
        }
        Ok(ResourceList {
            root,
            items,
            function_config: tree.get(root, "functionConfig"),
            results,
        })
    }
}

/// Who a resource is, for results and matching.
///
/// Its four strings live in one allocation: a large input holds one for every ConfigMap,
/// Secret and result until the output is written, and four small strings each cost a
/// heap block (32 bytes or more) where one holds them all.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct ResourceId {
    /// apiVersion, kind, namespace and name, one after another.
    text: Box<str>,
    /// Where kind, namespace and name start in `text` (texts are under 4 GiB).
    kind_at: u32,
    namespace_at: u32,
    name_at: u32,
    /// `None` and `Some("")` are different namespaces to callers.
    has_namespace: bool,
}

impl ResourceId {
    pub fn new(api_version: &str, kind: &str, namespace: Option<&str>, name: &str) -> ResourceId {
        let ns = namespace.unwrap_or("");
        let mut text =
            String::with_capacity(api_version.len() + kind.len() + ns.len() + name.len());
        let mut mark = |part: &str| {
            text.push_str(part);
            u32::try_from(text.len()).unwrap_or(u32::MAX)
        };
        let kind_at = mark(api_version);
        let namespace_at = mark(kind);
        let name_at = mark(ns);
        text.push_str(name);
        ResourceId {
            text: text.into_boxed_str(),
            kind_at,
            namespace_at,
            name_at,
            has_namespace: namespace.is_some(),
        }
    }

    pub fn of(tree: &Tree<'_>, item: NodeId) -> ResourceId {
        let s = |path: &[&str]| tree.get_path(item, path).and_then(|n| tree.str(n));
        ResourceId::new(
            s(&["apiVersion"]).unwrap_or_default(),
            s(&["kind"]).unwrap_or_default(),
            s(&["metadata", "namespace"]).filter(|n| !n.is_empty()),
            s(&["metadata", "name"]).unwrap_or_default(),
        )
    }

    fn part(&self, from: u32, to: usize) -> &str {
        self.text.get(from as usize..to).unwrap_or_default()
    }

    pub fn api_version(&self) -> &str {
        self.part(0, self.kind_at as usize)
    }

    pub fn kind(&self) -> &str {
        self.part(self.kind_at, self.namespace_at as usize)
    }

    pub fn namespace(&self) -> Option<&str> {
        self.has_namespace
            .then(|| self.part(self.namespace_at, self.name_at as usize))
    }

    pub fn name(&self) -> &str {
        self.part(self.name_at, self.text.len())
    }

    /// The same resource in `namespace`.
    pub fn with_namespace(&self, namespace: Option<&str>) -> ResourceId {
        ResourceId::new(self.api_version(), self.kind(), namespace, self.name())
    }

    /// The same resource under `name`.
    pub fn with_name(&self, name: &str) -> ResourceId {
        ResourceId::new(self.api_version(), self.kind(), self.namespace(), name)
    }

    /// Kind, namespace and name, owned: the key of tables that find an object by them
    /// whatever its apiVersion.
    pub fn kind_namespace_name(&self) -> (String, Option<String>, String) {
        (
            self.kind().to_string(),
            self.namespace().map(str::to_string),
            self.name().to_string(),
        )
    }

    /// The four fields in their order: what ids are sorted by.
    fn key(&self) -> (&str, &str, Option<&str>, &str) {
        (
            self.api_version(),
            self.kind(),
            self.namespace(),
            self.name(),
        )
    }
}

impl Ord for ResourceId {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key().cmp(&other.key())
    }
}

impl PartialOrd for ResourceId {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl std::fmt::Debug for ResourceId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceId")
            .field("api_version", &self.api_version())
            .field("kind", &self.kind())
            .field("namespace", &self.namespace())
            .field("name", &self.name())
            .finish()
    }
}

impl std::fmt::Display for ResourceId {
    /// `Deployment default/web`, or `Deployment web` without a namespace; a missing
    /// kind or name is said so rather than left blank.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = if self.kind().is_empty() {
            "(no kind)"
        } else {
            self.kind()
        };
        let name = if self.name().is_empty() {
            "(no metadata.name)"
        } else {
            self.name()
        };
        match self.namespace() {
            Some(ns) => write!(f, "{kind} {ns}/{name}"),
            None => write!(f, "{kind} {name}"),
        }
    }
}

/// True when the item carries `key: "true"`.
pub fn flag(tree: &Tree<'_>, item: NodeId, key: &str) -> bool {
    annotation(tree, item, key) == Some("true")
}

/// True for objects marked `config.kubernetes.io/local-config: "true"`.
pub fn is_local_config(tree: &Tree<'_>, item: NodeId) -> bool {
    flag(tree, item, annotations::LOCAL_CONFIG)
}

/// An annotation of an item (through aliases), if set.
pub fn annotation<'t>(tree: &'t Tree<'_>, item: NodeId, key: &str) -> Option<&'t str> {
    let anns = tree.get_path(item, &["metadata", "annotations"])?;
    tree.get(anns, key).and_then(|v| tree.str(v))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// One entry of the ResourceList's `results`: a finding, and where it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KrmResult {
    /// Boxed: results are many and findings of different sizes.
    pub finding: Box<Finding>,
    pub severity: Severity,
    pub resource: Option<ResourceId>,
    pub field: Option<String>,
    /// The file (and index in it) kpt read the resource from.
    pub file: Option<FileRef>,
}

impl KrmResult {
    /// A result with the finding's own severity.
    pub fn new(finding: Finding) -> Self {
        KrmResult {
            severity: finding.severity(),
            finding: Box::new(finding),
            resource: None,
            field: None,
            file: None,
        }
    }

    /// The message: worded by [`crate::findings`], about this result's resource.
    pub fn message(&self) -> String {
        self.finding.message(self.resource.as_ref())
    }

    pub fn with_severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    /// Attaches the resource (and its file, if the orchestrator annotated one).
    pub fn about(mut self, tree: &Tree<'_>, item: NodeId) -> Self {
        self.resource = Some(ResourceId::of(tree, item));
        self.file = file_of(tree, item);
        self
    }

    pub fn at_field(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
    }

    /// The fields of this result in output order.
    fn fields(&self) -> Vec<(&'static str, Field)> {
        let mut out = vec![
            ("message", Field::Value(self.message())),
            ("severity", Field::Value(self.severity.as_str().to_string())),
        ];
        if let Some(r) = &self.resource {
            let mut pairs = vec![
                ("apiVersion", r.api_version().to_string()),
                ("kind", r.kind().to_string()),
                ("name", r.name().to_string()),
            ];
            if let Some(ns) = r.namespace() {
                pairs.push(("namespace", ns.to_string()));
            }
            out.push(("resourceRef", Field::Pairs(pairs)));
        }
        if let Some(f) = &self.field {
            out.push(("field", Field::Pairs(vec![("path", f.clone())])));
        }
        if let Some(file) = &self.file {
            let mut pairs = vec![("path", file.path().to_string())];
            if let Some(i) = file.index() {
                pairs.push(("index", i.to_string()));
            }
            out.push(("file", Field::Pairs(pairs)));
        }
        out
    }
}

/// The file (and index in it) an orchestrator read the item from, from its annotations.
pub fn file_of(tree: &Tree<'_>, item: NodeId) -> Option<FileRef> {
    let first = |keys: &[&str]| keys.iter().find_map(|k| annotation(tree, item, k));
    let path = first(annotations::PATH);
    let index = first(annotations::INDEX);
    path.map(|p| FileRef::new(p, index))
}

/// The file an orchestrator read a resource from, and its index there: one allocation,
/// as every ConfigMap, Secret and result of a large input may hold one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRef {
    /// The path, then the index.
    text: Box<str>,
    path_len: u32,
    has_index: bool,
}

impl FileRef {
    pub fn new(path: &str, index: Option<&str>) -> FileRef {
        FileRef {
            text: [path, index.unwrap_or("")].concat().into_boxed_str(),
            // Texts are under 4 GiB.
            path_len: u32::try_from(path.len()).unwrap_or(u32::MAX),
            has_index: index.is_some(),
        }
    }

    pub fn path(&self) -> &str {
        self.text.get(..self.path_len as usize).unwrap_or_default()
    }

    pub fn index(&self) -> Option<&str> {
        self.has_index
            .then(|| self.text.get(self.path_len as usize..).unwrap_or_default())
    }
}

/// A result field: a string, or a mapping of strings.
enum Field {
    Value(String),
    Pairs(Vec<(&'static str, String)>),
}

/// How the ResourceList's `results` are written where [`write_results`] left room.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResultsStyle {
    /// Block YAML lines, each ended by `eol`, keys at `indent`.
    Block { eol: String, indent: String },
    /// A JSON array.
    Flow,
}

impl ResultsStyle {
    /// Writes `results` through `out` one at a time: on a large input they are a result
    /// per item, rendered only as the output is written, never held as one text.
    pub fn write(
        &self,
        results: &[KrmResult],
        out: &mut dyn FnMut(&str) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let mut buf = String::new();
        match self {
            ResultsStyle::Block { eol, indent } => {
                out(indent)?;
                out("results:")?;
                for r in results {
                    buf.clear();
                    block_entry(&mut buf, r, eol, indent);
                    out(&buf)?;
                }
                out(eol)
            }
            ResultsStyle::Flow => {
                out("[")?;
                for (i, r) in results.iter().enumerate() {
                    buf.clear();
                    if i > 0 {
                        buf.push_str(", ");
                    }
                    flow_entry(&mut buf, r);
                    out(&buf)?;
                }
                out("]")
            }
        }
    }

    /// [`ResultsStyle::write`] into a string.
    pub fn render(&self, results: &[KrmResult], text: &mut String) {
        let written = self.write(results, &mut |s| {
            text.push_str(s);
            Ok(())
        });
        debug_assert!(written.is_ok(), "a String takes any text");
    }
}

/// One result as block YAML lines, each after a line break.
fn block_entry(out: &mut String, r: &KrmResult, eol: &str, indent: &str) {
    for (i, (key, field)) in r.fields().into_iter().enumerate() {
        out.push_str(eol);
        out.push_str(indent);
        out.push_str(if i == 0 { "- " } else { "  " });
        out.push_str(key);
        out.push(':');
        match field {
            Field::Value(v) => {
                out.push(' ');
                out.push_str(&render_scalar(key, &v));
            }
            Field::Pairs(pairs) => {
                for (k, v) in pairs {
                    out.push_str(eol);
                    out.push_str(indent);
                    out.push_str("    ");
                    out.push_str(k);
                    out.push_str(": ");
                    out.push_str(&render_scalar(k, &v));
                }
            }
        }
    }
}

/// One result as a JSON object.
fn flow_entry(out: &mut String, r: &KrmResult) {
    out.push('{');
    for (j, (key, field)) in r.fields().into_iter().enumerate() {
        if j > 0 {
            out.push_str(", ");
        }
        out.push('"');
        out.push_str(key);
        out.push_str("\": ");
        match field {
            Field::Value(v) => out.push_str(&double_quoted(&v)),
            Field::Pairs(pairs) => {
                out.push('{');
                for (n, (k, v)) in pairs.iter().enumerate() {
                    if n > 0 {
                        out.push_str(", ");
                    }
                    out.push('"');
                    out.push_str(k);
                    out.push_str("\": ");
                    if *k == "index" {
                        out.push_str(&render_scalar(k, v));
                    } else {
                        out.push_str(&double_quoted(v));
                    }
                }
                out.push('}');
            }
        }
    }
    out.push('}');
}

/// `index` is an integer in kpt's schema; everything else is a string.
fn render_scalar(key: &str, v: &str) -> String {
    if key == "index" && !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) {
        v.to_string()
    } else if key == "message" {
        double_quoted(v)
    } else {
        crate::yaml::scalar::key(v).into_owned()
    }
}

/// Adds edits that replace (or add) the ResourceList's `results`, leaving room for
/// the results themselves, to be written in the returned style (`None`: there is no
/// place for them, in an empty flow mapping).
pub fn write_results(
    tree: &Tree<'_>,
    list: &ResourceList,
    splices: &mut Splices,
) -> Option<ResultsStyle> {
    write_results_before(tree, list, TextEnd::of(tree, list.root), splices)
}

pub use crate::yaml::TextEnd;

/// [`write_results`] for a tree of a rearranged copy of the text, whose end looks like
/// `end` in the real text. The YAML layer's editor finds the place.
pub fn write_results_before(
    tree: &Tree<'_>,
    list: &ResourceList,
    end: TextEnd,
    splices: &mut Splices,
) -> Option<ResultsStyle> {
    let mut ed = Editor::new(tree, Layout::detect(tree.src()));
    let place = ed.fill_last_entry(list.root, "results", list.results, end);
    ed.into_splices().append_to(splices);
    Some(match place? {
        crate::yaml::FillPlace::Flow => ResultsStyle::Flow,
        crate::yaml::FillPlace::Block { eol, indent } => ResultsStyle::Block { eol, indent },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resource_id_gives_back_its_four_fields_and_sorts_by_them_in_order() {
        let parts = [
            ("apps/v1", "Deployment", Some("shop"), "web"),
            ("v1", "ConfigMap", None, "web"),
            ("v1", "ConfigMap", Some(""), "web"),
            ("", "", None, ""),
            ("v1", "Secret", Some("a"), ""),
            ("v1", "Secret", None, "b"),
            ("v1", "Secretb", None, ""),
        ];
        let ids: Vec<ResourceId> = parts
            .iter()
            .map(|&(a, k, ns, n)| ResourceId::new(a, k, ns, n))
            .collect();
        for (id, &(a, k, ns, n)) in ids.iter().zip(&parts) {
            assert_eq!(
                (id.api_version(), id.kind(), id.namespace(), id.name()),
                (a, k, ns, n)
            );
        }
        // A namespace left out is not the empty namespace, and a name that ends where
        // another id's kind would have is not that id.
        assert_ne!(ids[1], ids[2]);
        assert_ne!(ids[5], ids[6]);
        let mut by_id: Vec<usize> = (0..ids.len()).collect();
        by_id.sort_by(|&i, &j| ids[i].cmp(&ids[j]));
        let mut by_fields: Vec<usize> = (0..parts.len()).collect();
        by_fields.sort_by_key(|&i| parts[i]);
        assert_eq!(by_id, by_fields);
        for a in &ids {
            for b in &ids {
                assert_eq!(a.partial_cmp(b), Some(a.cmp(b)));
            }
        }
        // Debug shows the fields, as assertion messages did before they shared a buffer.
        assert_eq!(
            format!("{:?}", ids[0]),
            r#"ResourceId { api_version: "apps/v1", kind: "Deployment", namespace: Some("shop"), name: "web" }"#
        );
        assert_eq!(
            ids[0].kind_namespace_name(),
            ("Deployment".into(), Some("shop".into()), "web".into())
        );
        let moved = ids[1].with_namespace(Some("prod")).with_name("web-2");
        assert_eq!(
            moved,
            ResourceId::new("v1", "ConfigMap", Some("prod"), "web-2")
        );
    }

    #[test]
    fn a_file_ref_gives_back_its_path_and_index() {
        for (path, index) in [("a/b.yaml", Some("2")), ("a/b.yaml", None), ("a", Some(""))] {
            let f = FileRef::new(path, index);
            assert_eq!((f.path(), f.index()), (path, index));
        }
        assert_ne!(FileRef::new("a2", None), FileRef::new("a", Some("2")));
    }

    fn results() -> Vec<KrmResult> {
        let mut r = KrmResult::new(Finding::Internal("a \"quoted\" message: with colon".into()))
            .with_severity(Severity::Warning);
        r.resource = Some(ResourceId::new(
            "apps/v1",
            "Deployment",
            Some("shop"),
            "web",
        ));
        r.field = Some("spec.template".into());
        r.file = Some(FileRef::new("apps/web.yaml", Some("2")));
        vec![
            r,
            KrmResult::new(Finding::Internal("done".into())).with_severity(Severity::Info),
        ]
    }

    #[test]
    fn results_render_as_block_yaml_at_the_root_indent() {
        let style = ResultsStyle::Block {
            eol: "\n".into(),
            indent: "  ".into(),
        };
        let mut text = String::new();
        style.render(&results(), &mut text);
        assert_eq!(
            text,
            "  results:
  - message: \"a \\\"quoted\\\" message: with colon\"
    severity: warning
    resourceRef:
      apiVersion: apps/v1
      kind: Deployment
      name: web
      namespace: shop
    field:
      path: spec.template
    file:
      path: apps/web.yaml
      index: 2
  - message: \"done\"
    severity: info
"
        );
    }

    fn write(src: &str) -> String {
        let tree = crate::yaml::parse(src).unwrap();
        let list = ResourceList::locate(&tree).unwrap();
        let mut splices = Splices::new();
        let style = write_results(&tree, &list, &mut splices).unwrap();
        let results = &results()[1..];
        splices
            .checked()
            .unwrap()
            .apply(src, &mut |out| style.render(results, out))
    }

    #[test]
    fn results_replace_earlier_ones_and_keep_the_documents_line_breaks() {
        assert_eq!(
            write("kind: ResourceList\nitems: []\nresults:\n- message: old\nfunctionConfig: {}\n"),
            "kind: ResourceList\nitems: []\nfunctionConfig: {}\nresults:\n- message: \"done\"\n  severity: info\n"
        );
        assert_eq!(
            write("kind: ResourceList\r\nitems: []"),
            "kind: ResourceList\r\nitems: []\r\nresults:\r\n- message: \"done\"\r\n  severity: info\r\n"
        );
    }

    #[test]
    fn results_in_json_are_json() {
        assert_eq!(
            write("{\"kind\": \"ResourceList\", \"items\": []}"),
            "{\"kind\": \"ResourceList\", \"items\": [], \"results\": [{\"message\": \"done\", \"severity\": \"info\"}]}"
        );
        assert_eq!(
            write("{\"kind\": \"ResourceList\", \"results\": [1], \"items\": []}"),
            "{\"kind\": \"ResourceList\", \"results\": [{\"message\": \"done\", \"severity\": \"info\"}], \"items\": []}"
        );
    }
}
