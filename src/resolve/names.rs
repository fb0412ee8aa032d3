//! Names outside pod specs: what an object's name-reference sites (an Ingress's TLS
//! Secret, a Role's `resourceNames`, a user-declared field) find, resolved as a pod's
//! references are but never hashed.

use crate::model::catalog::{self, Catalog, Form, WorkloadKind};
use crate::model::reference::{Keys, Status, Via};
use crate::model::resource::ResourceId;
use crate::read::references;
use crate::resolve::resolution::Resolved;
use crate::resolve::sources::Resolver;
use crate::yaml::{NodeId, Tree};

/// The references of one object outside pod specs (an Ingress's TLS Secret, a Role's
/// `resourceNames`, a user-declared field), resolved as a pod's are.
pub fn resolve_names(
    tree: &Tree<'_>,
    item: NodeId,
    id: &ResourceId,
    catalog: &Catalog,
    resolver: Resolver<'_>,
) -> Vec<Resolved> {
    let mut out = Vec::new();
    for r in references::site_refs(tree, item, id, catalog) {
        let Some(text) = tree.str(r.node) else {
            continue;
        };
        let (namespace, name) = match (r.form, text.split_once('/')) {
            (Form::MaybeNamespaced, Some((ns, n))) => (Some(ns.to_string()), n),
            _ => (r.namespace.clone(), text),
        };
        // A template its reader fills in (a StorageClass's `${pvc.name}`): no object's
        // name, since `$` is in none.
        if name.contains("${") || namespace.as_deref().is_some_and(|ns| ns.contains("${")) {
            continue;
        }
        let found = if r.any_namespace {
            resolver.find_any(r.kind, name)
        } else {
            resolver.find(r.kind, namespace.as_deref(), name)
        };
        let namespace = found.namespace.clone();
        let (producer, runtime) = found.entry.map_or((None, false), |s| s.made_by(r.kind));
        out.push(Resolved {
            kind: r.kind,
            status: Status::of_named(
                found.entry.map(|s| s.ignored),
                false,
                catalog::published_by_cluster(r.kind, &found.name),
            ),
            name: found.name,
            namespace,
            field: r.field,
            keys: Keys::All,
            optional: false,
            missing_keys: Vec::new(),
            via: Via::Name,
            producer,
            runtime,
            ignored_keys: Vec::new(),
        });
    }
    // A Role rule that grants configmaps and secrets names each object once, in one
    // list: a name found as one kind is not missing as the other.
    let found: Vec<(String, String)> = out
        .iter()
        .filter(|r| r.status != Status::Missing)
        .map(|r| (r.field.clone(), r.name.clone()))
        .collect();
    out.retain(|r| {
        r.status != Status::Missing || !found.iter().any(|(f, n)| *f == r.field && *n == r.name)
    });
    out
}

