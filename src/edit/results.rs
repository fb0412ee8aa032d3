//! The ResourceList's `results`, written back into the list as text: the room the
//! editor leaves for them, then each result as block YAML or JSON as the output is
//! written.

use crate::model::result::KrmResult;
use crate::read::resource_list::ResourceList;
use crate::yaml::scalar::double_quoted;
use crate::yaml::{Editor, Layout, Splices, Tree};

/// Gives `f` the fields of a result in output order, borrowed: a large input writes a
/// result per workload, and none of them is copied to be written.
fn each_field(r: &KrmResult, f: &mut dyn FnMut(&'static str, Field<'_>)) {
    f("message", Field::Value(&r.message()));
    f("severity", Field::Value(r.severity.as_str()));
    if let Some(r) = &r.resource {
        let mut pairs = [
            ("apiVersion", r.api_version()),
            ("kind", r.kind()),
            ("name", r.name()),
            ("namespace", ""),
        ];
        let mut len = 3;
        if let Some(ns) = r.namespace() {
            pairs[3].1 = ns;
            len = 4;
        }
        f("resourceRef", Field::Pairs(&pairs[..len]));
    }
    if let Some(path) = &r.field {
        f("field", Field::Pairs(&[("path", path)]));
    }
    if let Some(file) = &r.file {
        match file.index() {
            Some(i) => f("file", Field::Pairs(&[("path", file.path()), ("index", i)])),
            None => f("file", Field::Pairs(&[("path", file.path())])),
        }
    }
}

/// A result field: a string, or a mapping of strings.
enum Field<'a> {
    Value(&'a str),
    Pairs(&'a [(&'static str, &'a str)]),
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
    let mut first = true;
    each_field(r, &mut |key, field| {
        out.push_str(eol);
        out.push_str(indent);
        out.push_str(if first { "- " } else { "  " });
        first = false;
        out.push_str(key);
        out.push(':');
        match field {
            Field::Value(v) => {
                out.push(' ');
                push_scalar(out, key, v);
            }
            Field::Pairs(pairs) => {
                for &(k, v) in pairs {
                    out.push_str(eol);
                    out.push_str(indent);
                    out.push_str("    ");
                    out.push_str(k);
                    out.push_str(": ");
                    push_scalar(out, k, v);
                }
            }
        }
    });
}

/// One result as a JSON object.
fn flow_entry(out: &mut String, r: &KrmResult) {
    out.push('{');
    let mut first = true;
    each_field(r, &mut |key, field| {
        if !first {
            out.push_str(", ");
        }
        first = false;
        out.push('"');
        out.push_str(key);
        out.push_str("\": ");
        match field {
            Field::Value(v) => out.push_str(&double_quoted(v)),
            Field::Pairs(pairs) => {
                out.push('{');
                for (n, &(k, v)) in pairs.iter().enumerate() {
                    if n > 0 {
                        out.push_str(", ");
                    }
                    out.push('"');
                    out.push_str(k);
                    out.push_str("\": ");
                    if k == "index" {
                        push_scalar(out, k, v);
                    } else {
                        out.push_str(&double_quoted(v));
                    }
                }
                out.push('}');
            }
        }
    });
    out.push('}');
}

/// A field's value as YAML: an index as a number, a message double-quoted (it may hold
/// anything), anything else as a key would be written.
fn push_scalar(out: &mut String, key: &str, v: &str) {
    if key == "index" && !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()) {
        out.push_str(v);
    } else if key == "message" {
        out.push_str(&double_quoted(v));
    } else {
        out.push_str(&crate::yaml::scalar::key(v));
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
    use crate::model::findings::{Finding, Severity};
    use crate::model::resource::{FileRef, ResourceId};

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
