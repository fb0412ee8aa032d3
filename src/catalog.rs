//! What the function knows about Kubernetes, as data in one place: which kinds carry a
//! pod template and where, where a pod spec names a ConfigMap or Secret and what the pod
//! then sees, and where any object names one (what renaming rewrites). Users extend it
//! from the functionConfig in kustomize's fieldSpec shape.

use std::collections::HashMap;

use crate::yaml::{NodeId, Tree};

/// The kinds of object a pod reads configuration from: ConfigMaps and Secrets, and the
/// Secrets Store CSI driver's SecretProviderClass, which a `csi` volume names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SourceKind {
    ConfigMap,
    Secret,
    SecretProviderClass,
}

impl SourceKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SourceKind::ConfigMap => "ConfigMap",
            SourceKind::Secret => "Secret",
            SourceKind::SecretProviderClass => "SecretProviderClass",
        }
    }

    pub fn from_kind(api_version: &str, kind: &str) -> Option<SourceKind> {
        if api_version != "v1" {
            return None;
        }
        Self::from_name(kind)
    }

    /// A ConfigMap for a Secret and back: what a reference of one kind may have meant.
    pub fn other(self) -> Option<SourceKind> {
        match self {
            SourceKind::ConfigMap => Some(SourceKind::Secret),
            SourceKind::Secret => Some(SourceKind::ConfigMap),
            SourceKind::SecretProviderClass => None,
        }
    }

    /// ConfigMap or Secret by name: the kinds a user's reference entry may name.
    pub fn from_name(kind: &str) -> Option<SourceKind> {
        match kind {
            "ConfigMap" => Some(SourceKind::ConfigMap),
            "Secret" => Some(SourceKind::Secret),
            _ => None,
        }
    }
}

/// A kind that carries a pod template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkloadKind {
    /// API groups the kind is served under (`""` is the core group).
    pub groups: Vec<String>,
    pub kind: String,
    /// Keys from the object to the pod template (the mapping holding `metadata` and
    /// `spec`); empty for a Pod, which is its own template.
    pub template: Vec<String>,
    /// False where the pod spec cannot change after creation (a bare Pod), so an env var
    /// would not roll anything and only the annotation applies.
    pub env_allowed: bool,
    /// What makes a changed hash reach the running containers.
    pub restart: Restart,
    /// Where the object may name another workload whose pod template runs in its place
    /// (an Argo Rollout's `spec.workloadRef`).
    pub delegate: Option<&'static [&'static str]>,
    /// Where a user declared it (`spec.workloads[0]`), for messages; `None` for built-ins.
    pub declared_at: Option<String>,
}

impl WorkloadKind {
    /// The pod template's field path, `spec.template`.
    pub fn template_field(&self) -> String {
        self.template.join(".")
    }

    /// The pod spec's field path, `spec.template.spec` (`spec` for a Pod).
    pub fn spec_field(&self) -> String {
        let t = self.template_field();
        if t.is_empty() {
            "spec".to_string()
        } else {
            format!("{t}.spec")
        }
    }
}

/// How a workload kind turns a changed pod template into restarted containers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Restart {
    /// Any template change replaces the pods: the hash goes where the mode says.
    Template,
    /// OpenKruise's in-place update (`InPlaceIfPossible`, `InPlaceOnly`) patches a
    /// metadata-only change onto running pods without restarting them, but restarts a
    /// container in place when an env var reads a changed annotation through the
    /// downward API. So the annotation is written and every container gets an env var
    /// reading it (`valueFrom.fieldRef`), whatever the mode; under `ReCreate` the
    /// annotation change replaces the pods as usual.
    DownwardApi,
    /// The pod template cannot change once the object exists (a Job): applying a changed
    /// hash fails with "field is immutable". With `config-hash.dev/name-suffix: "true"`
    /// the object gets a hashed name instead, so a change makes a new object.
    NewObject,
}

/// Where, relative to a pod spec, a reference site starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Under each of `containers`, `initContainers`, `ephemeralContainers`.
    Containers,
    /// Directly under the pod spec.
    PodSpec,
}

/// Which keys of the object a pod-spec reference lets the pod see.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeySel {
    /// A single key named by this field.
    Field(&'static str),
    /// The `key` of each `items` entry; every key when `items` is absent or empty.
    Items,
    All,
}

/// One place in a pod spec that names a ConfigMap or Secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodSite {
    pub scope: Scope,
    /// Keys from the scope to the reference object; `*` walks every list item.
    pub path: &'static [&'static str],
    pub kind: SourceKind,
    pub name_field: &'static str,
    pub keys: KeySel,
    /// False for references that give the pod no content (image pull secrets, CSI
    /// credentials): renamed with the object, but not hashed.
    pub visible: bool,
}

/// How a name is written at a name-reference site.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    Name,
    /// `name` or `namespace/name` (ingress-nginx annotations).
    MaybeNamespaced,
}

