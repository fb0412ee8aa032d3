//! The canonical encoding of what a pod sees and its SHA-256: a documented contract,
//! because changing a single byte of it restarts every stamped workload.
//!
//! Encoding `v1` (all integers u64 big-endian; `field(x)` = length of x, then x):
//!
//! ```text
//! "config-hash.dev/v1\n"
//! count of sources
//! per source, sorted by kind then name (bytewise):
//!   field(kind) field(name)
//!   0x00                                 the object is not in the input
//!   0x01 field(type) count-of-keys       present; type is "" for a ConfigMap,
//!                                        the Secret's type ("Opaque" when unset)
//!     per key, sorted bytewise:
//!       field(key) 0x00                  the pod may see this key, but it is absent
//!       field(key) 0x01 field(bytes)     `data` (ConfigMap text / Secret decoded bytes)
//!       field(key) 0x02 field(bytes)     ConfigMap `binaryData`, decoded
//! ```

use std::collections::{BTreeMap, BTreeSet};

use base64::Engine as _;
use sha2::{Digest, Sha256};

use crate::references::{Keys, SourceKind};
use crate::yaml::{NodeId, Tree};

/// The prefix that versions the encoding.
pub const ENCODING_VERSION: &[u8] = b"config-hash.dev/v1\n";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Data,
    BinaryData,
}

/// The bytes a ConfigMap or Secret gives a pod, independent of how they were spelled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Content {
    /// `""` for a ConfigMap; the Secret's type, `Opaque` when unset (as the API server
    /// defaults it).
    pub secret_type: String,
    pub entries: BTreeMap<String, (Origin, Vec<u8>)>,
}

/// Why an object's content cannot be read. Never carries a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContentError {
    NotAMap { field: String },
    NotAString { field: String },
    BadBase64 { field: String },
}

impl std::fmt::Display for ContentError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ContentError::NotAMap { field } => {
                write!(f, "{field} must be a mapping of keys to strings")
            }
            ContentError::NotAString { field } => write!(f, "{field} must be a string"),
            ContentError::BadBase64 { field } => write!(
                f,
                "{field} is not valid base64 (put plain text under stringData instead, or encode it with base64)"
            ),
        }
    }
}

/// Reads the content of a ConfigMap or Secret item.
pub fn content(tree: &Tree<'_>, item: NodeId, kind: SourceKind) -> Result<Content, ContentError> {
    let mut entries = BTreeMap::new();
    let mut secret_type = String::new();
    match kind {
        SourceKind::ConfigMap => {
            for (k, v) in string_map(tree, item, "data")? {
                entries.insert(k, (Origin::Data, v.into_bytes()));
            }
            for (k, v) in string_map(tree, item, "binaryData")? {
                let bytes = decode(&v).ok_or_else(|| ContentError::BadBase64 {
                    field: format!("binaryData.{k}"),
                })?;
                entries.insert(k, (Origin::BinaryData, bytes));
            }
        }
        SourceKind::Secret => {
            for (k, v) in string_map(tree, item, "data")? {
                let bytes = decode(&v).ok_or_else(|| ContentError::BadBase64 {
                    field: format!("data.{k}"),
                })?;
                entries.insert(k, (Origin::Data, bytes));
            }
            // The API server merges stringData over data, key by key.
            for (k, v) in string_map(tree, item, "stringData")? {
                entries.insert(k, (Origin::Data, v.into_bytes()));
            }
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
        entries,
    })
}

fn string_map(
    tree: &Tree<'_>,
    item: NodeId,
    field: &str,
) -> Result<Vec<(String, String)>, ContentError> {
    let Some(map) = tree.get(item, field) else {
        return Ok(Vec::new());
    };
    if tree.is_null(map) {
        return Ok(Vec::new());
    }
    if !tree.is_map(map) {
        return Err(ContentError::NotAMap {
            field: field.to_string(),
        });
    }
    let mut out = Vec::new();
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
        out.push((key.to_string(), value.to_string()));
    }
    Ok(out)
}

/// Standard base64 as the API server reads it: line breaks and spaces are ignored.
fn decode(text: &str) -> Option<Vec<u8>> {
    let compact: String = text.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    base64::engine::general_purpose::STANDARD
        .decode(compact)
        .ok()
}

