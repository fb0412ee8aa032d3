//! What a ConfigMap or Secret gives a pod, independent of how it was spelled: its
//! type, and its keys and values in a compact sorted form.

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

/// Why an object's content cannot be read. Never carries a value. Worded (`Display`)
/// with the findings, in [`crate::model::messages`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContentError {
    NotAMap { field: String },
    NotAString { field: String },
    BadBase64 { field: String },
}

impl std::error::Error for ContentError {}

#[cfg(test)]
mod tests {
    use super::*;

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
}
