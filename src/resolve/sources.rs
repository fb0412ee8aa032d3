//! The sources: every ConfigMap and Secret of the input (and every object a producer
//! makes) as the hash needs it, indexed under its name in the output, and what a name
//! finds among them once renames are applied.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::model::catalog::SourceKind;
use crate::model::content::{Content, ContentError};
use crate::model::findings::{Finding, MadeBy};
use crate::model::reference::{Lookup, SourceKey, SourceRef};
use crate::model::resource::ResourceId;
use crate::model::result::KrmResult;
use crate::resolve::renames::{AnyNamespace, Renames, Renaming};
use crate::yaml::{NodeId, Tree};

/// What the hash needs of one ConfigMap or Secret, owned, so that the tree it came from
/// can be dropped (large inputs are parsed one chunk at a time). Kept small: a large
/// input holds one per source.
#[derive(Debug, Clone)]
pub struct SourceEntry {
    pub id: ResourceId,
    pub ignored: bool,
    /// Its name changes with its content (a config-hash or kustomize hashed name), so
    /// the workloads that read it roll by that alone (what `audit` asks). Read only for
    /// views (see [`hashed_name`]): stamping never asks.
    pub hashed_name: bool,
    /// The keys `config-hash.dev/ignore-keys` leaves out of every hash (sorted).
    pub ignored_keys: Box<[String]>,
    pub content: Result<Content, ContentError>,
    /// The file the orchestrator read it from, for results.
    file: Option<crate::model::resource::FileRef>,
    /// The object that makes it, when git holds that instead (a SealedSecret).
    pub producer: Option<Box<Producer>>,
    /// Its place among the index's entries, in input order (set by
    /// [`SourceIndex::insert`]): which namespace a name from any namespace finds first.
    order: u32,
}

/// The object's `metadata.annotations`, looked up once for what a source reads of them.
fn annotations_of(tree: &Tree<'_>, item: NodeId) -> Option<NodeId> {
    tree.get_path(item, &["metadata", "annotations"])
}

/// Whether a source carries one of the catalog's ignore annotations (`annotations`: its
/// `metadata.annotations`).
fn ignored(tree: &Tree<'_>, annotations: Option<NodeId>) -> bool {
    let Some(annotations) = annotations else {
        return false;
    };
    crate::model::catalog::annotations::IGNORE
        .iter()
        .any(|key| tree.get(annotations, key).and_then(|v| tree.str(v)) == Some("true"))
}

/// Whether an object's name changes with its content: config-hash's hashed name (its
/// base name recorded, or asked for) or kustomize's (asked for, or the 10 characters of
/// kustomize's alphabet a generator appends, as a rendered kustomization holds them).
pub fn hashed_name(tree: &Tree<'_>, item: NodeId, name: &str) -> bool {
    use crate::model::catalog::annotations::{BASE_NAME, NAME_SUFFIX, NEEDS_HASH};
    let annotation = |key| crate::model::resource::annotation(tree, item, key);
    annotation(BASE_NAME).is_some()
        || annotation(NAME_SUFFIX) == Some("true")
        || annotation(NEEDS_HASH) == Some("true")
        || crate::model::name_hash::strip_kustomize_suffix(name).is_some()
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
        let annotations = annotations_of(tree, item);
        SourceEntry {
            hashed_name: false,
            id,
            ignored: ignored(tree, annotations),
            ignored_keys: crate::read::ignore_keys::listed(tree, annotations).into_boxed_slice(),
            content: crate::read::content::content(tree, item, kind),
            file: crate::model::resource::file_of(tree, item),
            producer: None,
            order: 0,
        }
    }

    /// An object a producer makes, as [`crate::read::produced::read`] found it.
    pub fn produced(
        tree: &Tree<'_>,
        item: NodeId,
        producer: &ResourceId,
        made: crate::read::produced::Made,
        runtime: bool,
    ) -> SourceEntry {
        SourceEntry {
            hashed_name: false,
            id: made.id,
            ignored: ignored(tree, annotations_of(tree, item)),
            ignored_keys: Box::default(),
            content: made.content,
            file: crate::model::resource::file_of(tree, item),
            producer: Some(Box::new(Producer {
                id: producer.clone(),
                runtime,
            })),
            order: 0,
        }
    }

    /// Who makes it, when that is an object of another kind (a SealedSecret's Secret; not a
    /// SecretProviderClass, which is read as itself), and whether its content can change
    /// outside git.
    pub fn made_by(&self, kind: SourceKind) -> (Option<ResourceId>, bool) {
        let Some(p) = &self.producer else {
            return (None, false);
        };
        let by = (p.id.kind() != kind.as_str()).then(|| p.id.clone());
        (by, p.runtime)
    }

    /// A result about this object, which nothing reads after it.
    pub fn into_result(self, finding: Finding) -> KrmResult {
        let mut r = KrmResult::new(finding);
        r.resource = Some(self.id);
        r.file = self.file;
        r
    }

    /// A result about this object.
    pub fn result(&self, finding: Finding) -> KrmResult {
        let mut r = KrmResult::new(finding);
        r.resource = Some(self.id.clone());
        r.file = self.file.clone();
        r
    }

    /// The result that describes it under its hashed name in the output, made of its
    /// index entry and its renaming, which nothing reads after this.
    pub fn into_renamed_result(self, renaming: Renaming, references: usize) -> KrmResult {
        let mut result = self.into_result(Finding::Renamed {
            base: renaming.base,
            references,
        });
        if let Some(r) = result.resource.as_mut() {
            *r = r.with_name(&renaming.new_name);
        }
        result
    }
}