/// A field outside pod specs that names a ConfigMap or Secret: renaming rewrites it and
/// `graph` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameSite {
    pub groups: Vec<String>,
    pub kind: String,
    /// Keys from the object to the mapping that holds the name; sequences met on the way
    /// are walked item by item (kustomize's fieldSpec rule).
    pub path: Vec<String>,
    pub name_key: String,
    /// A sibling key giving the object's namespace, where the referrer is cluster-scoped;
    /// otherwise the referrer's own namespace applies.
    pub namespace_key: Option<String>,
    pub target: SourceKind,
    pub form: Form,
    /// Role rules: the names in `resourceNames` of rules that grant this resource.
    pub rule_resource: Option<&'static str>,
    /// Where a user declared it (`spec.references[0].fieldSpecs[1]`); `None` for built-ins.
    pub declared_at: Option<String>,
}

/// Where a producer lists the keys of what it produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeysAt {
    /// The keys of the mapping at this path.
    MapKeys(&'static [&'static str]),
    /// This field of each item of the list at this path.
    ItemField(&'static [&'static str], &'static str),
}

/// What of a producer the hash covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hashed {
    /// The value written under each key the pod sees (a SealedSecret's ciphertext, a
    /// template's text).
    Values,
    /// The producer's whole `spec`: what git controls of a value fetched at runtime.
    Spec,
}

/// Whether a producer's object may have keys beyond those it lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Open {
    Never,
    /// When this field is present (ExternalSecret `dataFrom`).
    When(&'static [&'static str]),
}

/// A kind of object that makes a Secret (or is itself read by pods) from what git holds:
/// pass 1 indexes what it produces as a source, so references to it resolve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Producer {
    pub group: &'static str,
    pub kind: &'static str,
    pub produces: SourceKind,
    /// A list whose items each produce one object; `None`: the object produces one.
    pub each: Option<&'static [&'static str]>,
    /// The produced object's name, relative to the list item or the object; the
    /// producer's own name when `None` or absent. Its namespace is the producer's.
    pub name: Option<&'static [&'static str]>,
    pub keys: &'static [KeysAt],
    pub open: Open,
    /// Where the Secret's type is written (`Opaque` when absent).
    pub secret_type: Option<&'static [&'static str]>,
    pub hashed: Hashed,
    /// The content can change outside git (a value in an external store).
    pub runtime: bool,
    /// It makes nothing when this field holds one of these values (an ExternalSecret
    /// with `creationPolicy: Merge` or `None` writes into a Secret made elsewhere).
    pub unless: Option<(&'static [&'static str], &'static [&'static str])>,
}

/// Built-in producers, checked against each project's documentation (README, "Sources
/// produced by other objects").
#[rustfmt::skip]
const PRODUCERS: &[Producer] = &[
    // Bitnami sealed-secrets: the controller unseals into a Secret of the same name and
    // namespace; `spec.template` gives its type and templated keys.
    Producer { group: "bitnami.com", kind: "SealedSecret", produces: Secret, each: None, name: None,
        keys: &[KeysAt::MapKeys(&["spec", "encryptedData"]), KeysAt::MapKeys(&["spec", "template", "data"])],
        open: Open::Never, secret_type: Some(&["spec", "template", "type"]), hashed: Hashed::Values, runtime: false, unless: None },
    // External Secrets Operator: `spec.target.name` (default: its own name).
    Producer { group: "external-secrets.io", kind: "ExternalSecret", produces: Secret, each: None, name: Some(&["spec", "target", "name"]),
        keys: &[KeysAt::ItemField(&["spec", "data"], "secretKey"), KeysAt::MapKeys(&["spec", "target", "template", "data"])],
        open: Open::When(&["spec", "dataFrom"]), secret_type: Some(&["spec", "target", "template", "type"]), hashed: Hashed::Spec, runtime: true,
        unless: Some((&["spec", "target", "creationPolicy"], &["Merge", "None"])) },
    // Secrets Store CSI driver: a pod's `csi` volume reads the class itself ...
    Producer { group: "secrets-store.csi.x-k8s.io", kind: "SecretProviderClass", produces: SourceKind::SecretProviderClass, each: None, name: None,
        keys: &[], open: Open::Never, secret_type: None, hashed: Hashed::Spec, runtime: true, unless: None },
    // ... and `spec.secretObjects` are Secrets it syncs while a pod mounts it.
    Producer { group: "secrets-store.csi.x-k8s.io", kind: "SecretProviderClass", produces: Secret, each: Some(&["spec", "secretObjects"]), name: Some(&["secretName"]),
        keys: &[KeysAt::ItemField(&["data"], "key")], open: Open::Never, secret_type: Some(&["type"]), hashed: Hashed::Spec, runtime: true, unless: None },
];

