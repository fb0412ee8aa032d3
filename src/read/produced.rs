//! What a producer (a SealedSecret, an ExternalSecret, a SecretProviderClass) yields as
//! a source: the objects it makes, read from the catalog's producer rows, with the
//! content the hash covers. Pass 1 indexes them like ConfigMaps and Secrets.

use crate::model::catalog::{FieldPath, Hashed, Open, Producer, SourceKind};
use crate::model::content::{Content, ContentError, EntriesBuilder, Origin};
use crate::model::resource::ResourceId;
use crate::read::references;
use crate::yaml::scalar::double_quoted;
use crate::yaml::{NodeId, Tree};

/// One object a producer makes.
pub struct Made {
    pub kind: SourceKind,
    /// The produced object: its kind, the producer's namespace, the produced name.
    pub id: ResourceId,
    pub content: Result<Content, ContentError>,
}

/// The first node at `path` below `node` (the catalog's walker: lists are walked).
fn first(tree: &Tree<'_>, node: NodeId, path: &FieldPath) -> Option<NodeId> {
    references::walk(tree, node, path.steps(), String::new())
        .first()
        .map(|r| r.node)
}

/// Every object the producer row `p` says `item` makes.
pub fn read(tree: &Tree<'_>, item: NodeId, id: &ResourceId, p: &Producer) -> Vec<Made> {
    let holds = |(path, values): &(FieldPath, Vec<String>)| {
        let value = first(tree, item, path).and_then(|v| tree.str(v));
        value.is_some_and(|v| values.iter().any(|x| x == v))
    };
    if p.unless.as_ref().is_some_and(holds) || p.when.as_ref().is_some_and(|w| !holds(w)) {
        return Vec::new();
    }
    let spec = tree.get(item, "spec").map(|s| canonical(tree, s));
    let bases: Vec<NodeId> = match &p.each {
        None => vec![item],
        Some(path) => references::walk(tree, item, path.steps(), String::new())
            .into_iter()
            .map(|r| r.node)
            .collect(),
    };
    let mut out = Vec::new();
    for base in bases {
        let name = p
            .name
            .as_ref()
            .and_then(|path| first(tree, base, path))
            .and_then(|n| tree.str(n))
            .filter(|n| !n.is_empty())
            .unwrap_or(id.name());
        if name.is_empty() {
            continue;
        }
        let made_id = ResourceId::new("v1", p.produces.as_str(), id.namespace(), name);
        out.push(Made {
            kind: p.produces,
            id: made_id,
            content: content(tree, item, base, p, spec.as_ref()),
        });
    }
    out
}

fn content(
    tree: &Tree<'_>,
    item: NodeId,
    base: NodeId,
    p: &Producer,
    spec: Option<&Vec<u8>>,
) -> Result<Content, ContentError> {
    let mut entries = EntriesBuilder::default();
    for path in &p.keys {
        for reached in references::walk(tree, base, path.steps(), String::new()) {
            let node = reached.node;
            if tree.is_null(node) {
                continue;
            }
            if tree.is_map(node) {
                // The keys of a mapping, each with its value (ciphertext, template text).
                for (k, v) in tree.entries(node) {
                    let key = tree.str(k).ok_or_else(|| ContentError::NotAString {
                        field: format!("a key of {}", path.dotted()),
                    })?;
                    let bytes = match p.hashed {
                        Hashed::Spec => &[][..],
                        // Never printed: only hashed.
                        Hashed::Values => tree.str(v).unwrap_or("").as_bytes(),
                    };
                    entries.push(key, Origin::Data, bytes);
                }
            } else if let Some(key) = tree.str(node) {
                // A key written as a value (an ExternalSecret's `data[].secretKey`).
                entries.push(key, Origin::Data, &[]);
            } else {
                return Err(ContentError::NotAMap {
                    field: path.dotted(),
                });
            }
        }
    }
    let secret_type = match p.produces {
        SourceKind::Secret => p
            .secret_type
            .as_ref()
            .and_then(|path| first(tree, base, path))
            .filter(|&t| !tree.is_null(t))
            .and_then(|t| tree.str(t))
            .unwrap_or(&p.default_type)
            .to_string(),
        _ => String::new(),
    };
    let open = match &p.open {
        Open::Never => false,
        Open::Always => true,
        Open::When(path) => first(tree, item, path).is_some_and(|n| !tree.is_null(n)),
    };
    Ok(Content {
        secret_type,
        entries: entries.finish(),
        spec: match p.hashed {
            Hashed::Spec => Some(spec.cloned().unwrap_or_default()),
            Hashed::Values => None,
        },
        open,
    })
}

