//! Kustomize-compatible hashed names for ConfigMaps and Secrets, decided: each name from
//! the object's base name and content (or refused, with why), and which names a
//! reference may use for each renamed object. The edits that write them are
//! [`crate::edit::rename`]'s.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use crate::model::catalog::SourceKind;
use crate::model::catalog::{self, annotations};
use crate::model::config::Config;
use crate::model::findings::Finding;
use crate::model::go_value::{self, GoValue};
use crate::model::lengths::Lengths;
use crate::model::name_hash::{
    self, ConfigKind, HashField, HashInput, HashScalar, MAX_NAME_LEN, SUFFIX_LEN, Unhashable,
};
use crate::model::resource::{ResourceId, annotation, flag};
use crate::model::result::KrmResult;
use crate::read::references::push_decimal;
use crate::yaml::{Kind, NodeId, Style, Tree};

/// Kind, namespace and name as one string, so that a key is one allocation (a large
/// input holds a few per renamed object). The namespace is length-prefixed: no two
/// triples share a key.
type Key = Box<str>;

fn key(kind: SourceKind, ns: Option<&str>, name: &str) -> String {
    // Exactly its length: the tables keep keys as boxed strings, and a key with spare
    // room would be copied to drop it.
    let len = match ns {
        Some(ns) => 1 + ns.len().checked_ilog10().map_or(1, |d| d as usize + 1) + 1 + ns.len(),
        None => 2,
    };
    let mut k = String::with_capacity(len + name.len());
    k.push(kind_letter(kind));
    match ns {
        Some(ns) => {
            // Every reference a rename pass reads builds keys: no `write!` here.
            push_decimal(&mut k, ns.len());
            k.push(':');
            k.push_str(ns);
        }
        None => k.push('-'),
    }
    k.push_str(name);
    k
}

/// A key's first character: the only part of it that names the kind.
fn kind_letter(kind: SourceKind) -> char {
    match kind {
        SourceKind::ConfigMap => 'c',
        SourceKind::Secret => 's',
        SourceKind::SecretProviderClass => 'p',
    }
}

/// Which names a reference may use for each renamed object, and its final name.
#[derive(Debug, Default)]
pub struct Renames {
    /// The final names, in the order the objects were renamed (input order).
    finals: Vec<String>,
    /// Every name a reference may use (base, current) -> index into `finals`.
    names: HashMap<Key, u32>,
    /// Base names, to recognise any earlier suffixed name `base-xxxxxxxxxx`.
    bases: HashMap<Key, u32>,
    /// The lengths of the names in `names`: the old-name warning asks about every string
    /// of every object, and most strings have a length no renamed object's name has,
    /// ruled out without a key.
    name_lengths: Lengths,
    /// Objects in the input, which are never taken for an earlier suffixed name.
    existing: HashSet<Key>,
    /// Names a later object took over in `names` (one namespace, one kind): what the
    /// any-namespace table still counts for the earlier object. Rare.
    shadowed: Vec<(Key, u32)>,
    /// Objects kustomize renames after this run (its generators' output): references
    /// resolve to the name it will give, and are left for kustomize to rewrite.
    after_build: HashSet<u32>,
    /// What names resolve to from cluster-scoped objects, built from `names` on the
    /// first such look-up (pass 2 runs on several threads, hence a `OnceLock`), and only
    /// then: few inputs have such references, and the table copies every name.
    anywhere: OnceLock<AnyIndex>,
}

/// Every name a reference may use, in any namespace (kind and name, [`any_key`]) -> the
/// renamed object, for references from cluster-scoped objects (a ClusterRole's
/// `resourceNames`); `None` when objects of several namespaces take different names.
#[derive(Debug, Default)]
struct AnyIndex {
    by_name: HashMap<Key, Option<u32>>,
    /// The namespace of each renamed object, by [`RenameId`].
    spaces: Vec<Option<String>>,
}

/// A [`key`]'s namespace and the name after it (the kind letter first).
fn namespace_and_name(key: &str) -> (Option<&str>, &str) {
    let rest = &key[1..];
    if let Some(name) = rest.strip_prefix('-') {
        return (None, name);
    }
    let (len, rest) = rest.split_once(':').unwrap_or(("0", rest));
    let len: usize = len.parse().unwrap_or(0);
    (Some(&rest[..len]), &rest[len..])
}

/// A name as a cluster-scoped object names it, in any namespace: [`key`]'s kind letter,
/// then `*`, which no namespace prefix of [`key`] starts with.
fn any_key(kind: SourceKind, name: &str) -> String {
    let mut k = key(kind, None, name);
    k.replace_range(1..2, "*");
    k
}

/// What a name used in any namespace resolves to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AnyNamespace {
    /// No renamed object has that name.
    None,
    /// One renamed object (or several taking the same final name).
    One(RenameId),
    /// Renamed objects of several namespaces take different names: kustomize refuses
    /// such a reference, and it is left as written.
    Ambiguous,
}

/// A renamed object: an index into [`Renames`]' final names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RenameId(u32);

impl Renames {
    /// The name `name` resolves to after renaming, if it names a renamed object.
    pub fn final_name(&self, kind: SourceKind, ns: Option<&str>, name: &str) -> Option<&str> {
        self.resolve(kind, ns, name).map(|r| self.final_of(r))
    }

    /// The renamed object `name` resolves to, if any.
    pub fn resolve(&self, kind: SourceKind, ns: Option<&str>, name: &str) -> Option<RenameId> {
        if self.names.is_empty() {
            return None;
        }
        let k = key(kind, ns, name);
        if let Some(&i) = self.names.get(k.as_str()) {
            return Some(RenameId(i));
        }
        if self.existing.contains(k.as_str()) {
            return None;
        }
        let (base, suffix) = name.rsplit_once('-')?;
        if suffix.len() != SUFFIX_LEN || !suffix.bytes().all(|b| b"2456789bcdfghkmt".contains(&b)) {
            return None;
        }
        self.bases
            .get(key(kind, ns, base).as_str())
            .map(|&i| RenameId(i))
    }