/// A workload annotation listing objects the app reads through the API rather than the
/// pod spec: each is hashed like an `envFrom` of the whole object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnnotationSite {
    pub key: &'static str,
    pub kind: SourceKind,
    /// The tool whose annotation it is, for messages.
    pub tool: &'static str,
    /// The tool accepts regular expressions there; config-hash reads exact names only.
    pub regex: bool,
}

/// Built-in annotation reference sites: ours, and those of the tools people migrate
/// from (Reloader `internal/pkg/options/flags.go`, wave's README), so their annotations
/// keep working.
#[rustfmt::skip]
const ANNOTATION_SITES: &[AnnotationSite] = &[
    AnnotationSite { key: "config-hash.dev/extra-configmaps", kind: ConfigMap, tool: "config-hash", regex: false },
    AnnotationSite { key: "config-hash.dev/extra-secrets", kind: Secret, tool: "config-hash", regex: false },
    AnnotationSite { key: "configmap.reloader.stakater.com/reload", kind: ConfigMap, tool: "Reloader", regex: true },
    AnnotationSite { key: "secret.reloader.stakater.com/reload", kind: Secret, tool: "Reloader", regex: true },
    AnnotationSite { key: "wave.pusher.com/extra-configmaps", kind: ConfigMap, tool: "wave", regex: false },
    AnnotationSite { key: "wave.pusher.com/extra-secrets", kind: Secret, tool: "wave", regex: false },
];

/// Every annotation key the function reads or writes, spelled once. Those that name
/// extra dependencies are rows of [`ANNOTATION_SITES`]; these are the rest.
pub mod annotations {
    use super::SourceKind;

    /// Where the hash is written unless `annotationKey` says otherwise.
    pub const HASH: &str = "config-hash.dev/hash";
    /// On a workload: leave it untouched.
    pub const SKIP: &str = "config-hash.dev/skip";
    /// On a ConfigMap or Secret: keep it out of every hash. Ours, and Reloader's, which
    /// means the same to Reloader.
    pub const IGNORE: &[&str] = &["config-hash.dev/ignore", "reloader.stakater.com/ignore"];
    /// On a ConfigMap, Secret or Job: opt in to (`"true"`) or out of (`"false"`) a hashed
    /// name.
    pub const NAME_SUFFIX: &str = "config-hash.dev/name-suffix";
    /// Written on an object with a hashed name: the name before the suffix.
    pub const BASE_NAME: &str = "config-hash.dev/base-name";
    /// kustomize's own opt-in to a hashed name.
    pub const NEEDS_HASH: &str = "kustomize.config.k8s.io/needs-hash";
    /// Set by kustomize on objects its generators made; it suffixes them itself later.
    pub const KUSTOMIZE_GENERATED: &str = "internal.config.kubernetes.io/needsHashSuffix";
    /// Written on a pod template: which env vars hold the hash of a whole object (the
    /// `__data` convention), so a later run refreshes them: `container/VAR=Kind/name,...`.
    pub const DATA_REFS: &str = "config-hash.dev/data-refs";
    /// Marks a workload whose Reloader reload annotations config-hash wrote (with
    /// `runtimeReload: reloader`): they are its output, not extra dependencies to read.
    pub const RELOADER_WRITTEN: &str = "config-hash.dev/reloader-annotations";
    /// Reloader's explicit reload annotation for each source kind (`runtimeReload:
    /// reloader` writes them on workloads).
    pub const RELOADER_KEYS: &[(SourceKind, &str)] = &[
        (
            SourceKind::ConfigMap,
            "configmap.reloader.stakater.com/reload",
        ),
        (SourceKind::Secret, "secret.reloader.stakater.com/reload"),
        (
            SourceKind::SecretProviderClass,
            "secretproviderclass.reloader.stakater.com/reload",
        ),
    ];
    /// Objects that are never deployed (function configs, the Kptfile): neither a source
    /// nor a target.
    pub const LOCAL_CONFIG: &str = "config.kubernetes.io/local-config";
    /// The file (and index in it) an orchestrator read an item from, newest form first.
    pub const PATH: &[&str] = &[
        "internal.config.kubernetes.io/path",
        "config.kubernetes.io/path",
    ];
    pub const INDEX: &[&str] = &[
        "internal.config.kubernetes.io/index",
        "config.kubernetes.io/index",
    ];
}

/// Everything the function knows about Kubernetes objects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Catalog {
    pub workloads: Vec<WorkloadKind>,
    pub pod_sites: Vec<PodSite>,
    pub name_sites: Vec<NameSite>,
    pub producers: Vec<Producer>,
    pub annotation_sites: Vec<AnnotationSite>,
    /// Per kind, the rows of `workloads` and `name_sites` for it, in order: every item
    /// looks itself up, so a long user catalog must not make each look-up a scan.
    by_kind: HashMap<String, KindRows>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct KindRows {
    workloads: Vec<usize>,
    name_sites: Vec<usize>,
}