/// The ConfigMaps and Secrets of the input, by kind, namespace and (final) name.
#[derive(Debug, Default)]
pub struct SourceIndex {
    /// Boxed: the table keeps room for more entries than it holds.
    by_id: HashMap<SourceKey, Box<SourceEntry>>,
    /// The namespaces holding an object of each name, in input order: what a
    /// cluster-scoped object's reference (a ClusterRole's `resourceNames`) finds, and
    /// where a missing reference's object is instead. Built on the first such look-up
    /// (pass 2 runs on several threads, hence a `OnceLock`), and only then: most inputs
    /// never ask, and a copy of every source's name costs as much as the index's keys.
    anywhere: OnceLock<Anywhere>,
    /// How many entries were inserted: the next one's [`SourceEntry`] order.
    inserted: u32,
    /// Some source lists keys to leave out of hashes: only then do workloads look for
    /// `subPath` mounts.
    any_ignored_keys: bool,
}

/// Name -> the kind and namespace of each object of that name, in input order. Keyed by
/// name alone, so that a look-up borrows it: one runs per missing reference.
type Anywhere = HashMap<String, Vec<(SourceKind, Option<String>)>>;

impl SourceIndex {
    /// Adds an entry read earlier (perhaps on another thread); a second object with the
    /// same identity is an error.
    /// An empty index with room for `n` sources.
    pub fn with_capacity(n: usize) -> Self {
        SourceIndex {
            by_id: HashMap::with_capacity(n),
            ..Default::default()
        }
    }

    pub fn insert(
        &mut self,
        key: SourceKey,
        mut entry: Box<SourceEntry>,
    ) -> Result<(), Box<KrmResult>> {
        if let Some(first) = self.by_id.get(&key) {
            let finding = Finding::Duplicate {
                made_by: entry.producer.as_ref().map(|p| p.id.clone()),
                other_made_by: first.producer.as_ref().map(|p| p.id.clone()),
            };
            return Err(Box::new(entry.result(finding)));
        }
        self.any_ignored_keys |= !entry.ignored_keys.is_empty();
        entry.order = self.inserted;
        self.inserted = self.inserted.saturating_add(1);
        self.anywhere.take();
        self.by_id.insert(key, entry);
        Ok(())
    }

