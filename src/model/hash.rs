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
//!     0x03 field(spec)                   only for an object whose producer is hashed by
//!                                        its spec (ExternalSecret, SecretProviderClass):
//!                                        the spec's canonical text; its keys then carry
//!                                        empty bytes
//! ```
//!
//! The keys a pod may see leave out those its object lists in
//! `config-hash.dev/ignore-keys` (unless the pod reads them through a `subPath` mount):
//! an object without that annotation is encoded exactly as before it existed.
//!
//! A SealedSecret's Secret is encoded like any Secret, each key's bytes being the
//! ciphertext (or the template text) written under it: what git holds.
//!
//! Keyed encoding `v1-hmac-sha256`: the same bytes after the version line
//! `"config-hash.dev/v1-hmac-sha256\n"`, authenticated with HMAC-SHA256 under the user's
//! key, and stamped as `hmac-sha256:` + hex. The different version line keeps a keyed
//! digest from ever equalling an unkeyed one; the prefix tells a later run (and
//! `--check`) that a key is needed to reproduce it. Without a key, a digest of a weak
//! Secret lets anyone who reads the Deployment test guesses offline; with one, they
//! cannot.

use std::collections::BTreeSet;

use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

use crate::model::reference::Keys;

use crate::model::catalog::SourceKind;
use crate::model::content::{Content, Origin};

/// The prefix that versions the encoding.
pub const ENCODING_VERSION: &[u8] = b"config-hash.dev/v1\n";

/// The prefix that versions the keyed encoding.
pub const KEYED_ENCODING_VERSION: &[u8] = b"config-hash.dev/v1-hmac-sha256\n";

/// How a keyed hash starts when stamped; an unkeyed one is bare hex.
pub const KEYED_PREFIX: &str = "hmac-sha256:";

/// The secret key for HMAC-SHA256 hashing. Its `Debug` never shows the bytes.
#[derive(Clone, PartialEq, Eq)]
pub struct HashKey(Vec<u8>);

impl HashKey {
    /// `None` for an empty key: an empty HMAC key protects nothing.
    pub fn new(bytes: Vec<u8>) -> Option<HashKey> {
        (!bytes.is_empty()).then_some(HashKey(bytes))
    }
}

impl std::fmt::Debug for HashKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HashKey(<{} bytes, redacted>)", self.0.len())
    }
}

/// True for a stamped value only a keyed run can reproduce.
pub fn is_keyed(stamped: &str) -> bool {
    stamped.starts_with(KEYED_PREFIX)
}

/// One source as the pod template sees it.
#[derive(Debug, Clone)]
pub struct Seen<'c> {
    pub kind: SourceKind,
    pub name: &'c str,
    /// `None`: the object is not in the input (an optional reference, or a missing one).
    pub content: Option<&'c Content>,
    pub keys: &'c Keys,
    /// Keys the object leaves out of the hash (`config-hash.dev/ignore-keys`), sorted:
    /// encoded as if the pod could not see them.
    pub skip: &'c [String],
}