/// One source as the pod template sees it.
#[derive(Debug, Clone)]
pub struct Seen<'c> {
    pub kind: SourceKind,
    pub name: &'c str,
    /// `None`: the object is not in the input (an optional reference, or a missing one).
    pub content: Option<&'c Content>,
    pub keys: &'c Keys,
}

/// The lowercase hex SHA-256 of everything in `sources` under encoding v1.
pub fn pod_hash(sources: &[Seen<'_>]) -> String {
    let mut sorted: Vec<&Seen<'_>> = sources.iter().collect();
    sorted.sort_by(|a, b| (a.kind, a.name).cmp(&(b.kind, b.name)));
    let mut h = Sha256::new();
    h.update(ENCODING_VERSION);
    h.update((sorted.len() as u64).to_be_bytes());
    for s in sorted {
        field(&mut h, s.kind.as_str().as_bytes());
        field(&mut h, s.name.as_bytes());
        let Some(content) = s.content else {
            h.update([0u8]);
            continue;
        };
        h.update([1u8]);
        field(&mut h, content.secret_type.as_bytes());
        let keys: BTreeSet<&str> = match s.keys {
            Keys::All => content.entries.keys().map(String::as_str).collect(),
            Keys::Some(ks) => ks.iter().map(String::as_str).collect(),
        };
        h.update((keys.len() as u64).to_be_bytes());
        for key in keys {
            field(&mut h, key.as_bytes());
            match content.entries.get(key) {
                None => h.update([0u8]),
                Some((origin, bytes)) => {
                    h.update([match origin {
                        Origin::Data => 1u8,
                        Origin::BinaryData => 2u8,
                    }]);
                    field(&mut h, bytes);
                }
            }
        }
    }
    hex(&h.finalize())
}

fn field(h: &mut Sha256, bytes: &[u8]) {
    h.update((bytes.len() as u64).to_be_bytes());
    h.update(bytes);
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[(b >> 4) as usize] as char);
        s.push(DIGITS[(b & 15) as usize] as char);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_content(src: &str, kind: SourceKind) -> Content {
        let tree = Tree::parse(src).unwrap();
        content(&tree, tree.docs[0].root, kind).unwrap()
    }

    /// Pinned vectors: these values are the contract in the README. If this test fails,
    /// the encoding changed and every stamped workload in the world would restart.
    #[test]
    fn encoding_v1_vectors() {
        let all = Keys::All;
        let cm = parse_content("data: {A: \"1\", B: two}", SourceKind::ConfigMap);
        let one = pod_hash(&[Seen {
            kind: SourceKind::ConfigMap,
            name: "app-config",
            content: Some(&cm),
            keys: &all,
        }]);
        assert_eq!(
            one,
            "4eb2e8200798c8161573ff411c3ca8b55e484384812fedb296a77e60a3e359bb"
        );
        let absent = pod_hash(&[Seen {
            kind: SourceKind::ConfigMap,
            name: "app-config",
            content: None,
            keys: &all,
        }]);
        assert_eq!(
            absent,
            "b52e527f9752c2d714757a9bfca39636426a880cf980477a72409898869fdfe1"
        );
        let sec = parse_content("stringData: {PASSWORD: hunter2}", SourceKind::Secret);
        let key = Keys::Some(vec!["PASSWORD".into()]);
        let both = pod_hash(&[
            Seen {
                kind: SourceKind::Secret,
                name: "db",
                content: Some(&sec),
                keys: &key,
            },
            Seen {
                kind: SourceKind::ConfigMap,
                name: "app-config",
                content: Some(&cm),
                keys: &all,
            },
        ]);
        assert_eq!(
            both,
            "ad0c9c1731f93df4f6e429ece5fef961d1e92d0e06103b2e01587f7d45778162"
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
        let tree = Tree::parse("data: {token: 'not base64!'}").unwrap();
        let err = content(&tree, tree.docs[0].root, SourceKind::Secret).unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("data.token"), "{msg}");
        assert!(!msg.contains("not base64!"), "{msg}");
    }
}
