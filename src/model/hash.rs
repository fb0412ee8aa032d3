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

use base64::Engine as _;
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

use crate::read::references::{Keys, SourceKind};
use crate::yaml::{NodeId, Tree};

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
    pub entries: Entries,
    /// The producer's canonical spec, for objects a producer hashes by spec.
    pub spec: Option<Vec<u8>>,
    /// Keys beyond `entries` may exist (an ExternalSecret with `dataFrom`): a key the
    /// pod names that is not listed is not reported missing.
    pub open: bool,
}

/// A source's keys and values, sorted by key, in two allocations: a large input holds
/// one per ConfigMap and Secret until every workload is stamped, so a map of owned
/// strings (a node and two allocations per key) would cost several times the bytes.
#[derive(Debug, Clone, Default)]
pub struct Entries {
    /// Every key and value, back to back.
    bytes: Box<[u8]>,
    /// Per entry: where its key and value are in `bytes`, and its origin; sorted by key.
    at: Box<[EntryAt]>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct EntryAt {
    key: (u32, u32),
    value: (u32, u32),
    origin: Origin,
}

/// Builds [`Entries`] as a source is read: each key and value is copied into the one
/// buffer as it comes, so nothing holds the pairs a second time (a ConfigMap with a
/// million keys held a 48-byte pair per key beside the entries).
#[derive(Debug)]
pub struct EntriesBuilder {
    bytes: Vec<u8>,
    at: Vec<EntryAt>,
}

impl Default for EntriesBuilder {
    /// Room for a typical ConfigMap's few short entries, so most sources are read
    /// without growing the buffers.
    fn default() -> EntriesBuilder {
        EntriesBuilder {
            bytes: Vec::with_capacity(256),
            at: Vec::with_capacity(8),
        }
    }
}

impl EntriesBuilder {
    /// Adds an entry; a later value for a key replaces an earlier one (as the API server
    /// merges a Secret's stringData over data).
    pub fn push(&mut self, key: &str, origin: Origin, value: &[u8]) {
        let span = |bytes: &Vec<u8>, len: usize| {
            (
                u32::try_from(bytes.len() - len).unwrap_or(u32::MAX),
                u32::try_from(len).unwrap_or(u32::MAX),
            )
        };
        self.bytes.extend_from_slice(key.as_bytes());
        let key = span(&self.bytes, key.len());
        self.bytes.extend_from_slice(value);
        let value = span(&self.bytes, value.len());
        self.at.push(EntryAt { key, value, origin });
    }

    /// The entries, sorted by key, the last value of each key kept.
    pub fn finish(self) -> Entries {
        let EntriesBuilder { bytes, mut at } = self;
        let key = |e: &EntryAt| &bytes[e.key.0 as usize..(e.key.0 + e.key.1) as usize];
        // Keys start later in `bytes` the later they were pushed, so among equal keys the
        // last pushed sorts last: an unstable sort needs no scratch copy.
        at.sort_unstable_by(|a, b| key(a).cmp(key(b)).then(a.key.0.cmp(&b.key.0)));
        let mut kept = 0;
        for read in 0..at.len() {
            if at
                .get(read + 1)
                .is_some_and(|next| key(next) == key(&at[read]))
            {
                continue;
            }
            at[kept] = at[read];
            kept += 1;
        }
        at.truncate(kept);
        // A replaced value's bytes stay in the buffer: duplicate keys are rare, and
        // compacting would copy every entry.
        Entries {
            bytes: bytes.into_boxed_slice(),
            at: at.into_boxed_slice(),
        }
    }
}

/// Equal when they hold the same keys, origins and values: the buffer's layout (the
/// order entries were read in, a replaced value's bytes) is not content.
impl PartialEq for Entries {
    fn eq(&self, other: &Entries) -> bool {
        self.at.len() == other.at.len()
            && self.at.iter().zip(other.at.iter()).all(|(a, b)| {
                a.origin == b.origin
                    && self.slice(a.key) == other.slice(b.key)
                    && self.slice(a.value) == other.slice(b.value)
            })
    }
}

impl Eq for Entries {}

impl Entries {
    /// Builds the entries from pairs in the order they were written (see
    /// [`EntriesBuilder::push`]).
    #[cfg(test)]
    pub fn from_pairs<K: AsRef<str>, V: AsRef<[u8]>>(pairs: Vec<(K, Origin, V)>) -> Entries {
        let mut builder = EntriesBuilder::default();
        for (k, origin, v) in &pairs {
            builder.push(k.as_ref(), *origin, v.as_ref());
        }
        builder.finish()
    }