    /// The namespaces that hold an object of this kind and name, in input order.
    pub fn namespaces_of<'s>(
        &'s self,
        kind: SourceKind,
        name: &str,
    ) -> impl Iterator<Item = &'s Option<String>> + use<'s> {
        self.anywhere
            .get_or_init(|| self.anywhere())
            .get(name)
            .into_iter()
            .flatten()
            .filter(move |(k, _)| *k == kind)
            .map(|(_, ns)| ns)
    }

    /// Every entry's name, with the kind and namespace of each object of that name in
    /// input order.
    fn anywhere(&self) -> Anywhere {
        let mut keys: Vec<(u32, &SourceKey)> =
            self.by_id.iter().map(|(k, e)| (e.order, k)).collect();
        keys.sort_unstable_by_key(|&(order, _)| order);
        let mut anywhere = Anywhere::with_capacity(keys.len());
        for (
            _,
            SourceKey {
                kind,
                namespace: ns,
                name,
            },
        ) in keys
        {
            anywhere
                .entry(name.clone())
                .or_insert_with(|| Vec::with_capacity(1))
                .push((*kind, ns.clone()));
        }
        anywhere
    }

    /// Whether any source lists keys to leave out of hashes.
    pub fn any_ignored_keys(&self) -> bool {
        self.any_ignored_keys
    }

    /// The entry under `key`: a [`SourceKey`], or a [`SourceRef`] that copies no name.
    pub fn get<K: Lookup>(&self, key: &K) -> Option<&SourceEntry> {
        self.by_id.get(key as &dyn Lookup).map(|e| &**e)
    }

    /// Every source, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&SourceKey, &SourceEntry)> {
        self.by_id.iter().map(|(k, e)| (k, &**e))
    }

    /// Takes an entry out, for its result once nothing reads it any more.
    pub fn take(&mut self, key: &SourceKey) -> Option<Box<SourceEntry>> {
        self.anywhere.take();
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

/// Where names resolve: the sources under their final names, and the renames that map
/// the names references use (base names, earlier suffixed names) to those.
#[derive(Clone, Copy)]
pub struct Resolver<'r> {
    pub index: &'r SourceIndex,
    pub renames: &'r Renames,
}

/// What a name resolved to.
pub struct Found<'r> {
    /// The name after renaming.
    pub name: String,
    pub namespace: Option<String>,
    pub entry: Option<&'r SourceEntry>,
}

impl Found<'_> {
    pub fn key(&self, kind: SourceKind) -> SourceKey {
        SourceKey::new(kind, self.namespace.as_deref(), &self.name)
    }
}

impl<'r> Resolver<'r> {
    /// The object of this kind that `name` names in `namespace`.
    pub fn find(&self, kind: SourceKind, namespace: Option<&str>, name: &str) -> Found<'r> {
        let name = self
            .renames
            .final_name(kind, namespace, name)
            .unwrap_or(name)
            .to_string();
        let entry = self.index.get(&SourceRef {
            kind,
            namespace,
            name: &name,
        });
        Found {
            name,
            namespace: namespace.map(str::to_string),
            entry,
        }
    }

    /// The object of this kind that `name` names from a cluster-scoped object, in any
    /// namespace: a renamed object under one of its names, else the one object of that
    /// name. Objects of several namespaces: the first in input order (renaming leaves
    /// such a name as written, with a warning).
    pub fn find_any(&self, kind: SourceKind, name: &str) -> Found<'r> {
        let (namespace, name) = match self.renames.resolve_any(kind, name) {
            AnyNamespace::One(r) => (
                self.renames.namespace_of(r).clone(),
                self.renames.final_of(r).to_string(),
            ),
            AnyNamespace::None | AnyNamespace::Ambiguous => (
                self.index
                    .namespaces_of(kind, name)
                    .next()
                    .cloned()
                    .flatten(),
                name.to_string(),
            ),
        };
        let entry = self.index.get(&SourceRef {
            kind,
            namespace: namespace.as_deref(),
            name: &name,
        });
        Found {
            name,
            namespace,
            entry,
        }
    }

    /// For a reference that finds nothing: an object of the other kind under that name,
    /// which such a reference cannot read (a `configMapKeyRef` naming a Secret).
    pub fn other_kind(
        &self,
        kind: SourceKind,
        namespace: &Option<String>,
        name: &str,
    ) -> Option<(SourceKind, Option<MadeBy>)> {
        let other = kind.other()?;
        let found = self.index.get(&SourceRef {
            kind: other,
            namespace: namespace.as_deref(),
            name,
        })?;
        let by = found.producer.as_ref().map(|p| MadeBy {
            kind: p.id.kind().to_string(),
            name: p.id.name().to_string(),
        });
        Some((other, by))
    }
}