/// A node's canonical text: mappings with keys sorted, every scalar a quoted string, so
/// that reformatting, reordering keys or changing quotes does not change it.
pub fn canonical(tree: &Tree<'_>, node: NodeId) -> Vec<u8> {
    let mut out = String::new();
    write_canonical(
        tree,
        node,
        &mut out,
        &Canon {
            skip: &[],
            replaced: &[],
            drop_empty: false,
        },
    );
    out.into_bytes()
}

/// [`canonical`] without the nodes in `skip` (mapping values or list items), and without
/// mappings and lists that are then empty: what a pod template is apart from a stamp,
/// whether or not the stamp (and the `annotations:` / `env:` around it) is there.
pub fn canonical_without(tree: &Tree<'_>, node: NodeId, skip: &[NodeId]) -> Vec<u8> {
    canonical_as_written(tree, node, skip, &[])
}

/// [`canonical_without`], reading each scalar in `replaced` as the text it will have
/// in the output (a reference rewritten to a renamed object), so the canonical text of
/// the output equals that of the input.
pub fn canonical_as_written(
    tree: &Tree<'_>,
    node: NodeId,
    skip: &[NodeId],
    replaced: &[(NodeId, String)],
) -> Vec<u8> {
    let mut out = String::new();
    // Empty maps and lists are dropped whether or not the stamp was there to skip, so
    // the text before and after stamping is the same.
    write_canonical(
        tree,
        node,
        &mut out,
        &Canon {
            skip,
            replaced,
            drop_empty: true,
        },
    );
    out.into_bytes()
}

/// What the canonical text leaves out or reads otherwise.
struct Canon<'c> {
    skip: &'c [NodeId],
    replaced: &'c [(NodeId, String)],
    drop_empty: bool,
}

fn is_empty_text(t: &str) -> bool {
    matches!(t, "{}" | "[]" | "null")
}