    /// The renamed object `name` resolves to in any namespace (from a cluster-scoped
    /// referrer): a base or current name, or an earlier suffixed name of a base.
    pub fn resolve_any(&self, kind: SourceKind, name: &str) -> AnyNamespace {
        if self.names.is_empty() {
            return AnyNamespace::None;
        }
        let anywhere = self.anywhere();
        let look = |n: &str| match anywhere.by_name.get(any_key(kind, n).as_str()) {
            None => AnyNamespace::None,
            Some(Some(i)) => AnyNamespace::One(RenameId(*i)),
            Some(None) => AnyNamespace::Ambiguous,
        };
        match look(name) {
            AnyNamespace::None => {}
            found => return found,
        }
        match name.rsplit_once('-') {
            Some((base, suffix))
                if suffix.len() == SUFFIX_LEN
                    && suffix.bytes().all(|b| b"2456789bcdfghkmt".contains(&b)) =>
            {
                look(base)
            }
            _ => AnyNamespace::None,
        }
    }

    /// The any-namespace table, built on first use from every name a reference may use
    /// (`names`, and the names later objects took over there). A name of several renamed
    /// objects is theirs when all take one final name (the first added stands for
    /// them), and ambiguous otherwise, whichever order the names are visited in.
    fn anywhere(&self) -> &AnyIndex {
        self.anywhere.get_or_init(|| {
            let mut any = AnyIndex {
                by_name: HashMap::with_capacity(self.names.len()),
                spaces: vec![None; self.finals.len()],
            };
            let all = self.names.iter().map(|(k, &i)| (k, i));
            for (k, i) in all.chain(self.shadowed.iter().map(|(k, i)| (k, *i))) {
                let (ns, name) = namespace_and_name(k);
                if let Some(ns) = ns {
                    any.spaces[i as usize] = Some(ns.to_string());
                }
                let kind = &k[..1];
                let slot = any
                    .by_name
                    .entry(format!("{kind}*{name}").into_boxed_str())
                    .or_insert(Some(i));
                *slot = match *slot {
                    Some(j) if self.finals[j as usize] == self.finals[i as usize] => Some(j.min(i)),
                    _ => None,
                };
            }
            any
        })
    }

    /// The namespace of a renamed object.
    pub fn namespace_of(&self, r: RenameId) -> &Option<String> {
        &self.anywhere().spaces[r.0 as usize]
    }

    /// The final name of a renamed object.
    pub fn final_of(&self, r: RenameId) -> &str {
        &self.finals[r.0 as usize]
    }

    /// How many objects are renamed; [`RenameId`]s count from 0 in the order added.
    pub fn len(&self) -> usize {
        self.finals.len()
    }

    /// The position of a renamed object in the order added.
    pub fn position(r: RenameId) -> usize {
        r.0 as usize
    }