impl Default for Catalog {
    fn default() -> Self {
        Catalog::builtin()
    }
}

const APPS: &[&str] = &["apps", "extensions"];
const CORE: &[&str] = &[""];
const INGRESS: &[&str] = &["networking.k8s.io", "extensions"];
const STORAGE: &[&str] = &["storage.k8s.io"];
const RBAC: &[&str] = &["rbac.authorization.k8s.io"];

const KRUISE: &[&str] = &["apps.kruise.io"];
const TEMPLATE: &[&str] = &["spec", "template"];
const WORKLOAD_REF: Option<&[&str]> = Some(&["spec", "workloadRef"]);

/// A built-in workload row: (groups, kind, template path, env allowed, restart, delegate).
type WorkloadRow = (
    &'static [&'static str],
    &'static str,
    &'static [&'static str],
    bool,
    Restart,
    Option<&'static [&'static str]>,
);

/// Built-in workload kinds. Third-party rows show that a CRD is only data; each was
/// checked against its project's documentation (README, "What it finds").
#[rustfmt::skip]
const WORKLOADS: &[WorkloadRow] = &[
    (CORE, "Pod", &[], false, Restart::Template, None),
    (CORE, "PodTemplate", &["template"], true, Restart::Template, None),
    (CORE, "ReplicationController", TEMPLATE, true, Restart::Template, None),
    (APPS, "Deployment", TEMPLATE, true, Restart::Template, None),
    (APPS, "DaemonSet", TEMPLATE, true, Restart::Template, None),
    (APPS, "ReplicaSet", TEMPLATE, true, Restart::Template, None),
    (&["apps"], "StatefulSet", TEMPLATE, true, Restart::Template, None),
    (&["batch"], "Job", TEMPLATE, true, Restart::NewObject, None),
    (&["batch"], "CronJob", &["spec", "jobTemplate", "spec", "template"], true, Restart::Template, None),
    (&["argoproj.io"], "Rollout", TEMPLATE, true, Restart::Template, WORKLOAD_REF),
    (&["serving.knative.dev"], "Service", TEMPLATE, true, Restart::Template, None),
    (KRUISE, "CloneSet", TEMPLATE, true, Restart::DownwardApi, None),
    (KRUISE, "StatefulSet", TEMPLATE, true, Restart::DownwardApi, None),
    (KRUISE, "DaemonSet", TEMPLATE, true, Restart::DownwardApi, None),
    (&["keda.sh"], "ScaledJob", &["spec", "jobTargetRef", "template"], true, Restart::Template, None),
];

use KeySel::{All, Field, Items};
use Scope::{Containers, PodSpec};
use SourceKind::{ConfigMap, Secret};

/// Built-in pod-spec reference sites.
#[rustfmt::skip]
const POD_SITES: &[PodSite] = &[
    PodSite { scope: Containers, path: &["env", "*", "valueFrom", "configMapKeyRef"], kind: ConfigMap, name_field: "name", keys: Field("key"), visible: true },
    PodSite { scope: Containers, path: &["env", "*", "valueFrom", "secretKeyRef"], kind: Secret, name_field: "name", keys: Field("key"), visible: true },
    PodSite { scope: Containers, path: &["envFrom", "*", "configMapRef"], kind: ConfigMap, name_field: "name", keys: All, visible: true },
    PodSite { scope: Containers, path: &["envFrom", "*", "secretRef"], kind: Secret, name_field: "name", keys: All, visible: true },
    PodSite { scope: PodSpec, path: &["volumes", "*", "configMap"], kind: ConfigMap, name_field: "name", keys: Items, visible: true },
    PodSite { scope: PodSpec, path: &["volumes", "*", "secret"], kind: Secret, name_field: "secretName", keys: Items, visible: true },
    PodSite { scope: PodSpec, path: &["volumes", "*", "projected", "sources", "*", "configMap"], kind: ConfigMap, name_field: "name", keys: Items, visible: true },
    PodSite { scope: PodSpec, path: &["volumes", "*", "projected", "sources", "*", "secret"], kind: Secret, name_field: "name", keys: Items, visible: true },
    PodSite { scope: PodSpec, path: &["imagePullSecrets", "*"], kind: Secret, name_field: "name", keys: All, visible: false },
    PodSite { scope: PodSpec, path: &["volumes", "*", "csi", "nodePublishSecretRef"], kind: Secret, name_field: "name", keys: All, visible: false },
    PodSite { scope: PodSpec, path: &["volumes", "*", "csi", "volumeAttributes"], kind: SourceKind::SecretProviderClass, name_field: "secretProviderClass", keys: All, visible: true },
];

/// A built-in name-reference site: (groups, kind, path to the mapping, name key,
/// namespace key, target, form).
type NameSiteRow = (
    &'static [&'static str],
    &'static str,
    &'static [&'static str],
    &'static str,
    Option<&'static str>,
    SourceKind,
    Form,
);