/// Also what the other `resolve` modules' tests build their inputs with: sources indexed
/// as pass 1 indexes them.
#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::catalog::{Catalog, annotations};
    use crate::model::config::Config;

    pub(crate) const CM: SourceKind = SourceKind::ConfigMap;
    pub(crate) const SECRET: SourceKind = SourceKind::Secret;

    /// Every ConfigMap and Secret of `tree` (and what its producers make), indexed under
    /// its final name as pass 1 indexes them.
    pub(crate) fn index_of(
        tree: &Tree<'_>,
        config: &Config,
        catalog: &Catalog,
        renames: &Renames,
    ) -> SourceIndex {
        let mut index = SourceIndex::default();
        let mut add = |kind: SourceKind, entry: SourceEntry| {
            let id = &entry.id;
            let name = renames
                .final_name(kind, id.namespace(), id.name())
                .unwrap_or(id.name())
                .to_string();
            let key = SourceKey::new(kind, id.namespace(), &name);
            index.insert(key, Box::new(entry)).unwrap();
        };
        for doc in tree.documents() {
            let item = doc.root();
            let id = config.placed(ResourceId::of(tree, item));
            if let Some(kind) = SourceKind::from_kind(id.api_version(), id.kind()) {
                add(kind, SourceEntry::read(tree, item, id, kind));
                continue;
            }
            for p in catalog.producers_for(id.api_version(), id.kind()) {
                for made in crate::read::produced::read(tree, item, &id, p) {
                    let kind = made.kind;
                    add(
                        kind,
                        SourceEntry::produced(tree, item, &id, made, p.runtime),
                    );
                }
            }
        }
        index
    }

    /// A ConfigMap or Secret (`kind`) in namespace `ns` (none when empty).
    pub(crate) fn source(kind: &str, ns: &str, name: &str, rest: &str) -> String {
        let ns = if ns.is_empty() {
            String::new()
        } else {
            format!(", namespace: {ns}")
        };
        format!("---\napiVersion: v1\nkind: {kind}\nmetadata: {{name: {name}{ns}}}\n{rest}\n")
    }

    pub(crate) fn cm(name: &str, rest: &str) -> String {
        source("ConfigMap", "shop", name, rest)
    }

    pub(crate) fn secret(name: &str, rest: &str) -> String {
        source("Secret", "shop", name, rest)
    }

    #[test]
    fn a_name_resolves_to_the_final_name_of_a_renamed_object() {
        let (config, catalog) = (Config::default(), Catalog::builtin());
        let input = cm("app", "data: {a: '1'}") + &secret("db", "data: {a: Yg==}");
        let tree = crate::yaml::parse(&input).unwrap();
        let mut renames = Renames::default();
        renames.add(CM, Some("shop"), "app", "app", "app-5t7tcg6b9h");
        let index = index_of(&tree, &config, &catalog, &renames);
        let resolver = Resolver {
            index: &index,
            renames: &renames,
        };
        for name in ["app", "app-5t7tcg6b9h", "app-ffffffffff"] {
            let found = resolver.find(CM, Some("shop"), name);
            assert_eq!(found.name, "app-5t7tcg6b9h", "{name}");
            assert_eq!(found.namespace.as_deref(), Some("shop"));
            assert_eq!(found.entry.map(|e| e.id.name()), Some("app"));
            assert_eq!(
                found.key(CM),
                SourceKey::new(CM, Some("shop"), "app-5t7tcg6b9h")
            );
        }
        let elsewhere = resolver.find(CM, Some("other"), "app");
        assert_eq!(
            (elsewhere.name.as_str(), elsewhere.entry.is_none()),
            ("app", true)
        );
        // The other kind: what a reference of this kind cannot read.
        assert_eq!(
            resolver.other_kind(CM, &Some("shop".into()), "db"),
            Some((SECRET, None))
        );
        assert_eq!(
            resolver.other_kind(SECRET, &Some("shop".into()), "db"),
            None
        );
        assert_eq!(resolver.other_kind(CM, &None, "db"), None);
        assert_eq!(
            resolver.other_kind(SourceKind::SecretProviderClass, &Some("shop".into()), "db"),
            None
        );
    }

    /// The one source of `input`, as pass 1 reads it.
    fn entry_of(input: &str) -> SourceEntry {
        let tree = crate::yaml::parse(input).unwrap();
        let item = tree.documents()[0].root();
        let id = ResourceId::of(&tree, item);
        let kind = SourceKind::from_kind(id.api_version(), id.kind()).unwrap();
        SourceEntry::read(&tree, item, id, kind)
    }

    #[test]
    fn a_source_is_read_with_its_marks_and_ignored_keys() {
        let plain = entry_of(&cm("a", "data: {k: v}"));
        assert!(!plain.ignored && plain.ignored_keys.is_empty() && !plain.hashed_name);
        assert!(plain.content.as_ref().unwrap().entries.contains_key("k"));
        for key in annotations::IGNORE {
            let marked = cm("a", "").replace(
                "name: a",
                &format!("name: a, annotations: {{{key}: 'true'}}"),
            );
            assert!(entry_of(&marked).ignored, "{key}");
            assert!(
                !entry_of(&marked.replace("'true'", "'false'")).ignored,
                "{key}"
            );
        }
        let keys = cm("a", "").replace(
            "name: a",
            "name: a, annotations: {config-hash.dev/ignore-keys: 'y, x'}",
        );
        assert_eq!(&*entry_of(&keys).ignored_keys, ["x", "y"]);
        let file = cm("a", "").replace(
            "name: a",
            "name: a, annotations: {config.kubernetes.io/path: f.yaml, config.kubernetes.io/index: '2'}",
        );
        let entry = entry_of(&file);
        let result = entry.result(Finding::Content(ContentError::NotAMap {
            field: "data".into(),
        }));
        assert_eq!(result.resource.as_ref(), Some(&entry.id));
        let at = result.file.as_ref().map(|f| (f.path(), f.index()));
        assert_eq!(at, Some(("f.yaml", Some("2"))));
        assert_eq!(entry.into_result(Finding::NoBaseName).file, result.file);
    }

    #[test]
    fn a_hashed_name_is_one_recorded_asked_for_or_kustomize_suffixed() {
        let hashed = |name: &str, annotations: &str| {
            let input = format!(
                "kind: ConfigMap\nmetadata: {{name: {name}, annotations: {{{annotations}}}}}\n"
            );
            let tree = crate::yaml::parse(&input).unwrap();
            hashed_name(&tree, tree.documents()[0].root(), name)
        };
        assert!(!hashed("app", ""));
        assert!(hashed("app", "config-hash.dev/base-name: app"));
        assert!(hashed("app", "config-hash.dev/name-suffix: 'true'"));
        assert!(!hashed("app", "config-hash.dev/name-suffix: 'false'"));
        assert!(hashed("app", "kustomize.config.k8s.io/needs-hash: 'true'"));
        assert!(!hashed(
            "app",
            "kustomize.config.k8s.io/needs-hash: 'false'"
        ));
        assert!(hashed("app-5t7tcg6b9h", ""));
    }

    #[test]
    fn a_renamed_source_is_reported_under_its_new_name() {
        let entry = entry_of(&cm("app", "data: {k: v}"));
        let renaming = Renaming {
            base: "app".into(),
            new_name: "app-5t7tcg6b9h".into(),
        };
        let r = entry.into_renamed_result(renaming, 3);
        assert_eq!(
            *r.finding,
            Finding::Renamed {
                base: "app".into(),
                references: 3
            }
        );
        let id = r.resource.unwrap();
        assert_eq!(
            (id.kind(), id.namespace(), id.name()),
            ("ConfigMap", Some("shop"), "app-5t7tcg6b9h")
        );
    }

    #[test]
    fn what_makes_a_source_is_named_unless_it_is_read_as_itself() {
        let (config, catalog) = (Config::default(), Catalog::builtin());
        let input = "apiVersion: bitnami.com/v1alpha1\nkind: SealedSecret\nmetadata: {name: s}\nspec: {encryptedData: {a: AgB1}}\n---\napiVersion: secrets-store.csi.x-k8s.io/v1\nkind: SecretProviderClass\nmetadata: {name: spc}\nspec: {provider: vault}\n".to_string()
            + &secret("plain", "data: {a: Yg==}");
        let tree = crate::yaml::parse(&input).unwrap();
        let index = index_of(&tree, &config, &catalog, &Renames::default());
        let made_by = |kind, name: &str| {
            let key = index
                .iter()
                .find(|(k, _)| k.kind == kind && k.name == name)
                .unwrap()
                .0;
            let (by, runtime) = index.get(key).unwrap().made_by(kind);
            (by.map(|id| format!("{}/{}", id.kind(), id.name())), runtime)
        };
        assert_eq!(made_by(SECRET, "s"), (Some("SealedSecret/s".into()), false));
        assert_eq!(
            made_by(SourceKind::SecretProviderClass, "spc"),
            (None, true)
        );
        assert_eq!(made_by(SECRET, "plain"), (None, false));
    }

    #[test]
    fn the_index_refuses_a_second_object_of_one_identity() {
        let mut index = SourceIndex::default();
        let key = SourceKey::new(CM, Some("shop"), "a");
        index
            .insert(key.clone(), Box::new(entry_of(&cm("a", "data: {k: '1'}"))))
            .unwrap();
        let second = index
            .insert(key.clone(), Box::new(entry_of(&cm("a", "data: {k: '2'}"))))
            .unwrap_err();
        assert_eq!(
            *second.finding,
            Finding::Duplicate {
                made_by: None,
                other_made_by: None
            }
        );
        assert_eq!(second.resource.as_ref().map(ResourceId::name), Some("a"));
        let kept = index.get(&key).unwrap().content.as_ref().unwrap();
        assert_eq!(kept.entries.get("k").map(|(_, v)| v), Some(&b"1"[..]));
        assert_eq!(index.iter().count(), 1);
    }

    #[test]
    fn the_namespaces_of_a_name_follow_input_order_as_entries_come_and_go() {
        let mut index = SourceIndex::default();
        let add = |index: &mut SourceIndex, ns: &str, name: &str| {
            let input = source("Secret", ns, name, "data: {a: Yg==}");
            let key = SourceKey::new(SECRET, (!ns.is_empty()).then_some(ns), name);
            index.insert(key, Box::new(entry_of(&input))).unwrap();
        };
        let namespaces = |index: &SourceIndex, kind| -> Vec<Option<String>> {
            index.namespaces_of(kind, "x").cloned().collect()
        };
        for ns in ["z", "", "a", "m"] {
            add(&mut index, ns, "x");
        }
        add(&mut index, "b", "y");
        let ns = |n: &str| Some(n.to_string());
        assert_eq!(
            namespaces(&index, SECRET),
            [ns("z"), None, ns("a"), ns("m")]
        );
        assert_eq!(namespaces(&index, CM), []);
        // What is added or taken after a look-up counts in the next.
        add(&mut index, "c", "x");
        assert_eq!(
            namespaces(&index, SECRET),
            [ns("z"), None, ns("a"), ns("m"), ns("c")]
        );
        let taken = index.take(&SourceKey::new(SECRET, Some("a"), "x")).unwrap();
        assert_eq!(taken.id.namespace(), Some("a"));
        assert_eq!(
            namespaces(&index, SECRET),
            [ns("z"), None, ns("m"), ns("c")]
        );
        assert!(
            index
                .take(&SourceKey::new(SECRET, Some("a"), "x"))
                .is_none()
        );
    }

    #[test]
    fn the_index_knows_whether_any_source_ignores_keys_and_which_cannot_be_read() {
        let mut index = SourceIndex::default();
        index
            .insert(
                SourceKey::new(CM, Some("shop"), "a"),
                Box::new(entry_of(&cm("a", "data: {k: v}"))),
            )
            .unwrap();
        let bad = SourceKey::new(SECRET, Some("shop"), "bad");
        index
            .insert(
                bad.clone(),
                Box::new(entry_of(&secret("bad", "data: {k: '%%%'}"))),
            )
            .unwrap();
        assert!(!index.any_ignored_keys());
        let unreadable = index.unreadable();
        assert_eq!(unreadable.keys().collect::<Vec<_>>(), [&bad]);
        assert!(matches!(
            *unreadable[&bad].finding,
            Finding::Content(ContentError::BadBase64 { .. })
        ));
        assert_eq!(
            unreadable[&bad].resource.as_ref().map(ResourceId::name),
            Some("bad")
        );
        let keys = cm("b", "").replace(
            "name: b",
            "name: b, annotations: {config-hash.dev/ignore-keys: k}",
        );
        index
            .insert(
                SourceKey::new(CM, Some("shop"), "b"),
                Box::new(entry_of(&keys)),
            )
            .unwrap();
        assert!(index.any_ignored_keys());
        // Once any has, the index keeps saying so.
        index
            .insert(
                SourceKey::new(CM, Some("shop"), "c"),
                Box::new(entry_of(&cm("c", ""))),
            )
            .unwrap();
        assert!(index.any_ignored_keys());
    }
}