    /// The final name of the object last renamed from `old` (its base or its name) in
    /// namespace `ns`, of either kind: what the old-name warning looks for.
    pub fn renamed_from(&self, ns: Option<&str>, old: &str) -> Option<&str> {
        if !self.name_lengths.may_hold(old.as_bytes()) {
            return None;
        }
        // One key for both kinds: it differs only in its first character, the kind's.
        let mut k = key(SourceKind::ConfigMap, ns, old);
        let config_map = self.names.get(k.as_str()).copied();
        k.replace_range(
            ..1,
            kind_letter(SourceKind::Secret).encode_utf8(&mut [0; 4]),
        );
        let secret = self.names.get(k.as_str()).copied();
        let i = match (config_map, secret) {
            (Some(a), Some(b)) => a.max(b),
            (a, b) => a.or(b)?,
        };
        // kustomize rewrites what it renames in its own fields; config-hash asks nothing.
        if self.after_build.contains(&i) {
            return None;
        }
        Some(&self.finals[i as usize])
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Makes room for `n` more renamed objects.
    pub fn reserve(&mut self, n: usize) {
        self.finals.reserve(n);
        // A base name and a name each, most often one and the same.
        self.names.reserve(n);
        self.bases.reserve(n);
    }

    /// Makes room for `n` more objects of the input (see [`Renames::add_existing`]).
    pub fn reserve_existing(&mut self, n: usize) {
        self.existing.reserve(n);
    }

    /// Records a ConfigMap or Secret of the input (needed only when something is
    /// renamed).
    pub fn add_existing(&mut self, kind: SourceKind, ns: Option<&str>, name: &str) {
        self.existing.insert(key(kind, ns, name).into_boxed_str());
    }

    /// Records that kustomize will name the object `name` `new_name` after this run:
    /// references resolve to that name, but are not rewritten (kustomize does it).
    pub fn add_after_build(
        &mut self,
        kind: SourceKind,
        ns: Option<&str>,
        name: &str,
        new_name: &str,
    ) {
        self.after_build
            .insert(u32::try_from(self.finals.len()).unwrap_or(u32::MAX));
        self.add(kind, ns, name, name, new_name);
    }

    /// Whether kustomize, not this run, renames the object.
    pub fn renamed_after_build(&self, r: RenameId) -> bool {
        self.after_build.contains(&r.0)
    }

    /// Records that the object `name` (base name `base`) becomes `new_name`.
    pub fn add(
        &mut self,
        kind: SourceKind,
        ns: Option<&str>,
        name: &str,
        base: &str,
        new_name: &str,
    ) {
        let i = u32::try_from(self.finals.len()).unwrap_or(u32::MAX);
        self.finals.push(new_name.to_string());
        let base_key: Key = key(kind, ns, base).into_boxed_str();
        for n in [base, name] {
            self.name_lengths.insert(n.as_bytes());
        }
        for k in [base_key.clone(), key(kind, ns, name).into_boxed_str()] {
            match self.names.entry(k) {
                Entry::Vacant(e) => {
                    e.insert(i);
                }
                Entry::Occupied(mut e) => {
                    let j = e.insert(i);
                    if j != i {
                        self.shadowed.push((e.key().clone(), j));
                    }
                }
            }
        }
        self.bases.insert(base_key, i);
        self.anywhere.take();
    }
}

/// What renaming does with one ConfigMap or Secret.
#[derive(Debug)]
pub enum Decision {
    /// Not opted in.
    Keep,
    /// Made by a kustomize generator: kustomize suffixes it itself, after this run,
    /// giving it `name_after_build`. `opted_in`: renaming was asked for (and is left to
    /// kustomize), which a result says.
    Generated {
        name_after_build: String,
        opted_in: bool,
    },
    Rename(Box<Renaming>),
    /// Opted in, but cannot be renamed: an error result.
    Refused(Box<KrmResult>),
}

/// A hashed name chosen for an object.
#[derive(Debug, Clone)]
pub struct Renaming {
    pub base: String,
    pub new_name: String,
}

/// Decides whether the object gets a hashed name, and which.
pub fn decide(
    tree: &Tree<'_>,
    item: NodeId,
    id: &ResourceId,
    kind: SourceKind,
    config: &Config,
) -> Decision {
    let opted_in = match annotation(tree, item, annotations::NAME_SUFFIX) {
        Some("false") => false,
        Some("true") => true,
        _ => config.name_suffix || flag(tree, item, annotations::NEEDS_HASH),
    };
    // kustomize suffixes what its generators made after every transformer, this one
    // included: the name it will give is what pods will read, so it is what the hash
    // covers (the build's output then passes --check).
    // kustomize's suffix for the content, or the refusal that says why there is none.
    let suffix = || {
        hash_input(tree, item, kind)
            .map(|input| name_hash::kustomize_suffix(&input))
            .map_err(|(field, why)| {
                Decision::Refused(Box::new(
                    KrmResult::new(Finding::Unhashable {
                        field: field.clone(),
                        why,
                    })
                    .about(tree, item)
                    .at_field(field),
                ))
            })
    };
    if annotation(tree, item, annotations::KUSTOMIZE_GENERATED) == Some("enabled") {
        let suffix = match suffix() {
            Ok(suffix) => suffix,
            Err(refused) => return refused,
        };
        return Decision::Generated {
            name_after_build: format!("{}-{suffix}", id.name()),
            opted_in,
        };
    }
    if !opted_in || named_by_kubernetes(tree, item, kind) {
        return Decision::Keep;
    }
    let refuse = |finding: Finding| {
        Decision::Refused(Box::new(
            KrmResult::new(finding)
                .about(tree, item)
                .at_field("metadata.name"),
        ))
    };
    let name_node = tree.get_path(item, &["metadata", "name"]);
    if name_node.is_none_or(|n| tree.str(n).is_none_or(str::is_empty)) {
        return refuse(Finding::NoBaseName);
    }
    if let Some(reads_as) = name_node.and_then(|n| not_a_string(tree, n)) {
        let written = tree
            .str(name_node.unwrap_or(item))
            .unwrap_or("")
            .to_string();
        return refuse(Finding::NameNotAString { written, reads_as });
    }
    // A line break (a `|` block scalar keeps its last one) or other blank or control
    // character: the API server refuses the name, suffixed or not.
    if id
        .name()
        .chars()
        .any(|c| c.is_whitespace() || c.is_control())
    {
        return refuse(Finding::NameWithBlanks);
    }
    let suffix = match suffix() {
        Ok(suffix) => suffix,
        Err(refused) => return refused,
    };
    // A name that already ends in the suffix its content gives (kustomize's own output)
    // is suffixed already: its base is the name without it, so suffixes never stack.
    let base = match annotation(tree, item, annotations::BASE_NAME) {
        Some(base) => base.to_string(),
        None => id
            .name()
            .strip_suffix(&suffix)
            .and_then(|rest| rest.strip_suffix('-'))
            .filter(|rest| !rest.is_empty())
            .unwrap_or(id.name())
            .to_string(),
    };
    if base.is_empty() {
        return refuse(Finding::EmptyBaseName);
    }
    let new_name = format!("{base}-{suffix}");
    if new_name.len() > MAX_NAME_LEN {
        return refuse(Finding::SuffixedNameTooLong { new_name });
    }
    Decision::Rename(Box::new(Renaming { base, new_name }))
}

/// A Secret of a type Kubernetes finds by exact name (a bootstrap token, a service
/// account token): renaming it would break it, so it keeps its name, asked or not.
fn named_by_kubernetes(tree: &Tree<'_>, item: NodeId, kind: SourceKind) -> bool {
    kind == SourceKind::Secret
        && tree
            .get(item, "type")
            .and_then(|t| tree.str(t))
            .is_some_and(|t| catalog::NAMED_BY_KUBERNETES.contains(&t))
}

/// The suffix kustomize's name hash gives the object's content (what `--name-suffix`
/// and kustomize's generators append to its base name), or `None` when its content has
/// no such hash (a nested value, a tag kustomize cannot decode). What tells an object
/// whose name is its base name plus the hash of its own content, a version, from one that
/// only looks like it.
pub fn content_suffix(tree: &Tree<'_>, item: NodeId, kind: SourceKind) -> Option<String> {
    hash_input(tree, item, kind)
        .ok()
        .map(|input| name_hash::kustomize_suffix(&input))
}

/// What a plain scalar every YAML reader takes for a null, a number or a boolean reads
/// as (`~`, `null`, `42`, `1.5`, `true`): not a string, so not a name. Only spellings
/// YAML 1.1 and 1.2 agree on; a name such as `0x1f` or `yes` is left to the API server.
pub fn not_a_string(tree: &Tree<'_>, node: NodeId) -> Option<&'static str> {
    if tree.is_null(node) {
        return Some("null");
    }
    let node = tree.resolve(node);
    if tree.kind(node) != Kind::Scalar(Style::Plain) || tree.tag(node).is_some() {
        return None;
    }
    let s = tree.str(node).unwrap_or("");
    let unsigned = s.strip_prefix(['-', '+']).unwrap_or(s);
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    let (mantissa, exponent) = match unsigned.split_once(['e', 'E']) {
        Some((m, e)) => (m, Some(e.strip_prefix(['-', '+']).unwrap_or(e))),
        None => (unsigned, None),
    };
    let float = match mantissa.split_once('.') {
        Some((int, frac)) => (int.is_empty() || digits(int)) && digits(frac),
        None => false,
    };
    if digits(unsigned) || (float && exponent.is_none_or(digits)) {
        Some("a number")
    } else if matches!(s, "true" | "True" | "TRUE" | "false" | "False" | "FALSE") {
        Some("a boolean")
    } else {
        None
    }
}

/// The object as kustomize's hasher reads it (its `getNodeValues`): each field is
/// looked up; a scalar is hashed as its text whatever YAML reads it as (`data: ~` is
/// `"~"`), a mapping as the JSON of the values go-yaml decodes, and a sequence as a
/// null. `Err` names the field (`data.KEY`) and why kustomize's hash is not given.
fn hash_input<'t>(
    tree: &'t Tree<'_>,
    item: NodeId,
    kind: SourceKind,
) -> Result<HashInput<'t>, (String, Unhashable)> {
    let field = |name: &str| -> Result<Option<HashField<'t>>, (String, Unhashable)> {
        let Some(node) = tree.get(item, name) else {
            return Ok(None);
        };
        if tree.is_seq(node) {
            return Ok(Some(HashField::Null));
        }
        if !tree.is_map(node) {
            return Ok(Some(HashField::Text(tree.str(node).unwrap_or(""))));
        }
        // A value left empty in a flow mapping (`{a: , b: x}`, `{a}`) is the empty
        // string to kustomize, where the same in a block mapping is a null: kubectl
        // kustomize hashes `""` for the one and `null` for the other.
        let flow = tree.is_flow(tree.resolve(node));
        let empty_in_flow = |v: NodeId| {
            let v = tree.resolve(v);
            flow && tree.kind(v) == Kind::Scalar(Style::Plain)
                && matches!(tree.tag(v), None | Some("!"))
                && tree.str(v) == Some("")
        };
        let mut pairs = Vec::new();
        for (k, v) in tree.entries(node) {
            let at = |why| (format!("{name}.{}", tree.str(k).unwrap_or("")), why);
            let key = match go_value(tree, k).map_err(at)? {
                GoValue::Str(key) => key,
                _ => return Err(at(Unhashable::KeyNotAString)),
            };
            if !tree.is_scalar(v) {
                return Err(at(Unhashable::Nested));
            }
            let value = if empty_in_flow(v) {
                HashScalar::Str("")
            } else {
                hash_scalar(go_value(tree, v).map_err(at)?).map_err(at)?
            };
            pairs.push((key, value));
        }
        Ok(Some(HashField::Map(pairs)))
    };
    // binaryData and stringData enter the JSON only as kustomize's Go map: a mapping,
    // or a sequence (which its decoder leaves a nil map).
    let optional = |name: &str| field(name).map(|f| f.filter(|f| !matches!(f, HashField::Text(_))));
    let text_if_absent = |f: Option<HashField<'t>>| f.unwrap_or(HashField::Text(""));
    Ok(match kind {
        SourceKind::ConfigMap => HashInput {
            kind: ConfigKind::ConfigMap,
            data: text_if_absent(field("data")?),
            binary_data: optional("binaryData")?,
            string_data: None,
            secret_type: HashField::Text(""),
        },
        // Only v1 ConfigMaps and Secrets are renamed.
        SourceKind::Secret | SourceKind::SecretProviderClass => HashInput {
            kind: ConfigKind::Secret,
            data: text_if_absent(field("data")?),
            binary_data: None,
            string_data: optional("stringData")?,
            secret_type: text_if_absent(field("type")?),
        },
    })
}