/// Built-in name-reference sites outside pod specs.
#[rustfmt::skip]
const NAME_SITES: &[NameSiteRow] = &[
    (CORE, "ServiceAccount", &["imagePullSecrets"], "name", None, Secret, Form::Name),
    (CORE, "ServiceAccount", &["secrets"], "name", None, Secret, Form::Name),
    (INGRESS, "Ingress", &["spec", "tls"], "secretName", None, Secret, Form::Name),
    (INGRESS, "Ingress", &["metadata", "annotations"], "nginx.ingress.kubernetes.io/auth-secret", None, Secret, Form::MaybeNamespaced),
    (INGRESS, "Ingress", &["metadata", "annotations"], "nginx.ingress.kubernetes.io/auth-tls-secret", None, Secret, Form::MaybeNamespaced),
    (INGRESS, "Ingress", &["metadata", "annotations"], "nginx.ingress.kubernetes.io/fastcgi-params-configmap", None, ConfigMap, Form::MaybeNamespaced),
    (INGRESS, "Ingress", &["metadata", "annotations"], "ingress.kubernetes.io/auth-secret", None, Secret, Form::MaybeNamespaced),
    (STORAGE, "StorageClass", &["parameters"], "secretName", Some("secretNamespace"), Secret, Form::Name),
    (STORAGE, "StorageClass", &["parameters"], "adminSecretName", Some("adminSecretNamespace"), Secret, Form::Name),
    (STORAGE, "StorageClass", &["parameters"], "userSecretName", Some("userSecretNamespace"), Secret, Form::Name),
    (STORAGE, "StorageClass", &["parameters"], "secretRef", Some("secretNamespace"), Secret, Form::Name),
    (CORE, "PersistentVolume", &["spec", "azureFile"], "secretName", Some("secretNamespace"), Secret, Form::Name),
    (CORE, "Node", &["spec", "configSource", "configMap"], "name", Some("namespace"), ConfigMap, Form::Name),
];

/// Role rules name objects in `rules[].resourceNames` for the resource types they grant.
const ROLE_RULES: &[(&str, &str, SourceKind)] = &[
    ("Role", "configmaps", ConfigMap),
    ("Role", "secrets", Secret),
    ("ClusterRole", "configmaps", ConfigMap),
    ("ClusterRole", "secrets", Secret),
];

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// The API group of an `apiVersion` (`apps/v1` -> `apps`, `v1` -> ``).
pub fn group_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(g, _)| g)
}

impl Catalog {
    /// The built-in knowledge.
    pub fn builtin() -> Catalog {
        let workloads = WORKLOADS
            .iter()
            .map(
                |&(groups, kind, template, env_allowed, restart, delegate)| WorkloadKind {
                    groups: strings(groups),
                    kind: kind.to_string(),
                    template: strings(template),
                    env_allowed,
                    restart,
                    delegate,
                    declared_at: None,
                },
            )
            .collect();
        let mut name_sites: Vec<NameSite> = NAME_SITES
            .iter()
            .map(
                |&(groups, kind, path, name_key, ns_key, target, form)| NameSite {
                    groups: strings(groups),
                    kind: kind.to_string(),
                    path: strings(path),
                    name_key: name_key.to_string(),
                    namespace_key: ns_key.map(str::to_string),
                    target,
                    form,
                    rule_resource: None,
                    declared_at: None,
                },
            )
            .collect();
        name_sites.extend(ROLE_RULES.iter().map(|&(kind, resource, target)| NameSite {
            groups: strings(RBAC),
            kind: kind.to_string(),
            path: vec!["rules".to_string()],
            name_key: "resourceNames".to_string(),
            namespace_key: None,
            target,
            form: Form::Name,
            rule_resource: Some(resource),
            declared_at: None,
        }));
        let mut catalog = Catalog {
            workloads,
            pod_sites: POD_SITES.to_vec(),
            name_sites,
            producers: PRODUCERS.to_vec(),
            annotation_sites: ANNOTATION_SITES.to_vec(),
            by_kind: HashMap::new(),
        };
        catalog.reindex();
        catalog
    }

    fn reindex(&mut self) {
        self.by_kind.clear();
        for (i, w) in self.workloads.iter().enumerate() {
            let rows = self.by_kind.entry(w.kind.clone()).or_default();
            rows.workloads.push(i);
        }
        for (i, s) in self.name_sites.iter().enumerate() {
            let rows = self.by_kind.entry(s.kind.clone()).or_default();
            rows.name_sites.push(i);
        }
    }

