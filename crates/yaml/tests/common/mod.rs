//! saphyr-parser as a reference reader: its events built into the crate's [`Data`], with
//! aliases and merge keys followed as the crate follows them.

use std::collections::HashMap;

use goyaml_splice::{Data, Style};
use saphyr_parser::{Event, Parser, ScalarStyle};

/// Each document's data as saphyr reads the text, or its error message.
pub fn saphyr_documents(text: &str) -> Result<Vec<Data>, String> {
    let mut docs = Vec::new();
    let mut stack: Vec<(Data, usize, Option<Data>)> = Vec::new();
    let mut anchors: HashMap<usize, Data> = HashMap::new();
    for event in Parser::new_from_str(text) {
        let (event, _) = event.map_err(|e| format!("{e}"))?;
        let done = match event {
            Event::Scalar(value, style, anchor, tag) => {
                let d = Data::Scalar {
                    value: value.into_owned(),
                    style: match style {
                        ScalarStyle::Plain => Style::Plain,
                        ScalarStyle::SingleQuoted => Style::SingleQuoted,
                        ScalarStyle::DoubleQuoted => Style::DoubleQuoted,
                        ScalarStyle::Literal => Style::Literal,
                        ScalarStyle::Folded => Style::Folded,
                    },
                    tag: tag.map(|t| format!("{}{}", t.handle, t.suffix)),
                };
                if anchor > 0 {
                    anchors.insert(anchor, d.clone());
                }
                Some(d)
            }
            Event::Alias(id) => Some(anchors.get(&id).cloned().ok_or("unknown alias")?),
            Event::SequenceStart(anchor, _) => {
                stack.push((Data::Seq(Vec::new()), anchor, None));
                None
            }
            Event::MappingStart(anchor, _) => {
                stack.push((Data::Map(Vec::new()), anchor, None));
                None
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let (d, anchor, _) = stack.pop().ok_or("unbalanced")?;
                let d = merged(d);
                if anchor > 0 {
                    anchors.insert(anchor, d.clone());
                }
                Some(d)
            }
            _ => None,
        };
        if let Some(d) = done {
            match stack.last_mut() {
                None => docs.push(d),
                Some((Data::Seq(items), _, _)) => items.push(d),
                Some((Data::Map(entries), _, key)) => match key.take() {
                    None => *key = Some(d),
                    Some(k) => entries.push((k, d)),
                },
                Some(_) => unreachable!(),
            }
        }
    }
    Ok(docs)
}

/// A plain `<<` key, untagged or with the non-specific tag `!` (`! <<: {app: web}` is a
/// merge to go-yaml v3, as kubectl kustomize prints it).
fn is_merge(k: &Data) -> bool {
    matches!(k, Data::Scalar { value, style: Style::Plain, tag } if value == "<<"
        && tag.as_deref().is_none_or(|t| t == "!"))
}

/// A map's entries as [`goyaml_splice::Tree::entries`] gives them: own entries, then
/// merged ones (depth first, in order) whose keys are not there yet.
fn merged(d: Data) -> Data {
    let Data::Map(entries) = d else { return d };
    if !entries.iter().any(|(k, _)| is_merge(k)) {
        return Data::Map(entries);
    }
    let mut out: Vec<(Data, Data)> = Vec::new();
    let key_str = |k: &Data| match k {
        Data::Scalar { value, .. } => Some(value.clone()),
        _ => None,
    };
    let mut seen = std::collections::HashSet::new();
    let mut merges = Vec::new();
    for (k, v) in entries {
        if is_merge(&k) {
            merges.push(v);
        } else {
            if let Some(s) = key_str(&k) {
                if !seen.insert(s) {
                    continue;
                }
            }
            out.push((k, v));
        }
    }
    let mut todo: Vec<Data> = Vec::new();
    for m in merges.into_iter().rev() {
        match m {
            Data::Map(_) => todo.push(m),
            Data::Seq(items) => todo.extend(items.into_iter().rev()),
            _ => {}
        }
    }
    while let Some(m) = todo.pop() {
        if let Data::Map(entries) = m {
            // Already merged when it was built.
            for (k, v) in entries {
                if let Some(s) = key_str(&k) {
                    if !seen.insert(s) {
                        continue;
                    }
                }
                out.push((k, v));
            }
        }
    }
    Data::Map(out)
}

/// Tags compared by presence only: saphyr resolves handles, the tree keeps them as
/// written.
pub fn normal(d: Data) -> Data {
    match d {
        Data::Scalar { value, style, tag } => Data::Scalar {
            value,
            style,
            tag: tag.map(|_| String::new()),
        },
        Data::Seq(items) => Data::Seq(items.into_iter().map(normal).collect()),
        Data::Map(e) => Data::Map(e.into_iter().map(|(k, v)| (normal(k), normal(v))).collect()),
    }
}
