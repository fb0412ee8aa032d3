//! Resolution: which ConfigMaps and Secrets the input holds, under the names they have
//! in the output, and what a reference to one finds there. Stamping, `--check` and
//! `graph` all read this one value, so none of them works out a status of its own.

use std::collections::HashMap;

use crate::findings::Finding;
use crate::hashing::{self, Content, ContentError};
use crate::krm::{KrmResult, ResourceId, flag};
use crate::references::SourceKind;
use crate::yaml::{NodeId, Tree};

/// Kind, namespace and name of a source.
pub type SourceKey = (SourceKind, Option<String>, String);

/// What the hash needs of one ConfigMap or Secret, owned, so that the tree it came from
/// can be dropped (large inputs are parsed one chunk at a time). Kept small: a large
/// input holds one per source.
#[derive(Debug)]
pub struct SourceEntry {
    pub id: ResourceId,
    pub ignored: bool,
    pub content: Result<Content, ContentError>,
    /// The file the orchestrator read it from, for results.
    file: Option<Box<(String, Option<String>)>>,
    /// The object that makes it, when git holds that instead (a SealedSecret).
    pub producer: Option<Box<Producer>>,
}

/// Whether a source carries one of the catalog's ignore annotations.
fn ignored(tree: &Tree<'_>, item: NodeId) -> bool {
    crate::catalog::annotations::IGNORE
        .iter()
        .any(|key| flag(tree, item, key))
}

/// Who makes a produced source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Producer {
    pub id: ResourceId,
    /// Its content can change outside git.
    pub runtime: bool,
}

impl SourceEntry {
    /// Reads what the hash needs of one ConfigMap or Secret.
    pub fn read(tree: &Tree<'_>, item: NodeId, id: ResourceId, kind: SourceKind) -> SourceEntry {
        SourceEntry {
            id,
            ignored: ignored(tree, item),
            content: hashing::content(tree, item, kind),
            file: crate::krm::file_of(tree, item).map(Box::new),
            producer: None,
        }
    }

    /// An object a producer makes, as [`crate::produced::read`] found it.
    pub fn produced(
        tree: &Tree<'_>,
        item: NodeId,
        producer: &ResourceId,
        made: crate::produced::Made,
        runtime: bool,
    ) -> SourceEntry {
        SourceEntry {
            id: made.id,
            ignored: ignored(tree, item),
            content: made.content,
            file: crate::krm::file_of(tree, item).map(Box::new),
            producer: Some(Box::new(Producer {
                id: producer.clone(),
                runtime,
            })),
        }
    }

    /// Who makes it, when that is an object of another kind (a SealedSecret's Secret; not a
    /// SecretProviderClass, which is read as itself), and whether its content can change
    /// outside git.
    pub fn made_by(&self, kind: SourceKind) -> (Option<ResourceId>, bool) {
        let Some(p) = &self.producer else {
            return (None, false);
        };
        let by = (p.id.kind != kind.as_str()).then(|| p.id.clone());
        (by, p.runtime)
    }

    /// A result about this object, which nothing reads after it.
    pub fn into_result(self, finding: Finding) -> KrmResult {
        let mut r = KrmResult::new(finding);
        r.resource = Some(self.id);
        r.file = self.file.map(|f| *f);
        r
    }

    /// A result about this object.
    pub fn result(&self, finding: Finding) -> KrmResult {
        let mut r = KrmResult::new(finding);
        r.resource = Some(self.id.clone());
        r.file = self.file.as_deref().cloned();
        r
    }
}

/// The ConfigMaps and Secrets of the input, by kind, namespace and (final) name.
#[derive(Debug, Default)]
pub struct SourceIndex {
    /// Boxed: the table keeps room for more entries than it holds.
    by_id: HashMap<SourceKey, Box<SourceEntry>>,
}

impl SourceIndex {
    /// Adds an entry read earlier (perhaps on another thread); a second object with the
    /// same identity is an error.
    pub fn insert(
        &mut self,
        key: SourceKey,
        entry: Box<SourceEntry>,
    ) -> Result<(), Box<KrmResult>> {
        if let Some(first) = self.by_id.get(&key) {
            let finding = Finding::Duplicate {
                made_by: entry.producer.as_ref().map(|p| p.id.clone()),
                other_made_by: first.producer.as_ref().map(|p| p.id.clone()),
            };
            return Err(Box::new(entry.result(finding)));
        }
        self.by_id.insert(key, entry);
        Ok(())
    }

    pub fn get(&self, key: &SourceKey) -> Option<&SourceEntry> {
        self.by_id.get(key).map(|e| &**e)
    }

    /// Takes an entry out, for its result once nothing reads it any more.
    pub fn take(&mut self, key: &SourceKey) -> Option<Box<SourceEntry>> {
        self.by_id.remove(key)
    }

    /// The error result of every source whose content cannot be read, by key: all that
    /// [`finish`] needs of the index, so the index can be dropped before it.
    pub fn unreadable(&self) -> HashMap<SourceKey, KrmResult> {
        self.by_id
            .iter()
            .filter_map(|(key, source)| {
                let e = source.content.as_ref().err()?;
                Some((key.clone(), source.result(Finding::Content(e.clone()))))
            })
            .collect()
    }
}

/// What a reference found: the state `graph` shows and stamping hashes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    Found,
    /// Not in the input, and some reference to it is not optional.
    Missing,
    /// Not in the input, but every reference is optional.
    OptionalAbsent,
    /// Marked `config-hash.dev/ignore` (or Reloader's ignore).
    Ignored,
}

impl Status {
    /// The status of a reference to `source` (`None`: not in the input).
    pub fn of(source: Option<&SourceEntry>, optional: bool) -> Status {
        match source {
            Some(s) if s.ignored => Status::Ignored,
            Some(_) => Status::Found,
            None if optional => Status::OptionalAbsent,
            None => Status::Missing,
        }
    }
}