/// The names a workload's pod spec gives that show the pod no content (an image pull
/// Secret, a volume plugin's credentials): resolved in its namespace, as names.
pub fn resolve_pod_names(
    tree: &Tree<'_>,
    item: NodeId,
    id: &ResourceId,
    kind: &WorkloadKind,
    catalog: &Catalog,
    resolver: Resolver<'_>,
) -> Vec<Resolved> {
    let Some(spec) = tree
        .get_path(item, &references::path_strs(&kind.template))
        .and_then(|t| tree.get(t, "spec"))
    else {
        return Vec::new();
    };
    let spec_path = kind.spec_field();
    references::find_unseen(tree, spec, &spec_path, &catalog.pod_sites)
        .into_iter()
        .map(|r| {
            let found = resolver.find(r.kind, id.namespace(), &r.name);
            let (producer, runtime) = found.entry.map_or((None, false), |s| s.made_by(r.kind));
            Resolved {
                kind: r.kind,
                status: Status::of_named(
                    found.entry.map(|s| s.ignored),
                    r.optional,
                    catalog::published_by_cluster(r.kind, &found.name),
                ),
                name: found.name,
                namespace: found.namespace,
                field: r.field,
                keys: Keys::All,
                optional: r.optional,
                missing_keys: Vec::new(),
                via: Via::Name,
                producer,
                runtime,
                ignored_keys: Vec::new(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::catalog::SourceKind;
    use crate::model::config::Config;
    use crate::resolve::renames::Renames;
    use crate::resolve::sources::tests::{SECRET, index_of, secret, source};

    /// What each reference outside pod specs of the first item of `input` finds: its
    /// kind, namespace, name and status.
    fn names_in(
        input: &str,
        renames: &Renames,
    ) -> Vec<(SourceKind, Option<String>, String, Status)> {
        let (config, catalog) = (Config::default(), Catalog::builtin());
        let tree = crate::yaml::parse(input).unwrap();
        let index = index_of(&tree, &config, &catalog, renames);
        let item = tree.documents()[0].root();
        let id = ResourceId::of(&tree, item);
        let resolver = Resolver {
            index: &index,
            renames,
        };
        resolve_names(&tree, item, &id, &catalog, resolver)
            .into_iter()
            .map(|r| {
                assert_eq!(
                    (r.via, &r.keys, r.optional, r.missing_keys.len()),
                    (Via::Name, &Keys::All, false, 0)
                );
                (r.kind, r.namespace, r.name, r.status)
            })
            .collect()
    }

    #[test]
    fn names_outside_pod_specs_resolve_in_their_namespace_or_the_one_they_name() {
        let input = "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: in\n  namespace: shop\n  annotations: {nginx.ingress.kubernetes.io/auth-secret: other/auth, nginx.ingress.kubernetes.io/auth-tls-secret: tls}\nspec: {tls: [{secretName: tls}, {secretName: {x: y}}, {secretName: gone}, {secretName: quiet}]}\n".to_string()
            + &secret("tls", "data: {a: Yg==}")
            + &source("Secret", "other", "auth", "data: {a: Yg==}")
            + &secret("quiet", "data: {a: Yg==}").replace(
                "name: quiet",
                "name: quiet, annotations: {reloader.stakater.com/ignore: 'true'}",
            );
        let mut renames = Renames::default();
        renames.add(SECRET, Some("shop"), "tls", "tls", "tls-5t7tcg6b9h");
        let shop = || Some("shop".to_string());
        assert_eq!(
            names_in(&input, &renames),
            [
                (SECRET, shop(), "tls-5t7tcg6b9h".into(), Status::Found),
                (SECRET, shop(), "gone".into(), Status::Missing),
                (SECRET, shop(), "quiet".into(), Status::Ignored),
                (SECRET, Some("other".into()), "auth".into(), Status::Found),
                (SECRET, shop(), "tls-5t7tcg6b9h".into(), Status::Found),
            ]
        );
    }

    #[test]
    fn a_cluster_scoped_object_finds_a_name_in_any_namespace() {
        let role = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: r}\nrules: [{resources: [secrets], resourceNames: [one, renamed, renamed-ffffffffff, two, amb, nowhere]}]\n".to_string();
        let input = role
            + &source("Secret", "a", "one", "data: {a: Yg==}")
            + &source("Secret", "b", "renamed", "data: {a: Yg==}")
            // Of one name in several namespaces, the first in input order.
            + &source("Secret", "d", "two", "data: {a: Yg==}")
            + &source("Secret", "c", "two", "data: {a: Yg==}")
            + &source("Secret", "c", "amb", "data: {a: Yg==}")
            + &source("Secret", "d", "amb", "data: {a: Yg==}")
            + &source("Secret", "e", "amb", "data: {a: Yg==}");
        let mut renames = Renames::default();
        renames.add(
            SECRET,
            Some("b"),
            "renamed",
            "renamed",
            "renamed-5t7tcg6b9h",
        );
        // Renamed to different names in two namespaces: which is meant is not known,
        // and the name stays as written (the object of a third namespace that keeps it).
        renames.add(SECRET, Some("c"), "amb", "amb", "amb-5t7tcg6b9h");
        renames.add(SECRET, Some("d"), "amb", "amb", "amb-2b4m8f9gh7");
        let ns = |n: &str| Some(n.to_string());
        assert_eq!(
            names_in(&input, &renames),
            [
                (SECRET, ns("a"), "one".into(), Status::Found),
                (SECRET, ns("b"), "renamed-5t7tcg6b9h".into(), Status::Found),
                (SECRET, ns("b"), "renamed-5t7tcg6b9h".into(), Status::Found),
                (SECRET, ns("d"), "two".into(), Status::Found),
                (SECRET, ns("e"), "amb".into(), Status::Found),
                (SECRET, None, "nowhere".into(), Status::Missing),
            ]
        );
    }
}
