//! The content of a ConfigMap or Secret, read from its manifest as the API server reads
//! it: `data`, `binaryData` and `stringData` merged, base64 decoded, the type defaulted.

use base64::Engine as _;

use crate::model::catalog::SourceKind;
use crate::model::content::{Content, ContentError, EntriesBuilder, Origin};
use crate::yaml::{NodeId, Tree};

/// Reads the content of a ConfigMap or Secret item.
pub fn content(tree: &Tree<'_>, item: NodeId, kind: SourceKind) -> Result<Content, ContentError> {
    // Each key and value goes straight into the entries' one buffer: no string per
    // key, no list of the pairs.
    let mut entries = EntriesBuilder::default();
    let mut secret_type = String::new();
    match kind {
        SourceKind::ConfigMap => {
            string_map(tree, item, "data", &mut |k, v| {
                entries.push(k, Origin::Data, v.as_bytes());
                Ok(())
            })?;
            string_map(tree, item, "binaryData", &mut |k, v| {
                let bytes = decode(v).ok_or_else(|| ContentError::BadBase64 {
                    field: format!("binaryData.{k}"),
                })?;
                entries.push(k, Origin::BinaryData, &bytes);
                Ok(())
            })?;
        }
        // Read from its producer's spec (`produced.rs`), never as a v1 object.
        SourceKind::SecretProviderClass => {}
        SourceKind::Secret => {
            string_map(tree, item, "data", &mut |k, v| {
                let bytes = decode(v).ok_or_else(|| ContentError::BadBase64 {
                    field: format!("data.{k}"),
                })?;
                entries.push(k, Origin::Data, &bytes);
                Ok(())
            })?;
            // The API server merges stringData over data, key by key.
            string_map(tree, item, "stringData", &mut |k, v| {
                entries.push(k, Origin::Data, v.as_bytes());
                Ok(())
            })?;
            secret_type = match tree.get(item, "type") {
                Some(t) if !tree.is_null(t) => tree
                    .str(t)
                    .ok_or_else(|| ContentError::NotAString {
                        field: "type".into(),
                    })?
                    .to_string(),
                _ => "Opaque".to_string(),
            };
        }
    }
    Ok(Content {
        secret_type,
        entries: entries.finish(),
        spec: None,
        open: false,
    })
}

/// Calls `f` with each key and string value of the map `field` of `item` (none when it
/// is absent or null), in order, without collecting them first: a map of a million
/// entries is held once, by the caller.
fn string_map<'t>(
    tree: &'t Tree<'_>,
    item: NodeId,
    field: &str,
    f: &mut dyn FnMut(&'t str, &'t str) -> Result<(), ContentError>,
) -> Result<(), ContentError> {
    let Some(map) = tree.get(item, field) else {
        return Ok(());
    };
    if tree.is_null(map) {
        return Ok(());
    }
    if !tree.is_map(map) {
        return Err(ContentError::NotAMap {
            field: field.to_string(),
        });
    }
    for (k, v) in tree.entries(map) {
        let key = tree.str(k).ok_or_else(|| ContentError::NotAString {
            field: format!("a key of {field}"),
        })?;
        // A YAML null is what Go's decoder turns into "".
        let value = if tree.is_null(v) {
            ""
        } else {
            tree.str(v).ok_or_else(|| ContentError::NotAString {
                field: format!("{field}.{key}"),
            })?
        };
        f(key, value)?;
    }
    Ok(())
}

/// Standard base64 as the API server reads it: line breaks and spaces are ignored.
fn decode(text: &str) -> Option<Vec<u8>> {
    let compact: String = text.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    base64::engine::general_purpose::STANDARD
        .decode(compact)
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_content(src: &str, kind: SourceKind) -> Content {
        let tree = crate::yaml::parse(src).unwrap();
        content(&tree, tree.documents()[0].root(), kind).unwrap()
    }

    /// The API server defaults a Secret's type when it is unset, and a YAML null is
    /// unset: `type: ~` hashes as `Opaque`, not as a type named "~" or "null".
    #[test]
    fn a_null_secret_type_is_opaque() {
        let opaque = parse_content("data: {k: aGk=}\ntype: Opaque\n", SourceKind::Secret);
        assert_eq!(opaque.secret_type, "Opaque");
        for t in ["", "type: ~\n", "type: null\n", "type:\n"] {
            let got = parse_content(&format!("data: {{k: aGk=}}\n{t}"), SourceKind::Secret);
            assert_eq!(got, opaque, "{t:?}");
        }
        let tls = parse_content("type: kubernetes.io/tls\n", SourceKind::Secret);
        assert_eq!(tls.secret_type, "kubernetes.io/tls");
        let list = crate::yaml::parse("type: [a]\n").unwrap();
        assert_eq!(
            content(&list, list.documents()[0].root(), SourceKind::Secret),
            Err(ContentError::NotAString {
                field: "type".into()
            })
        );
    }

    #[test]
    fn secret_spellings_agree() {
        let a = parse_content("data: {k: aGVs\n  bG8=}\n", SourceKind::Secret);
        let b = parse_content("stringData: {k: hello}\ntype: Opaque\n", SourceKind::Secret);
        assert_eq!(a, b);
    }

    #[test]
    fn bad_base64_names_the_key_not_the_value() {
        let tree = crate::yaml::parse("data: {token: 'not base64!'}").unwrap();
        let err = content(&tree, tree.documents()[0].root(), SourceKind::Secret).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("data.token"), "{msg}");
        assert!(!msg.contains("not base64!"), "{msg}");
    }
}
