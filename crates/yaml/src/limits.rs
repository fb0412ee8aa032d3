//! How much one text may ask of the reader: its size, how deep it nests, how far its
//! aliases expand. Every walk over a tree is bounded by these.

/// The largest text one tree may read: offsets are `u32`s. Far past anything the API
/// server stores (1.5 MiB an object) or a repository holds.
pub const MAX_TEXT_BYTES: usize = u32::MAX as usize - 2;

/// How deep collections may nest. go-yaml stops at 10,000; real manifests stay under
/// 30. Below go-yaml's limit, because every walk over the tree must stay far from the
/// end of a thread's stack.
pub const MAX_DEPTH: usize = 1_000;

/// How many nodes a document may have once its aliases (and merge keys, which are
/// aliases) are expanded: this many, or [`MAX_ALIAS_RATIO`] times the nodes written,
/// whichever is larger. Every walk through aliases is bounded by it; an alias bomb is
/// refused before any walk starts. go-yaml refuses similar documents ("excessive
/// aliasing").
pub const MAX_ALIAS_EXPANSION: u64 = 100_000;

/// See [`MAX_ALIAS_EXPANSION`].
pub const MAX_ALIAS_RATIO: u64 = 10;