/// What go-yaml decodes the scalar `node` into (through aliases).
fn go_value<'t>(tree: &'t Tree<'_>, node: NodeId) -> Result<GoValue<'t>, Unhashable> {
    let node = tree.resolve(node);
    let plain = tree.kind(node) == Kind::Scalar(Style::Plain);
    go_value::decode(tree.str(node).unwrap_or(""), plain, tree.tag(node))
        .map_err(|tag| Unhashable::WrongTag(tag.0.to_string()))
}

/// A decoded value as kustomize's JSON holds it.
fn hash_scalar(value: GoValue<'_>) -> Result<HashScalar<'_>, Unhashable> {
    Ok(match value {
        GoValue::Null => HashScalar::Literal("null"),
        GoValue::Bool(true) => HashScalar::Literal("true"),
        GoValue::Bool(false) => HashScalar::Literal("false"),
        GoValue::Number(f) if f.is_finite() => HashScalar::Number(f),
        GoValue::Number(_) => return Err(Unhashable::NotFinite),
        GoValue::Date { year, month, day } => HashScalar::Date { year, month, day },
        GoValue::Timestamp => return Err(Unhashable::Timestamp),
        GoValue::Binary => return Err(Unhashable::Binary),
        GoValue::Str(s) => HashScalar::Str(s),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::resource::ResourceId;

    /// A key is made at its exact length: boxed into a table, it is not copied again.
    #[test]
    fn a_key_has_no_spare_room() {
        for len in [0, 1, 9, 10, 11, 99, 100, 253, 1000, 10_000] {
            let ns = "n".repeat(len);
            let k = key(SourceKind::ConfigMap, Some(&ns), "name");
            assert_eq!(k.capacity(), k.len(), "namespace of {len}");
        }
        let k = key(SourceKind::Secret, None, "name");
        assert_eq!(k.capacity(), k.len());
    }

    /// A key writes the namespace's length in decimal before it, so that no two
    /// (namespace, name) pairs share a key, at every number of digits.
    #[test]
    fn keys_prefix_the_namespace_with_its_length() {
        for len in [0, 1, 9, 10, 11, 99, 100, 253, 1000] {
            let ns = "n".repeat(len);
            assert_eq!(
                key(SourceKind::Secret, Some(&ns), "x"),
                format!("s{len}:{ns}x")
            );
        }
        assert_eq!(key(SourceKind::ConfigMap, None, "x"), "c-x");
        assert_ne!(
            key(SourceKind::ConfigMap, Some("a1"), "0:b"),
            key(SourceKind::ConfigMap, Some("a"), "10:b")
        );
    }

    /// The content's suffix is kustomize's (its own test vectors), whatever the object is
    /// named; content kustomize cannot hash has none.
    #[test]
    fn content_suffix_is_the_hash_of_the_content_alone() {
        let suffix = |src: &str, kind| {
            let tree = crate::yaml::parse(src).unwrap();
            content_suffix(&tree, tree.documents()[0].root(), kind)
        };
        assert_eq!(
            suffix(
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: any-name}\ndata: {A: \"1\", B: two}\n",
                SourceKind::ConfigMap
            )
            .as_deref(),
            Some("6b56fdfggc")
        );
        assert_eq!(
            suffix(
                "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ntype: my-type\n",
                SourceKind::Secret
            )
            .as_deref(),
            Some("5gmgkf8578")
        );
        assert_eq!(
            suffix(
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {A: {nested: x}}\n",
                SourceKind::ConfigMap
            ),
            None
        );
    }

    fn decision(item: &str, config: &Config) -> Decision {
        let tree = crate::yaml::parse(item).unwrap();
        let root = tree.documents()[0].root();
        let id = ResourceId::of(&tree, root);
        let kind =
            SourceKind::from_kind(id.api_version(), id.kind()).unwrap_or(SourceKind::ConfigMap);
        decide(&tree, root, &id, kind, config)
    }

    fn opted(name: &str, extra: &str) -> String {
        format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  annotations: {{config-hash.dev/name-suffix: 'true'{extra}}}\ndata: {{A: '1'}}\n"
        )
    }

    #[test]
    fn only_objects_that_opt_in_are_renamed_and_never_twice() {
        let config = Config::default();
        assert!(matches!(
            decision("kind: ConfigMap\nmetadata: {name: a}\n", &config),
            Decision::Keep
        ));
        let Decision::Rename(first) = decision(&opted("app", ""), &config) else {
            panic!("opted in")
        };
        assert_eq!(first.base, "app");
        assert!(first.new_name.starts_with("app-") && first.new_name.len() == 14);
        // The suffixed output, read again, keeps its name: suffixes never stack.
        let Decision::Rename(again) = decision(&opted(&first.new_name, ""), &config) else {
            panic!("opted in")
        };
        assert_eq!(
            (again.base.as_str(), again.new_name.as_str()),
            ("app", first.new_name.as_str())
        );
        // kustomize's generated objects are left to kustomize, which will give them the
        // name config-hash would, opted in or not.
        let generated = ", internal.config.kubernetes.io/needsHashSuffix: enabled";
        let Decision::Generated {
            name_after_build,
            opted_in: true,
        } = decision(&opted("app", generated), &config)
        else {
            panic!("generated, opted in")
        };
        assert_eq!(name_after_build, first.new_name);
        let not_opted =
            opted("app", generated).replace("config-hash.dev/name-suffix: 'true', ", "");
        assert!(matches!(
            decision(&not_opted, &Config::default()),
            Decision::Generated {
                opted_in: false,
                ..
            }
        ));
        assert!(matches!(
            decision(&opted("''", ""), &config),
            Decision::Refused(_)
        ));
    }

    /// The API server refuses a name with a blank or a control character, and one over
    /// 253 characters: such a name is refused here, before it is suffixed.
    #[test]
    fn a_name_the_api_server_refuses_is_not_suffixed() {
        let config = Config::default();
        let refused = |name: &str| match decision(&opted(name, ""), &config) {
            Decision::Refused(r) => Some(*r.finding),
            Decision::Rename(_) => None,
            other => panic!("{other:?}"),
        };
        for name in ["'a b'", "\"a\\tb\"", "\"a\\u0001b\""] {
            assert!(
                matches!(refused(name), Some(Finding::NameWithBlanks)),
                "{name}"
            );
        }
        // 253 characters with the suffix and its dash is the longest name.
        let longest = "a".repeat(MAX_NAME_LEN - SUFFIX_LEN - 1);
        assert!(refused(&longest).is_none());
        assert!(matches!(
            refused(&format!("{longest}a")),
            Some(Finding::SuffixedNameTooLong { new_name }) if new_name.len() == MAX_NAME_LEN + 1
        ));
    }

    #[test]
    fn references_resolve_base_current_and_earlier_suffixed_names() {
        let mut r = Renames::default();
        let ns = Some("shop".to_string());
        r.add(
            SourceKind::ConfigMap,
            ns.as_deref(),
            "app-old",
            "app",
            "app-5t7tcg6b9h",
        );
        r.add_existing(SourceKind::ConfigMap, ns.as_deref(), "app-2b4m8f9gh7");
        let cm = SourceKind::ConfigMap;
        assert_eq!(
            r.final_name(cm, ns.as_deref(), "app"),
            Some("app-5t7tcg6b9h")
        );
        assert_eq!(
            r.final_name(cm, ns.as_deref(), "app-old"),
            Some("app-5t7tcg6b9h")
        );
        // Any earlier suffix of the base, unless an object of that name is in the input.
        assert_eq!(
            r.final_name(cm, ns.as_deref(), "app-ffffffffff"),
            Some("app-5t7tcg6b9h")
        );
        assert_eq!(r.final_name(cm, ns.as_deref(), "app-2b4m8f9gh7"), None);
        assert_eq!(
            r.final_name(cm, ns.as_deref(), "app-aaaaaaaaaa"),
            None,
            "not the suffix alphabet"
        );
        assert_eq!(r.final_name(SourceKind::Secret, ns.as_deref(), "app"), None);
        assert_eq!(r.final_name(cm, None, "app"), None);
    }

    #[test]
    fn a_name_from_any_namespace_resolves_only_when_every_namespace_agrees() {
        let cm = SourceKind::ConfigMap;
        let ns = |n: &str| Some(n.to_string());
        let mut r = Renames::default();
        r.add(cm, ns("a").as_deref(), "x", "x", "x-5t7tcg6b9h");
        let AnyNamespace::One(one) = r.resolve_any(cm, "x") else {
            panic!("one object named x");
        };
        assert_eq!(
            (r.final_of(one), r.namespace_of(one)),
            ("x-5t7tcg6b9h", &ns("a"))
        );
        // An earlier suffixed name of the base, as in a namespace.
        assert_eq!(r.resolve_any(cm, "x-ffffffffff"), AnyNamespace::One(one));
        // Not a suffix kustomize writes: another alphabet, or another length.
        assert_eq!(r.resolve_any(cm, "x-aaaaaaaaaa"), AnyNamespace::None);
        assert_eq!(r.resolve_any(cm, "x-fffffffff"), AnyNamespace::None);
        assert_eq!(r.resolve_any(SourceKind::Secret, "x"), AnyNamespace::None);
        // The same final name in another namespace: still one name to write.
        r.add(cm, ns("b").as_deref(), "x", "x", "x-5t7tcg6b9h");
        assert_eq!(
            r.resolve_any(cm, "x"),
            AnyNamespace::One(one),
            "the first stands"
        );
        // A different one: which is meant is not known.
        r.add(cm, ns("c").as_deref(), "x", "x", "x-2b4m8f9gh7");
        assert_eq!(r.resolve_any(cm, "x"), AnyNamespace::Ambiguous);
        assert_eq!(r.resolve_any(cm, "x-ffffffffff"), AnyNamespace::Ambiguous);
        assert_eq!(r.resolve_any(cm, "y"), AnyNamespace::None);
    }

    #[test]
    fn a_name_a_later_object_took_over_in_one_namespace_still_counts_from_any_namespace() {
        let cm = SourceKind::ConfigMap;
        let ns = |n: &str| Some(n.to_string());
        let mut r = Renames::default();
        // Two objects of one namespace under one base name: the second takes the base
        // over in that namespace's names, and the first still has it everywhere.
        r.add(cm, ns("a:b").as_deref(), "x", "x", "x-5t7tcg6b9h");
        r.add(cm, ns("a:b").as_deref(), "x-old", "x", "x-2b4m8f9gh7");
        assert_eq!(r.resolve_any(cm, "x"), AnyNamespace::Ambiguous);
        let AnyNamespace::One(old) = r.resolve_any(cm, "x-old") else {
            panic!("one object named x-old");
        };
        assert_eq!(
            (r.final_of(old), r.namespace_of(old)),
            ("x-2b4m8f9gh7", &ns("a:b"))
        );
        // Added after the table was first read, and in no namespace.
        r.add(cm, None, "y", "y", "y-5t7tcg6b9h");
        let AnyNamespace::One(y) = r.resolve_any(cm, "y") else {
            panic!("one object named y");
        };
        assert_eq!(r.namespace_of(y), &None);
        // The same two the other way round: the one named by its base comes second.
        let mut r = Renames::default();
        r.add(cm, ns("a:b").as_deref(), "z-old", "z", "z-2b4m8f9gh7");
        r.add(cm, ns("a:b").as_deref(), "z", "z", "z-5t7tcg6b9h");
        assert_eq!(r.resolve_any(cm, "z"), AnyNamespace::Ambiguous);
    }

    #[test]
    fn what_kustomize_renames_after_the_run_resolves_but_is_neither_rewritten_nor_asked_about() {
        let (cm, ns) = (SourceKind::ConfigMap, Some("a".to_string()));
        let mut r = Renames::default();
        r.add_after_build(cm, ns.as_deref(), "gen", "gen-5t7tcg6b9h");
        r.add(cm, ns.as_deref(), "own", "own", "own-2b4m8f9gh7");
        let generated = r.resolve(cm, ns.as_deref(), "gen").expect("resolves");
        assert_eq!(r.final_of(generated), "gen-5t7tcg6b9h");
        assert!(r.renamed_after_build(generated));
        assert!(!r.renamed_after_build(r.resolve(cm, ns.as_deref(), "own").expect("resolves")));
        assert_eq!(r.renamed_from(ns.as_deref(), "gen"), None);
        assert_eq!(r.renamed_from(ns.as_deref(), "own"), Some("own-2b4m8f9gh7"));
    }

    /// The old-name warning looks among both kinds, in the namespace asked about, and
    /// takes the object renamed last when a ConfigMap and a Secret share the old name.
    #[test]
    fn an_old_name_is_found_among_config_maps_and_secrets_of_its_namespace() {
        let (cm, secret) = (SourceKind::ConfigMap, SourceKind::Secret);
        let mut r = Renames::default();
        r.add(secret, Some("a"), "db", "db", "db-2b4m8f9gh7");
        r.add(cm, Some("a"), "app", "app", "app-5t7tcg6b9h");
        assert_eq!(r.renamed_from(Some("a"), "db"), Some("db-2b4m8f9gh7"));
        assert_eq!(r.renamed_from(Some("a"), "app"), Some("app-5t7tcg6b9h"));
        assert_eq!(r.renamed_from(Some("b"), "db"), None);
        assert_eq!(r.renamed_from(None, "db"), None);
        r.add(cm, Some("a"), "db", "db", "db-7c9fk8d5m2");
        assert_eq!(r.renamed_from(Some("a"), "db"), Some("db-7c9fk8d5m2"));
    }

    /// The old-name warning rules out a string by its length before any look-up: a
    /// name of every length is still found, its own name and its base alike, at the
    /// edges of the length table and past its end (every length from 255 up shares a
    /// bit).
    #[test]
    fn an_old_name_of_any_length_is_found() {
        let cm = SourceKind::ConfigMap;
        let mut r = Renames::default();
        for len in [1, 63, 64, 127, 128, 254, 255, 256, 300] {
            let name = "n".repeat(len);
            let base = format!("b{}", "m".repeat(len));
            r.add(cm, None, &name, &base, "new");
            assert_eq!(r.renamed_from(None, &name), Some("new"), "{len}");
            assert_eq!(r.renamed_from(None, &base), Some("new"), "{len}");
        }
        // Same lengths, other names; and lengths no name has.
        for len in [1, 64, 255, 301, 2, 62, 65, 253] {
            assert_eq!(r.renamed_from(None, &"x".repeat(len)), None, "{len}");
        }
    }

    /// The name `decide` gives `body` (top-level fields of `kind` `app`): for an object
    /// kustomize generated, the name after its build; for one marked
    /// `kustomize.config.k8s.io/needs-hash`, the new name; or the refusal.
    fn suffixed(kind: &str, body: &str, generated: bool) -> Result<String, String> {
        let annotation = if generated {
            "internal.config.kubernetes.io/needsHashSuffix: enabled"
        } else {
            "kustomize.config.k8s.io/needs-hash: \"true\""
        };
        let item = format!(
            "apiVersion: v1\nkind: {kind}\nmetadata:\n  name: app\n  annotations: {{{annotation}}}\n{body}\n"
        );
        match decision(&item, &Config::default()) {
            Decision::Generated {
                name_after_build, ..
            } if generated => Ok(name_after_build),
            Decision::Rename(r) if !generated => Ok(r.new_name),
            Decision::Refused(result) => Err(result.message()),
            other => panic!("{body}: {other:?}"),
        }
    }

    /// kustomize hashes each field as its hasher looks it up: absent as "", a scalar as
    /// its text (so `data: ~` is "~" and `data: ""` is "", not a map), a sequence as
    /// null, a mapping as the JSON of the values go-yaml decodes (numbers through a Go
    /// float64: `0x1f` is 31, `017` is 15, `1e3` is 1000, 2^53+1 rounds). Every suffix is
    /// `kubectl kustomize`'s (kustomize v5.5) for the same object marked
    /// `needsHashSuffix: enabled`.
    #[test]
    fn values_hash_as_kustomize_decodes_them() {
        for (kind, body, suffix) in [
            ("ConfigMap", "data: {a: 42}", "cf96c562hm"),
            ("ConfigMap", "data: {a: '42'}", "fb4b7h56mb"),
            ("ConfigMap", "data: {a: !!str 42}", "fb4b7h56mb"),
            ("ConfigMap", "data: {a: !foo 42}", "fb4b7h56mb"),
            ("ConfigMap", "data: {a: !!int \"42\"}", "cf96c562hm"),
            ("ConfigMap", "data: {a: ! 42}", "cf96c562hm"),
            ("ConfigMap", "data: {a: 0}", "29927966c9"),
            ("ConfigMap", "data: {a: -0}", "29927966c9"),
            ("ConfigMap", "data: {a: -0.0}", "7749k5fdf5"),
            ("ConfigMap", "data: {a: -12}", "c46gfb7ffg"),
            ("ConfigMap", "data: {a: 007}", "cc467ghbf8"),
            ("ConfigMap", "data: {a: 017}", "mtff9d79k2"),
            ("ConfigMap", "data: {a: 0o17}", "mtff9d79k2"),
            ("ConfigMap", "data: {a: 08}", "d4mgm7k8md"),
            ("ConfigMap", "data: {a: +12}", "t9cg9bfc6d"),
            ("ConfigMap", "data: {a: 0x1f}", "mdg69966bd"),
            ("ConfigMap", "data: {a: 0b101}", "2697c5hgf7"),
            ("ConfigMap", "data: {a: -0b101}", "cgtkkhtm2c"),
            ("ConfigMap", "data: {a: 1_000}", "7fm76mh897"),
            ("ConfigMap", "data: {a: 1e3}", "7fm76mh897"),
            ("ConfigMap", "data: {a: 1.0}", "k4gtc79h2d"),
            ("ConfigMap", "data: {a: !!float 1}", "k4gtc79h2d"),
            ("ConfigMap", "data: {a: 1.5}", "67k9b4d92m"),
            ("ConfigMap", "data: {a: .5}", "67bm5d5f7c"),
            ("ConfigMap", "data: {a: -.5}", "6hm8256745"),
            ("ConfigMap", "data: {a: 12345678901234567890}", "dh7mmbb2gd"),
            ("ConfigMap", "data: {a: 9007199254740993}", "c928bgkgm4"),
            ("ConfigMap", "data: {a: -9223372036854775809}", "t6b4t64gc7"),
            (
                "ConfigMap",
                "data: {a: 123456789012345678901234}",
                "b9hgbf77d4",
            ),
            ("ConfigMap", "data: {a: 1e21}", "5gc6c64ch5"),
            ("ConfigMap", "data: {a: 1e-7}", "h72gfkh8gd"),
            ("ConfigMap", "data: {a: 0.000001}", "fb2kktch8f"),
            ("ConfigMap", "data: {a: 1e400}", "bh6t7b78gt"),
            ("ConfigMap", "data: {a: 2001-12-14}", "6tbt6t4g8h"),
            ("ConfigMap", "data: {a: 2001-1-2}", "9mmd9g7gkg"),
            ("ConfigMap", "data: {a: 2001-02-30}", "22mfc6mb28"),
            ("ConfigMap", "data: {a: true}", "ftfh5btkh4"),
            ("ConfigMap", "data: {a: TRUE}", "ftfh5btkh4"),
            ("ConfigMap", "data: {a: ~}", "4cgfc4mg84"),
            ("ConfigMap", "data:\n  d:\n  e: x", "8dbfg4hgmc"),
            ("ConfigMap", "data: {d: , e: x}", "94586595gf"),
            ("ConfigMap", "data: {d, e: x}", "94586595gf"),
            ("ConfigMap", "data: {d: ! , e: x}", "94586595gf"),
            ("ConfigMap", "data: {d: !!null , e: x}", "8dbfg4hgmc"),
            (
                "ConfigMap",
                "x: &m {d: , e: x}\ndata:\n  <<: *m",
                "8dbfg4hgmc",
            ),
            ("ConfigMap", "data: {a: NULL}", "4cgfc4mg84"),
            ("ConfigMap", "data: {a: yes}", "gch8tgd8kh"),
            ("ConfigMap", "data: {a: on}", "h2kkd85h78"),
            ("ConfigMap", "data: {a: b}", "4h2mbtbbt6"),
            ("ConfigMap", "data: {a: 1, <<: {b: 2}}", "b2992f2677"),
            ("ConfigMap", "x: &m {a: 1}\ndata: *m", "k4gtc79h2d"),
            ("ConfigMap", "data: {a: b}\nbinaryData: {}", "h477bbfc2m"),
            ("ConfigMap", "data: {a: b}\nbinaryData: ~", "4h2mbtbbt6"),
            ("ConfigMap", "data: {a: b}\nbinaryData: x", "4h2mbtbbt6"),
            ("ConfigMap", "data: {a: b}\nbinaryData: [a]", "7tfgmmmf4f"),
            ("ConfigMap", "data: {}", "42745tchd9"),
            ("ConfigMap", "", "6ct58987ht"),
            ("ConfigMap", "data:", "6ct58987ht"),
            ("ConfigMap", "data: \"\"", "6ct58987ht"),
            ("ConfigMap", "data: ~", "2t8tf57kh6"),
            ("ConfigMap", "data: \"~\"", "2t8tf57kh6"),
            ("ConfigMap", "data: !!null ~", "2t8tf57kh6"),
            ("ConfigMap", "data: null", "g886t7dd28"),
            ("ConfigMap", "data: NULL", "tccc94fmh5"),
            ("ConfigMap", "data: abc", "c6597bhf7m"),
            ("ConfigMap", "x: &s abc\ndata: *s", "c6597bhf7m"),
            ("ConfigMap", "data: 42", "k799cb48m8"),
            ("ConfigMap", "data: |\n  x", "4f524d9f29"),
            ("ConfigMap", "data: [a, b]", "dk855m5d49"),
            ("ConfigMap", "data: []", "dk855m5d49"),
            ("Secret", "", "2bg6t6bf6t"),
            ("Secret", "type:", "2bg6t6bf6t"),
            ("Secret", "type: ~", "7f7t7mht9h"),
            ("Secret", "type: null", "d9kfg77dt6"),
            ("Secret", "type: 42", "dm782thgcg"),
            ("Secret", "type: !!binary aGVsbG8=", "7b49mghbd2"),
            ("Secret", "type: {a: b}", "b8m7k2d59h"),
            ("Secret", "type: [a]", "k9k985kcg4"),
            ("Secret", "data: ~", "dhggcdgcb4"),
            ("Secret", "data: {a: YQ==}\nstringData: ~", "7t77h4kbkt"),
            ("Secret", "data: {a: YQ==}\nstringData: [x]", "92dk86kbf5"),
            ("Secret", "stringData: {a: 1}", "d7f89bc44g"),
        ] {
            for generated in [true, false] {
                assert_eq!(
                    suffixed(kind, body, generated),
                    Ok(format!("app-{suffix}")),
                    "{kind} {body}"
                );
            }
        }
    }

    /// Where kubectl kustomize fails, or hashes what config-hash does not reproduce,
    /// there is no suffix: an error naming the object and the field, never the value.
    #[test]
    fn values_kustomize_cannot_hash_or_hashes_otherwise_are_refused() {
        for (body, field, words) in [
            // kubectl kustomize: json: unsupported value: +Inf (and -Inf, NaN).
            ("data: {a: .inf}", "data.a", "infinity or NaN"),
            ("data: {a: -.Inf}", "data.a", "infinity or NaN"),
            ("data: {a: .nan}", "data.a", "infinity or NaN"),
            ("binaryData: {a: .NaN}", "binaryData.a", "infinity or NaN"),
            // kubectl kustomize: cannot decode !!str `abc` as a !!int.
            ("data: {a: !!int abc}", "data.a", "tagged !!int"),
            ("data: {a: !!float abc}", "data.a", "tagged !!float"),
            ("data: {a: !!bool yes}", "data.a", "tagged !!bool"),
            ("data: {a: !!int 1.5}", "data.a", "tagged !!int"),
            // kubectl kustomize: json: unsupported type: map[interface {}]interface {}.
            ("data: {1: x}", "data.1", "a key YAML reads"),
            ("data: {true: x}", "data.true", "a key YAML reads"),
            ("data: {0x1f: x}", "data.0x1f", "a key YAML reads"),
            // Hashed by kustomize, not reproduced.
            ("data: {a: 2001-12-14T21:59:43Z}", "data.a", "timestamp"),
            ("data: {a: !!binary aGVsbG8=}", "data.a", "!!binary"),
            ("data: {a: {b: c}}", "data.a", "mapping or a sequence"),
            ("data: {a: [1, 2]}", "data.a", "mapping or a sequence"),
        ] {
            for generated in [true, false] {
                let message = suffixed("ConfigMap", body, generated).expect_err(body);
                assert!(
                    message.starts_with(&format!("ConfigMap app: {field} "))
                        && message.contains(words),
                    "{body}: {message}"
                );
            }
        }
        let message = suffixed("Secret", "stringData: {a: .inf}", false).expect_err("refused");
        assert!(
            message.starts_with("Secret app: stringData.a "),
            "{message}"
        );
    }

    #[test]
    fn names_every_reader_takes_for_a_null_a_number_or_a_boolean_are_not_names() {
        let read = |v: &str| {
            let src = format!("name: {v}\n");
            let tree = crate::yaml::parse(&src).unwrap();
            let node = tree.get(tree.documents()[0].root(), "name").unwrap();
            not_a_string(&tree, node)
        };
        for v in ["~", "null", "Null", ""] {
            assert_eq!(read(v), Some("null"), "{v}");
        }
        for v in ["42", "-7", "+0", "1.5", ".5", "-1.5e3"] {
            assert_eq!(read(v), Some("a number"), "{v}");
        }
        for v in ["true", "False", "TRUE"] {
            assert_eq!(read(v), Some("a boolean"), "{v}");
        }
        // Names: quoted or tagged, or spellings the readers disagree on (the API server
        // judges those), or not numbers at all.
        for v in [
            "'42'",
            "\"null\"",
            "!!str 42",
            "0x1f",
            "yes",
            "1.2.3",
            "2024-01-01-x",
            "e5",
            "1e",
            "web",
        ] {
            assert_eq!(read(v), None, "{v}");
        }
    }
}