    /// Adds user entries; a user workload of a built-in kind replaces the built-in row
    /// for that group.
    pub fn extend(&mut self, ext: &Extension) {
        // A (group, kind) belongs to the last entry that declares it: earlier rows, built
        // in or declared, lose that group, and a row left with no group goes.
        let mut last: HashMap<(&str, &str), usize> = HashMap::new();
        for (i, w) in ext.workloads.iter().enumerate() {
            for g in &w.groups {
                last.insert((g.as_str(), w.kind.as_str()), i);
            }
        }
        let claimed = |kind: &str, g: &str, after: Option<usize>| {
            last.get(&(g, kind))
                .is_some_and(|&i| after.is_none_or(|a| i > a))
        };
        let mut rows: Vec<WorkloadKind> = std::mem::take(&mut self.workloads);
        for row in &mut rows {
            row.groups.retain(|g| !claimed(&row.kind, g, None));
        }
        for (i, w) in ext.workloads.iter().enumerate() {
            let mut w = w.clone();
            w.groups.retain(|g| !claimed(&w.kind, g, Some(i)));
            rows.push(w);
        }
        rows.retain(|e| !e.groups.is_empty());
        self.workloads = rows;
        self.name_sites.extend(ext.references.iter().cloned());
        self.reindex();
    }

    /// The row for an object, if it carries a pod template.
    pub fn workload(&self, api_version: &str, kind: &str) -> Option<&WorkloadKind> {
        let group = group_of(api_version);
        self.by_kind
            .get(kind)?
            .workloads
            .iter()
            .map(|&i| &self.workloads[i])
            .find(|w| w.groups.iter().any(|g| g == group))
    }

    /// The name-reference sites for objects of this apiVersion and kind.
    pub fn name_sites_for<'c>(
        &'c self,
        api_version: &str,
        kind: &'c str,
    ) -> impl Iterator<Item = &'c NameSite> + 'c {
        let group = group_of(api_version).to_string();
        self.by_kind
            .get(kind)
            .into_iter()
            .flat_map(|rows| rows.name_sites.iter())
            .map(|&i| &self.name_sites[i])
            .filter(move |s| s.groups.contains(&group))
    }

    /// The producer rows for objects of this apiVersion and kind.
    pub fn producers_for<'c>(
        &'c self,
        api_version: &str,
        kind: &'c str,
    ) -> impl Iterator<Item = &'c Producer> + 'c {
        let group = group_of(api_version).to_string();
        self.producers
            .iter()
            .filter(move |p| p.kind == kind && p.group == group)
    }

    /// True when any name-reference site applies to this kind (a cheap filter).
    pub fn has_name_sites(&self, api_version: &str, kind: &str) -> bool {
        self.name_sites_for(api_version, kind).next().is_some()
    }
}

/// What a user adds to the catalog from the functionConfig.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Extension {
    pub workloads: Vec<WorkloadKind>,
    pub references: Vec<NameSite>,
}

/// A problem with one user entry, naming it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntryError {
    /// `spec.workloads[0].template`.
    pub field: String,
    pub message: String,
}

/// Splits a kustomize fieldSpec path (`spec/template`; `\/` escapes a slash inside a
/// key, as annotation keys need).
pub fn split_path(path: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut chars = path.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'/') => {
                chars.next();
                if let Some(s) = out.last_mut() {
                    s.push('/');
                }
            }
            '/' => out.push(String::new()),
            c => {
                if let Some(s) = out.last_mut() {
                    s.push(c);
                }
            }
        }
    }
    // kustomize writes `containers[]` for a sequence it walks; we walk sequences anyway.
    out.into_iter()
        .map(|s| s.strip_suffix("[]").map(str::to_string).unwrap_or(s))
        .collect()
}

const WORKLOAD_FIELDS: &[&str] = &["group", "version", "kind", "template"];
const REFERENCE_FIELDS: &[&str] = &["kind", "version", "group", "fieldSpecs"];
const FIELD_SPEC_FIELDS: &[&str] = &["group", "version", "kind", "path", "create"];