    fn slice(&self, (start, len): (u32, u32)) -> &[u8] {
        &self.bytes[start as usize..start as usize + len as usize]
    }

    fn key_of(&self, e: &EntryAt) -> &str {
        // Keys were pushed from `String`s, so they are UTF-8.
        std::str::from_utf8(self.slice(e.key)).unwrap_or_default()
    }

    fn find(&self, key: &str) -> Option<&EntryAt> {
        self.at
            .binary_search_by(|e| self.key_of(e).cmp(key))
            .ok()
            .map(|i| &self.at[i])
    }

    /// The origin and bytes of `key`.
    pub fn get(&self, key: &str) -> Option<(Origin, &[u8])> {
        self.find(key).map(|e| (e.origin, self.slice(e.value)))
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.find(key).is_some()
    }

    /// The keys, sorted.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.at.iter().map(|e| self.key_of(e))
    }

    pub fn len(&self) -> usize {
        self.at.len()
    }

    pub fn is_empty(&self) -> bool {
        self.at.is_empty()
    }
}

/// Why an object's content cannot be read. Never carries a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContentError {
    NotAMap { field: String },
    NotAString { field: String },
    BadBase64 { field: String },
}

// Worded in `crate::model::findings`.

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
        content(&tree, tree.documents()[0].root(), kind).unwrap()
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

    #[test]
    fn the_last_value_of_a_key_wins_and_entries_are_sorted_whatever_the_order_read() {
        let mut builder = EntriesBuilder::default();
        for (k, v) in [("b", "1"), ("a", "2"), ("b", "3"), ("c", "4"), ("a", "5")] {
            builder.push(k, Origin::Data, v.as_bytes());
        }
        let entries = builder.finish();
        assert_eq!(entries.keys().collect::<Vec<_>>(), ["a", "b", "c"]);
        assert_eq!(entries.get("a"), Some((Origin::Data, &b"5"[..])));
        assert_eq!(entries.get("b"), Some((Origin::Data, &b"3"[..])));
        // The same content read in another order, without the replaced values, is equal.
        let other = Entries::from_pairs(vec![
            ("c", Origin::Data, "4"),
            ("b", Origin::Data, "3"),
            ("a", Origin::Data, "5"),
        ]);
        assert_eq!(entries, other);
        let different = Entries::from_pairs(vec![
            ("c", Origin::Data, "4"),
            ("b", Origin::Data, "3"),
            ("a", Origin::BinaryData, "5"),
        ]);
        assert_ne!(entries, different);
    }

    #[test]
    fn entries_are_sorted_and_a_later_value_for_a_key_replaces_an_earlier_one() {
        let e = Entries::from_pairs(vec![
            ("b", Origin::Data, "1"),
            ("a", Origin::BinaryData, "2"),
            ("b", Origin::Data, "3"),
            ("c", Origin::Data, ""),
        ]);
        assert_eq!(e.keys().collect::<Vec<_>>(), ["a", "b", "c"]);
        assert_eq!(e.len(), 3);
        assert!(!e.is_empty());
        assert_eq!(e.get("a"), Some((Origin::BinaryData, &b"2"[..])));
        assert_eq!(e.get("b"), Some((Origin::Data, &b"3"[..])));
        assert_eq!(e.get("c"), Some((Origin::Data, &b""[..])));
        assert!(e.contains_key("c") && !e.contains_key("d"));
        let none = Entries::from_pairs(Vec::<(&str, Origin, &str)>::new());
        assert!(none.is_empty());
        assert_eq!(none.len(), 0);
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