fn write_canonical(tree: &Tree<'_>, node: NodeId, out: &mut String, canon: &Canon<'_>) {
    let skip = canon.skip;
    if tree.is_map(node) {
        let mut entries: Vec<(String, NodeId)> = tree
            .entries(node)
            .into_iter()
            .map(|(k, v)| (tree.str(k).unwrap_or("").to_string(), v))
            .collect();
        entries.sort_by(|a, b| a.0.cmp(&b.0));
        out.push('{');
        let mut first = true;
        for (k, v) in &entries {
            if skip.contains(v) {
                continue;
            }
            let mut value = String::new();
            write_canonical(tree, *v, &mut value, canon);
            if canon.drop_empty && is_empty_text(&value) {
                continue;
            }
            if !first {
                out.push(',');
            }
            first = false;
            out.push_str(&double_quoted(k));
            out.push(':');
            out.push_str(&value);
        }
        out.push('}');
    } else if tree.is_seq(node) {
        out.push('[');
        let mut first = true;
        for v in tree.items(node).filter(|v| !skip.contains(v)) {
            if !first {
                out.push(',');
            }
            first = false;
            write_canonical(tree, v, out, canon);
        }
        out.push(']');
    } else if tree.is_null(node) {
        out.push_str("null");
    } else if let Some((_, text)) = canon.replaced.iter().find(|(n, _)| *n == node) {
        out.push_str(&double_quoted(text));
    } else {
        out.push_str(&double_quoted(tree.str(node).unwrap_or("")));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::catalog::Catalog;

    fn made(src: &str) -> Vec<Made> {
        let tree = crate::yaml::parse(src).unwrap();
        let item = tree.documents()[0].root();
        let id = ResourceId::of(&tree, item);
        let catalog = Catalog::builtin();
        catalog
            .producers_for(id.api_version(), id.kind())
            .flat_map(|p| read(&tree, item, &id, p))
            .collect()
    }

    #[test]
    fn a_sealed_secret_makes_its_namesake_with_ciphertext_and_template_keys() {
        let m = made(
            "apiVersion: bitnami.com/v1alpha1\nkind: SealedSecret\nmetadata: {name: s, namespace: ns}\nspec:\n  encryptedData: {a: AgB1}\n  template: {type: kubernetes.io/tls, data: {t: 'x {{ .a }}'}}\n",
        );
        assert_eq!(m.len(), 1);
        assert_eq!(
            (m[0].kind, m[0].id.namespace(), m[0].id.name()),
            (SourceKind::Secret, Some("ns"), "s")
        );
        let c = m[0].content.as_ref().unwrap();
        assert_eq!(c.secret_type, "kubernetes.io/tls");
        assert_eq!(c.entries.get("a").unwrap().1, b"AgB1");
        assert_eq!(c.entries.get("t").unwrap().1, b"x {{ .a }}");
        assert!(c.spec.is_none() && !c.open);
    }

    #[test]
    fn an_external_secret_makes_its_target_hashed_by_spec() {
        let m = made(
            "apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata: {name: es}\nspec:\n  target: {name: t}\n  data: [{secretKey: k, remoteRef: {key: r}}]\n  dataFrom: [{extract: {key: x}}]\n",
        );
        assert_eq!(m[0].id.name(), "t");
        let c = m[0].content.as_ref().unwrap();
        assert!(c.entries.contains_key("k") && c.open);
        assert!(c.spec.as_ref().unwrap().starts_with(b"{\"data\":"));
        // Without a target name, its own name; without dataFrom, closed.
        let m = made(
            "apiVersion: external-secrets.io/v1beta1\nkind: ExternalSecret\nmetadata: {name: es}\nspec: {data: []}\n",
        );
        assert_eq!(m[0].id.name(), "es");
        assert!(!m[0].content.as_ref().unwrap().open);
        // Merge and None write into a Secret made elsewhere: nothing is made.
        for policy in ["Merge", "None"] {
            let m = made(&format!(
                "apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata: {{name: es}}\nspec: {{target: {{creationPolicy: {policy}}}}}\n"
            ));
            assert!(m.is_empty(), "{policy}");
        }
        let m = made(
            "apiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata: {name: es}\nspec: {target: {creationPolicy: Orphan}}\n",
        );
        assert_eq!(m.len(), 1);
    }

    #[test]
    fn a_secret_provider_class_is_a_source_and_makes_its_secret_objects() {
        let m = made(
            "apiVersion: secrets-store.csi.x-k8s.io/v1\nkind: SecretProviderClass\nmetadata: {name: spc}\nspec:\n  provider: vault\n  secretObjects:\n  - {secretName: a, type: Opaque, data: [{objectName: o, key: k}]}\n  - {secretName: b, data: []}\n",
        );
        let got: Vec<(SourceKind, &str)> = m.iter().map(|m| (m.kind, m.id.name())).collect();
        assert_eq!(
            got,
            [
                (SourceKind::SecretProviderClass, "spc"),
                (SourceKind::Secret, "a"),
                (SourceKind::Secret, "b")
            ]
        );
        assert!(m[1].content.as_ref().unwrap().entries.contains_key("k"));
    }

    #[test]
    fn a_certificate_makes_a_tls_secret_with_any_key_hashed_by_spec() {
        let m = made(
            "apiVersion: cert-manager.io/v1\nkind: Certificate\nmetadata: {name: web, namespace: ns}\nspec: {secretName: web-tls, dnsNames: [a.example], issuerRef: {name: le}}\n",
        );
        assert_eq!(m.len(), 1);
        assert_eq!(
            (m[0].kind, m[0].id.namespace(), m[0].id.name()),
            (SourceKind::Secret, Some("ns"), "web-tls")
        );
        let c = m[0].content.as_ref().unwrap();
        assert_eq!(c.secret_type, "kubernetes.io/tls");
        assert!(c.open && c.entries.is_empty());
        assert!(c.spec.as_ref().unwrap().starts_with(b"{\"dnsNames\":"));
    }

    #[test]
    fn a_vault_secrets_operator_object_makes_its_destination_only_when_told_to_create_it() {
        for kind in [
            "VaultStaticSecret",
            "VaultDynamicSecret",
            "VaultPKISecret",
            "HCPVaultSecretsApp",
        ] {
            let object = |destination: &str| {
                made(&format!(
                    "apiVersion: secrets.hashicorp.com/v1beta1\nkind: {kind}\nmetadata: {{name: v}}\nspec: {{mount: kv, destination: {destination}}}\n"
                ))
            };
            let m = object("{name: app, create: true, type: kubernetes.io/tls}");
            assert_eq!(m.len(), 1, "{kind}");
            assert_eq!(m[0].id.name(), "app", "{kind}");
            let c = m[0].content.as_ref().unwrap();
            assert_eq!(c.secret_type, "kubernetes.io/tls", "{kind}");
            assert!(c.open && c.spec.is_some(), "{kind}");
            let m = object("{name: app, create: true}");
            assert_eq!(m[0].content.as_ref().unwrap().secret_type, "Opaque");
            // create defaults to false: the Secret must exist already, made elsewhere.
            assert!(object("{name: app}").is_empty(), "{kind}");
            assert!(object("{name: app, create: false}").is_empty(), "{kind}");
        }
    }

    #[test]
    fn canonical_text_ignores_layout_order_and_quoting() {
        let a = crate::yaml::parse("b: [1, 'x']\na: {c: ~}\n").unwrap();
        let b = crate::yaml::parse("a:\n  c: null\nb:\n- \"1\"\n- x\n").unwrap();
        assert_eq!(
            canonical(&a, a.documents()[0].root()),
            canonical(&b, b.documents()[0].root())
        );
        let c = crate::yaml::parse("a: {c: ~}\nb: [1, y]\n").unwrap();
        assert_ne!(
            canonical(&a, a.documents()[0].root()),
            canonical(&c, c.documents()[0].root())
        );
    }
}