/// Reads `spec.workloads` and `spec.references` of a ConfigHash functionConfig. Every
/// bad entry is reported, not only the first.
pub fn read_extension(
    tree: &Tree<'_>,
    workloads: Option<NodeId>,
    references: Option<NodeId>,
    section: &str,
) -> Result<Extension, Vec<EntryError>> {
    let mut ext = Extension::default();
    let mut errors = Vec::new();
    let text = |node: NodeId, key: &str| tree.get(node, key).and_then(|n| tree.str(n));
    let unknown_fields = |node: NodeId, at: &str, allowed: &[&str], errors: &mut Vec<_>| {
        for (k, _) in tree.entries(node) {
            let key = tree.str(k).unwrap_or("");
            if !allowed.contains(&key) {
                errors.push(EntryError {
                    field: format!("{at}.{key}"),
                    message: format!(
                        "{at}.{key}: unknown field; accepted fields: {}",
                        allowed.join(", ")
                    ),
                });
            }
        }
    };
    if let Some(list) = workloads.filter(|&n| !tree.is_null(n)) {
        if !tree.is_seq(list) {
            errors.push(EntryError {
                field: format!("{section}.workloads"),
                message: format!(
                    "{section}.workloads must be a list of {{group, kind, template}} entries"
                ),
            });
        }
        for (i, &entry) in tree.items(list).iter().enumerate() {
            let at = format!("{section}.workloads[{i}]");
            if !tree.is_map(entry) {
                errors.push(EntryError {
                    field: at.clone(),
                    message: format!("{at} must be a mapping with group, kind and template"),
                });
                continue;
            }
            unknown_fields(entry, &at, WORKLOAD_FIELDS, &mut errors);
            let kind = text(entry, "kind").unwrap_or("");
            let template = text(entry, "template").unwrap_or("");
            if kind.is_empty() {
                errors.push(EntryError {
                    field: format!("{at}.kind"),
                    message: format!(
                        "{at}.kind is required (the kind that carries a pod template)"
                    ),
                });
            }
            let steps = split_path(template);
            if template.is_empty() || steps.iter().any(String::is_empty) {
                errors.push(EntryError {
                    field: format!("{at}.template"),
                    message: format!(
                        "{at}.template must be a slash-separated path to the pod template, such as spec/template"
                    ),
                });
                continue;
            }
            ext.workloads.push(WorkloadKind {
                groups: vec![text(entry, "group").unwrap_or("").to_string()],
                kind: kind.to_string(),
                template: steps,
                env_allowed: true,
                restart: Restart::Template,
                delegate: None,
                declared_at: Some(at),
            });
        }
    }
    if let Some(list) = references.filter(|&n| !tree.is_null(n)) {
        if !tree.is_seq(list) {
            errors.push(EntryError {
                field: format!("{section}.references"),
                message: format!(
                    "{section}.references must be a list of {{kind, fieldSpecs}} entries (kustomize's nameReference shape)"
                ),
            });
        }
        for (i, &entry) in tree.items(list).iter().enumerate() {
            let at = format!("{section}.references[{i}]");
            if !tree.is_map(entry) {
                errors.push(EntryError {
                    field: at.clone(),
                    message: format!("{at} must be a mapping with kind and fieldSpecs"),
                });
                continue;
            }
            unknown_fields(entry, &at, REFERENCE_FIELDS, &mut errors);
            let Some(target) = text(entry, "kind").and_then(SourceKind::from_name) else {
                errors.push(EntryError {
                    field: format!("{at}.kind"),
                    message: format!(
                        "{at}.kind must be ConfigMap or Secret (the kind the fields name)"
                    ),
                });
                continue;
            };
            let specs = tree.get(entry, "fieldSpecs");
            if specs.is_none_or(|s| !tree.is_seq(s) || tree.items(s).is_empty()) {
                errors.push(EntryError {
                    field: format!("{at}.fieldSpecs"),
                    message: format!(
                        "{at}.fieldSpecs must be a non-empty list of {{group, kind, path}}"
                    ),
                });
                continue;
            }
            for (j, &spec) in specs
                .map(|s| tree.items(s))
                .unwrap_or_default()
                .iter()
                .enumerate()
            {
                let at = format!("{at}.fieldSpecs[{j}]");
                if !tree.is_map(spec) {
                    errors.push(EntryError {
                        field: at.clone(),
                        message: format!("{at} must be a mapping with group, kind and path"),
                    });
                    continue;
                }
                unknown_fields(spec, &at, FIELD_SPEC_FIELDS, &mut errors);
                let kind = text(spec, "kind").unwrap_or("");
                let mut steps = split_path(text(spec, "path").unwrap_or(""));
                if kind.is_empty() {
                    errors.push(EntryError {
                        field: format!("{at}.kind"),
                        message: format!(
                            "{at}.kind is required (the kind whose field names a {})",
                            target.as_str()
                        ),
                    });
                }
                if steps.iter().any(String::is_empty) {
                    errors.push(EntryError {
                        field: format!("{at}.path"),
                        message: format!(
                            "{at}.path must be a slash-separated path to the name, such as spec/configRef/name"
                        ),
                    });
                    continue;
                }
                let name_key = steps.pop().unwrap_or_default();
                ext.references.push(NameSite {
                    groups: vec![text(spec, "group").unwrap_or("").to_string()],
                    kind: kind.to_string(),
                    path: steps,
                    name_key,
                    namespace_key: None,
                    target,
                    form: Form::Name,
                    rule_resource: None,
                    declared_at: Some(at),
                });
            }
        }
    }
    if errors.is_empty() {
        Ok(ext)
    } else {
        Err(errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_kinds_by_group_and_kind() {
        let c = Catalog::builtin();
        assert_eq!(
            c.workload("apps/v1", "Deployment").unwrap().template,
            ["spec", "template"]
        );
        assert_eq!(c.workload("batch/v1", "CronJob").unwrap().template.len(), 4);
        assert!(!c.workload("v1", "Pod").unwrap().env_allowed);
        // A core Service is not a Knative Service.
        assert!(c.workload("v1", "Service").is_none());
        assert!(c.workload("serving.knative.dev/v1", "Service").is_some());
        assert!(c.workload("example.com/v1", "Deployment").is_none());
        // OpenKruise's Advanced StatefulSet is not apps' StatefulSet.
        assert_eq!(
            c.workload("apps.kruise.io/v1beta1", "StatefulSet")
                .unwrap()
                .restart,
            Restart::DownwardApi
        );
        assert_eq!(
            c.workload("apps/v1", "StatefulSet").unwrap().restart,
            Restart::Template
        );
        assert_eq!(
            c.workload("keda.sh/v1alpha1", "ScaledJob")
                .unwrap()
                .template,
            ["spec", "jobTargetRef", "template"]
        );
        assert!(
            c.producers_for("bitnami.com/v1alpha1", "SealedSecret")
                .next()
                .is_some()
        );
        assert!(
            c.producers_for("example.com/v1", "SealedSecret")
                .next()
                .is_none()
        );
    }

    #[test]
    fn fieldspec_paths_split_on_unescaped_slashes() {
        assert_eq!(split_path("spec/template"), ["spec", "template"]);
        assert_eq!(
            split_path("spec/containers[]/env/name"),
            ["spec", "containers", "env", "name"]
        );
        assert_eq!(
            split_path("metadata/annotations/example.com\\/secret"),
            ["metadata", "annotations", "example.com/secret"]
        );
        assert_eq!(split_path(""), [""]);
    }

    fn ext(src: &str) -> Result<Extension, Vec<EntryError>> {
        let tree = Tree::parse(src).unwrap();
        let root = tree.docs[0].root;
        read_extension(
            &tree,
            tree.get(root, "workloads"),
            tree.get(root, "references"),
            "spec",
        )
    }

    #[test]
    fn user_entries_extend_the_catalog() {
        let e = ext("workloads:\n- {group: example.com, kind: Widget, template: spec/podTemplate}\nreferences:\n- kind: Secret\n  fieldSpecs:\n  - {group: example.com, kind: Widget, path: spec/auth/secretName}\n").unwrap();
        let mut c = Catalog::builtin();
        c.extend(&e);
        let w = c.workload("example.com/v1", "Widget").unwrap();
        assert_eq!(w.template, ["spec", "podTemplate"]);
        assert_eq!(w.spec_field(), "spec.podTemplate.spec");
        assert_eq!(w.declared_at.as_deref(), Some("spec.workloads[0]"));
        let site = c.name_sites_for("example.com/v1", "Widget").next().unwrap();
        assert_eq!(
            (site.path.as_slice(), site.name_key.as_str(), site.target),
            (
                &["spec".to_string(), "auth".to_string()][..],
                "secretName",
                SourceKind::Secret
            )
        );
        assert!(!c.has_name_sites("other.com/v1", "Widget"));
    }

    #[test]
    fn the_last_entry_for_a_group_and_kind_wins() {
        // A user row for apps/Deployment replaces the built-in row for that group only;
        // a later user row for the same group and kind replaces the earlier one.
        let e = ext("workloads:\n- {group: apps, kind: Deployment, template: spec/a}\n- {group: example.com, kind: Deployment, template: spec/b}\n- {group: apps, kind: Deployment, template: spec/c}\n").unwrap();
        let mut c = Catalog::builtin();
        c.extend(&e);
        let template = |api: &str| c.workload(api, "Deployment").map(|w| w.template.join("/"));
        assert_eq!(template("apps/v1").as_deref(), Some("spec/c"));
        assert_eq!(template("example.com/v1").as_deref(), Some("spec/b"));
        assert_eq!(
            template("extensions/v1beta1").as_deref(),
            Some("spec/template")
        );
        let deployments: Vec<&str> = c
            .workloads
            .iter()
            .filter(|w| w.kind == "Deployment")
            .map(|w| w.declared_at.as_deref().unwrap_or("built-in"))
            .collect();
        assert_eq!(
            deployments,
            ["built-in", "spec.workloads[1]", "spec.workloads[2]"]
        );
    }

    #[test]
    fn every_bad_entry_is_reported_by_name() {
        let errs = ext("workloads:\n- {kind: Widget, template: ''}\n- {kind: Gadget, template: spec/t, colour: red}\nreferences:\n- kind: Pod\n  fieldSpecs: [{kind: X, path: a}]\n- kind: ConfigMap\n  fieldSpecs: []\n").unwrap_err();
        let fields: Vec<&str> = errs.iter().map(|e| e.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "spec.workloads[0].template",
                "spec.workloads[1].colour",
                "spec.references[0].kind",
                "spec.references[1].fieldSpecs"
            ]
        );
        assert!(
            errs[1].message.contains("accepted fields: group"),
            "{errs:?}"
        );
    }
}