/// The lowercase hex SHA-256 of everything in `sources` under encoding v1, or with a
/// key, `hmac-sha256:` and the hex HMAC-SHA256 under encoding v1-hmac-sha256.
pub fn pod_hash(sources: &[Seen<'_>], key: Option<&HashKey>) -> String {
    match key {
        None => {
            let mut h = Sha256::new();
            h.update(ENCODING_VERSION);
            encode(sources, &mut |b| h.update(b));
            hex(&h.finalize())
        }
        Some(HashKey(key)) => {
            // HMAC accepts keys of any length, so this cannot fail.
            let mut m = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC takes any key");
            m.update(KEYED_ENCODING_VERSION);
            encode(sources, &mut |b| m.update(b));
            format!("{KEYED_PREFIX}{}", hex(&m.finalize().into_bytes()))
        }
    }
}

/// Feeds the encoding of `sources` (everything after the version line) to `put`.
fn encode(sources: &[Seen<'_>], put: &mut dyn FnMut(&[u8])) {
    let mut sorted: Vec<&Seen<'_>> = sources.iter().collect();
    sorted.sort_by(|a, b| (a.kind, a.name).cmp(&(b.kind, b.name)));
    put(&(sorted.len() as u64).to_be_bytes());
    for s in sorted {
        field(put, s.kind.as_str().as_bytes());
        field(put, s.name.as_bytes());
        let Some(content) = s.content else {
            put(&[0u8]);
            continue;
        };
        put(&[1u8]);
        field(put, content.secret_type.as_bytes());
        let mut keys: BTreeSet<&str> = match s.keys {
            Keys::All => content.entries.keys().collect(),
            Keys::Some(ks) => ks.iter().map(String::as_str).collect(),
        };
        for k in s.skip {
            keys.remove(k.as_str());
        }
        put(&(keys.len() as u64).to_be_bytes());
        for key in keys {
            field(put, key.as_bytes());
            match content.entries.get(key) {
                None => put(&[0u8]),
                Some((origin, bytes)) => {
                    put(&[match origin {
                        Origin::Data => 1u8,
                        Origin::BinaryData => 2u8,
                    }]);
                    field(put, bytes);
                }
            }
        }
        if let Some(spec) = &content.spec {
            put(&[3u8]);
            field(put, spec);
        }
    }
}

fn field(put: &mut dyn FnMut(&[u8]), bytes: &[u8]) {
    put(&(bytes.len() as u64).to_be_bytes());
    put(bytes);
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
        let tree = crate::yaml::parse(src).unwrap();
        crate::read::content::content(&tree, tree.documents()[0].root(), kind).unwrap()
    }

    /// Pinned vectors: these values are the contract in docs/hash-contract.md. If this test fails,
    /// the encoding changed and every stamped workload in the world would restart.
    /// `config-hash.dev/ignore-keys`: a listed key is encoded as if the pod could not
    /// see it, so the ConfigMap of the first vector with `B` ignored hashes as one
    /// holding only `A`, whatever `B` holds; pinned in docs/hash-contract.md.
    #[test]
    fn ignored_keys_are_encoded_as_if_unseen() {
        let hash = |data: &str, skip: &[String]| {
            let cm = parse_content(data, SourceKind::ConfigMap);
            pod_hash(
                &[Seen {
                    kind: SourceKind::ConfigMap,
                    name: "app-config",
                    content: Some(&cm),
                    keys: &Keys::All,
                    skip,
                }],
                None,
            )
        };
        let b = ["B".to_string()];
        let ignored = hash("data: {A: \"1\", B: two}", &b);
        assert_eq!(
            ignored,
            "26782ba59b813eb696c40fc3c6ab90097417d0d31e3805e066a3edc4872683f0"
        );
        assert_eq!(ignored, hash("data: {A: \"1\"}", &[]));
        assert_eq!(ignored, hash("data: {A: \"1\", B: three}", &b));
        assert_ne!(ignored, hash("data: {A: \"2\", B: two}", &b));
        // Ignoring a key the object lacks changes nothing.
        assert_eq!(
            hash("data: {A: \"1\", B: two}", &["C".to_string()]),
            "4eb2e8200798c8161573ff411c3ca8b55e484384812fedb296a77e60a3e359bb"
        );
    }

    #[test]
    fn encoding_v1_vectors() {
        let all = Keys::All;
        let cm = parse_content("data: {A: \"1\", B: two}", SourceKind::ConfigMap);
        let one = pod_hash(
            &[Seen {
                kind: SourceKind::ConfigMap,
                name: "app-config",
                content: Some(&cm),
                keys: &all,
                skip: &[],
            }],
            None,
        );
        assert_eq!(
            one,
            "4eb2e8200798c8161573ff411c3ca8b55e484384812fedb296a77e60a3e359bb"
        );
        let absent = pod_hash(
            &[Seen {
                kind: SourceKind::ConfigMap,
                name: "app-config",
                content: None,
                keys: &all,
                skip: &[],
            }],
            None,
        );
        assert_eq!(
            absent,
            "b52e527f9752c2d714757a9bfca39636426a880cf980477a72409898869fdfe1"
        );
        let sec = parse_content("stringData: {PASSWORD: hunter2}", SourceKind::Secret);
        let key = Keys::Some(vec!["PASSWORD".into()]);
        let both = pod_hash(
            &[
                Seen {
                    kind: SourceKind::Secret,
                    name: "db",
                    content: Some(&sec),
                    keys: &key,
                    skip: &[],
                },
                Seen {
                    kind: SourceKind::ConfigMap,
                    name: "app-config",
                    content: Some(&cm),
                    keys: &all,
                    skip: &[],
                },
            ],
            None,
        );
        assert_eq!(
            both,
            "ad0c9c1731f93df4f6e429ece5fef961d1e92d0e06103b2e01587f7d45778162"
        );
    }

    /// Pinned keyed vectors (key `config-hash test key`), the same sources as above;
    /// cross-checked with Python's `hmac.new(key, b"config-hash.dev/v1-hmac-sha256\n" +
    /// encoding, hashlib.sha256)`.
    #[test]
    fn encoding_v1_hmac_sha256_vectors() {
        let key = HashKey::new(b"config-hash test key".to_vec()).unwrap();
        let all = Keys::All;
        let cm = parse_content("data: {A: \"1\", B: two}", SourceKind::ConfigMap);
        let sec = parse_content("stringData: {PASSWORD: hunter2}", SourceKind::Secret);
        let pw = Keys::Some(vec!["PASSWORD".into()]);
        let cm_seen = Seen {
            kind: SourceKind::ConfigMap,
            name: "app-config",
            content: Some(&cm),
            keys: &all,
            skip: &[],
        };
        let absent = Seen {
            content: None,
            ..cm_seen.clone()
        };
        let sec_seen = Seen {
            kind: SourceKind::Secret,
            name: "db",
            content: Some(&sec),
            keys: &pw,
            skip: &[],
        };
        let cases = [
            (
                vec![cm_seen.clone()],
                "hmac-sha256:07e71665923fa126fe409e896773577483e413a51aaf6df457f844566a8ddaf1",
            ),
            (
                vec![absent],
                "hmac-sha256:c7827647054d83702c98f022c8ccc5199aba1d5ac865dd127d6f90aef34509c8",
            ),
            (
                vec![sec_seen, cm_seen],
                "hmac-sha256:5b5e1318fb7958881971d655db96106ea710012d8ba023e46e0ecc4ed2744c84",
            ),
        ];
        for (sources, want) in cases {
            let keyed = pod_hash(&sources, Some(&key));
            assert_eq!(keyed, want);
            assert!(is_keyed(&keyed));
            assert!(!is_keyed(&pod_hash(&sources, None)));
        }
        // Another key, another hash.
        let other = HashKey::new(b"config-hash test key 2".to_vec()).unwrap();
        assert_ne!(
            pod_hash(&cases_first(&cm), Some(&other)),
            pod_hash(&cases_first(&cm), Some(&key))
        );
    }

    fn cases_first(cm: &Content) -> Vec<Seen<'_>> {
        vec![Seen {
            kind: SourceKind::ConfigMap,
            name: "app-config",
            content: Some(cm),
            keys: &Keys::All,
            skip: &[],
        }]
    }

    #[test]
    fn a_key_never_shows_in_debug_output() {
        let key = HashKey::new(b"s3cret-key".to_vec()).unwrap();
        let shown = format!(
            "{key:?} {:?}",
            crate::Invocation {
                hash_key: Some(key.clone()),
                ..Default::default()
            }
        );
        assert!(!shown.contains("s3cret"), "{shown}");
        // What it shows instead: how long the key is, so a user can tell a key was read.
        assert_eq!(format!("{key:?}"), "HashKey(<10 bytes, redacted>)");
        assert!(HashKey::new(Vec::new()).is_none());
    }
}
