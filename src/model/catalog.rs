//! What the function knows about Kubernetes, as data in one place: which kinds carry a
//! pod template and where, where a pod spec names a ConfigMap or Secret and what the pod
//! then sees, where any object names one (what renaming rewrites), which objects produce
//! Secrets, and which annotations list extra dependencies. Every row is owned data with
//! paths in one language (kustomize's fieldSpec paths), so a user's rows, declared in
//! the functionConfig (see [`crate::model::extension`]), are rows like the built-in ones.

use std::collections::HashMap;

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

    /// ConfigMap or Secret by name: the kinds a user's entry may name.
    pub fn from_name(kind: &str) -> Option<SourceKind> {
        match kind {
            "ConfigMap" => Some(SourceKind::ConfigMap),
            "Secret" => Some(SourceKind::Secret),
            _ => None,
        }
    }
}

/// A path in kustomize's fieldSpec language, the one every row of the catalog uses:
/// keys separated by `/` (`\/` is a `/` inside a key, as annotation keys need), every
/// sequence met on the way walked item by item; `containers[]` is accepted too and reads
/// as `containers`. So the `nameReference` entries of a kustomize `configurations:` file
/// paste as they are.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct FieldPath(Vec<String>);

impl FieldPath {
    /// The path written `text`, for rows written here (an empty step is kept as one).
    pub fn of(text: &str) -> FieldPath {
        let mut out = vec![String::new()];
        let mut chars = text.chars().peekable();
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
        if text.is_empty() {
            out.clear();
        }
        // kustomize writes `containers[]` for a sequence it walks; every path walks them.
        FieldPath(
            out.into_iter()
                .map(|s| s.strip_suffix("[]").map(str::to_string).unwrap_or(s))
                .collect(),
        )
    }

    /// A path a user wrote: `Err` when it is empty or has an empty step.
    pub fn parse(text: &str) -> Result<FieldPath, &'static str> {
        let path = FieldPath::of(text);
        if path.0.is_empty() || path.0.iter().any(String::is_empty) {
            return Err("a slash-separated path of keys, with no empty step");
        }
        Ok(path)
    }

    pub fn steps(&self) -> &[String] {
        &self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The path without its last step, and that step.
    pub fn split_last(&self) -> Option<(FieldPath, &str)> {
        let (last, rest) = self.0.split_last()?;
        Some((FieldPath(rest.to_vec()), last))
    }

    /// The path as a field path in messages: `spec.template`.
    pub fn dotted(&self) -> String {
        self.0.join(".")
    }
}

impl std::fmt::Display for FieldPath {
    /// As written: `spec/template`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, step) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("/")?;
            }
            f.write_str(&step.replace('/', "\\/"))?;
        }
        Ok(())
    }
}

/// A kind that carries a pod template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkloadKind {
    /// API groups the kind is served under (`""` is the core group).
    pub groups: Vec<String>,
    pub kind: String,
    /// From the object to the pod template (the mapping holding `metadata` and `spec`);
    /// empty for a Pod, which is its own template.
    pub template: FieldPath,
    /// False where the pod spec cannot change after creation (a bare Pod), so an env var
    /// would not roll anything and only the annotation applies.
    pub env_allowed: bool,
    /// What makes a changed hash reach the running containers.
    pub restart: Restart,
    /// Where the object may name another workload whose pod template runs in its place
    /// (an Argo Rollout's `spec.workloadRef`).
    pub delegate: Option<FieldPath>,
    /// A changed pod template replaces running pods: false for a bare Pod (its spec is
    /// fixed) and a CronJob (its pods start afresh at every scheduled run, reading what
    /// the ConfigMaps and Secrets hold then), where a roll trigger means nothing.
    pub rolls: bool,
    /// What in the object's own spec can keep a changed stamp from rolling it now.
    pub holds: Vec<Hold>,
    /// Where a user declared it (`spec.workloads[0]`), for messages; `None` for built-ins.
    pub declared_at: Option<String>,
}

/// What in a workload's own spec can keep a changed pod template from rolling its pods
/// now (Kubernetes' update strategies).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hold {
    /// `spec.updateStrategy.type: OnDelete`: a pod gets the change only when deleted.
    OnDelete,
    /// `spec.updateStrategy.rollingUpdate.partition` at or above `spec.replicas` (which
    /// defaults to 1): no ordinal is updated.
    Partition,
    /// `spec.paused: true`: no rollout starts until it is resumed.
    Paused,
    /// The change reaches the Jobs it starts from the next scheduled run on.
    NextSchedule,
}

impl WorkloadKind {
    /// The pod template's field path, `spec.template`.
    pub fn template_field(&self) -> String {
        self.template.dotted()
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

/// Which keys of the object a pod-spec reference lets the pod see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeySel {
    /// A single key, named by this sibling of the name.
    Field(String),
    /// The `key` of each `items` entry; every key when `items` is absent or empty.
    Items,
    All,
}

/// One place in a pod spec that names a ConfigMap or Secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodSite {
    /// From the pod spec to the name. A path that starts at `containers` applies to
    /// `initContainers` and `ephemeralContainers` alike.
    pub path: FieldPath,
    pub kind: SourceKind,
    pub keys: KeySel,
    /// False for references that give the pod no content (image pull secrets, CSI
    /// credentials): renamed with the object, but not hashed.
    pub visible: bool,
    /// Where a user declared it (`spec.podReferences[0]`); `None` for built-ins.
    pub declared_at: Option<String>,
}

impl PodSite {
    /// Whether the path starts under each container.
    pub fn in_containers(&self) -> bool {
        self.path.steps().first().map(String::as_str) == Some(CONTAINERS)
    }
}

/// The container lists of a pod spec: the first is what a site path starting at
/// `containers` names, and it applies to all three.
pub const CONTAINER_LISTS: &[&str] = &["containers", "initContainers", "ephemeralContainers"];
const CONTAINERS: &str = "containers";

/// How a name is written at a name-reference site.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    Name,
    /// `name` or `namespace/name` (ingress-nginx annotations).
    MaybeNamespaced,
}

/// Where a referrer finds the objects it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scoped {
    /// In its own namespace (a Role, an Ingress, a user-declared kind).
    Namespaced,
    /// The referrer is cluster-scoped (a ClusterRole, a StorageClass): an object of any
    /// namespace, unless a sibling field names one.
    Cluster,
}

/// A field outside pod specs that names a ConfigMap or Secret: renaming rewrites it and
/// `graph` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameSite {
    pub groups: Vec<String>,
    pub kind: String,
    /// From the object to the name: a string, a list of them, or a mapping with `name`
    /// (and `namespace`), as kustomize reads it.
    pub path: FieldPath,
    /// A sibling of the name giving the object's namespace.
    pub namespace_key: Option<String>,
    pub target: SourceKind,
    pub form: Form,
    pub scope: Scoped,
    /// Role rules: names in `resourceNames` count only in rules that grant this
    /// resource (kustomize rewrites any rule's).
    pub rule_resource: Option<String>,
    /// Where a user declared it (`spec.references[0].fieldSpecs[1]`); `None` for built-ins.
    pub declared_at: Option<String>,
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Open {
    Never,
    /// When this field is present (ExternalSecret `dataFrom`).
    When(FieldPath),
    /// Always: its keys are not in git (a certificate's files).
    Always,
}

/// A kind of object that makes a Secret (or is itself read by pods) from what git holds:
/// pass 1 indexes what it produces as a source, so references to it resolve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Producer {
    pub group: String,
    pub kind: String,
    pub produces: SourceKind,
    /// A list whose items each produce one object; `None`: the object produces one.
    pub each: Option<FieldPath>,
    /// The produced object's name, relative to the list item or the object; the
    /// producer's own name when `None` or absent. Its namespace is the producer's.
    pub name: Option<FieldPath>,
    /// Where its keys are, relative to the list item or the object: the keys of a
    /// mapping, or strings (`spec/data/secretKey` walks a list).
    pub keys: Vec<FieldPath>,
    pub open: Open,
    /// Where the Secret's type is written.
    pub secret_type: Option<FieldPath>,
    /// The Secret's type when that field is absent or unset: `Opaque`, or the one type
    /// the producer ever makes (a cert-manager Certificate's `kubernetes.io/tls`).
    pub default_type: String,
    pub hashed: Hashed,
    /// The content can change outside git (a value in an external store).
    pub runtime: bool,
    /// It makes nothing when this field holds one of these values (an ExternalSecret
    /// with `creationPolicy: Merge` or `None` writes into a Secret made elsewhere).
    pub unless: Option<(FieldPath, Vec<String>)>,
    /// It makes something only when this field holds one of these values (a Vault
    /// Secrets Operator object makes its Secret only with `destination.create: true`;
    /// otherwise it writes into a Secret that must exist already).
    pub when: Option<(FieldPath, Vec<String>)>,
    /// Where a user declared it (`spec.producers[0]`); `None` for built-ins.
    pub declared_at: Option<String>,
}

/// A workload annotation listing objects the app reads through the API rather than the
/// pod spec: each is hashed like an `envFrom` of the whole object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnnotationSite {
    pub key: String,
    pub kind: SourceKind,
    /// The tool whose annotation it is, for messages.
    pub tool: String,
    /// The tool accepts regular expressions there; config-hash reads exact names only.
    pub regex: bool,
}

/// Kubernetes' cluster-scoped kinds: written without a namespace they have none, so
/// the namespace objects without one are installed into (`namespace`) is not theirs.
pub const CLUSTER_SCOPED: &[&str] = &[
    "Namespace",
    "Node",
    "PersistentVolume",
    "ClusterRole",
    "ClusterRoleBinding",
    "StorageClass",
    "CSIDriver",
    "CSINode",
    "VolumeAttachment",
    "PriorityClass",
    "RuntimeClass",
    "IngressClass",
    "CustomResourceDefinition",
    "APIService",
    "MutatingWebhookConfiguration",
    "ValidatingWebhookConfiguration",
    "ValidatingAdmissionPolicy",
    "ValidatingAdmissionPolicyBinding",
    "CertificateSigningRequest",
    "FlowSchema",
    "PriorityLevelConfiguration",
];

/// Secret types Kubernetes finds by exact name: a bootstrap token is looked up as
/// `bootstrap-token-<id>` in `kube-system`, and a service account token Secret is bound
/// to its ServiceAccount by name. A hashed name would break them, so they never get one.
pub const NAMED_BY_KUBERNETES: &[&str] = &[
    "bootstrap.kubernetes.io/token",
    "kubernetes.io/service-account-token",
];

/// Objects Kubernetes publishes in every namespace itself, never in a render: the
/// cluster's CA bundle (`kube-root-ca.crt`, which every projected service account token
/// volume mounts). A reference to one is not missing, and hashes nothing (its content is
/// the cluster's, not the render's).
pub const PUBLISHED_BY_CLUSTER: &[(SourceKind, &str)] =
    &[(SourceKind::ConfigMap, "kube-root-ca.crt")];

/// Whether the cluster publishes an object of this kind and name in every namespace.
pub fn published_by_cluster(kind: SourceKind, name: &str) -> bool {
    PUBLISHED_BY_CLUSTER.contains(&(kind, name))
}

/// The key an env var's `configMapKeyRef` or `secretKeyRef` names to ask for the hash of
/// the whole object instead of one key (the `__data` convention).
pub const WHOLE_OBJECT_KEY: &str = "__data";

/// Where an old name left in a field may be a reference the user must answer for, and
/// where it cannot be: the old-name warning asks only where a field can name a ConfigMap
/// or Secret that the catalog does not know.
pub mod mentions {
    /// The API groups of Kubernetes itself: every field of their kinds that can name a
    /// ConfigMap or Secret is a site of the catalog, so only free text (annotations, and
    /// in a pod spec the env values and arguments below) can hold another reference.
    pub const BUILTIN_GROUPS: &[&str] = &[
        "",
        "apps",
        "batch",
        "extensions",
        "networking.k8s.io",
        "policy",
        "rbac.authorization.k8s.io",
        "storage.k8s.io",
        "autoscaling",
        "scheduling.k8s.io",
        "node.k8s.io",
        "coordination.k8s.io",
        "discovery.k8s.io",
        "admissionregistration.k8s.io",
        "apiregistration.k8s.io",
        "apiextensions.k8s.io",
        "certificates.k8s.io",
        "events.k8s.io",
        "flowcontrol.apiserver.k8s.io",
        "resource.k8s.io",
    ];

    /// Keys whose whole value is labels or a selector: names there match labels, they
    /// never name an object.
    pub const LABEL_KEYS: &[&str] = &[
        "labels",
        "selector",
        "matchLabels",
        "matchExpressions",
        "nodeSelector",
        "podSelector",
        "namespaceSelector",
        "labelSelector",
    ];

    /// Keys that name something other than a ConfigMap or Secret, in any kind.
    pub const OTHER_NAMES: &[&str] = &[
        "serviceAccountName",
        "serviceAccount",
        "claimName",
        "serviceName",
        "hostname",
        "subdomain",
        "image",
        "mountPath",
        "subPath",
        "containerName",
        "storageClassName",
        "priorityClassName",
        "schedulerName",
        "runtimeClassName",
        "ingressClassName",
        "volumeName",
        "nodeName",
    ];

    /// Lists whose items' `name` is the item's own name (a container, a volume, a port,
    /// an env var), not a reference.
    pub const NAMED_LISTS: &[&str] = &[
        "containers",
        "initContainers",
        "ephemeralContainers",
        "volumes",
        "volumeMounts",
        "volumeDevices",
        "ports",
        "env",
        "resourceClaims",
    ];

    /// Words that, in an env var's name or a command-line flag, say that its value
    /// names configuration: `CONFIG_LOGGING_NAME`, `--secret-name`.
    pub const CONFIG_WORDS: &[&str] = &["config", "secret"];
}

/// Every annotation key the function reads or writes, spelled once. Those that name
/// extra dependencies are rows of the annotation sites; these are the rest.
pub mod annotations {
    use super::SourceKind;

    /// Where the hash is written unless `annotationKey` says otherwise.
    pub const HASH: &str = "config-hash.dev/hash";
    /// On a workload: leave it untouched.
    pub const SKIP: &str = "config-hash.dev/skip";
    /// On a ConfigMap or Secret: keep it out of every hash. Ours, and Reloader's, which
    /// means the same to Reloader.
    pub const IGNORE: &[&str] = &["config-hash.dev/ignore", "reloader.stakater.com/ignore"];
    /// On a ConfigMap or Secret: keys (comma-separated) no pod's hash covers, unless a
    /// pod reads them through a `subPath` mount.
    pub const IGNORE_KEYS: &str = "config-hash.dev/ignore-keys";
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
    /// On a workload: `diff` lets it roll only with `--allow-protected`.
    pub const PROTECTED: &str = "config-hash.dev/protected";
    /// Helm's convention: a pod-template annotation holding a checksum of the config.
    pub const CHECKSUM_PREFIX: &str = "checksum/";
    /// Annotations (on the workload or its pod template) with which Reloader restarts a
    /// workload when what it reads changes: `true` for the first group, a list of names
    /// for the second.
    pub const RELOADER_ON: &[&str] = &[
        "reloader.stakater.com/auto",
        "reloader.stakater.com/search",
        "configmap.reloader.stakater.com/auto",
        "secret.reloader.stakater.com/auto",
    ];
    // The second group is RELOADER_KEYS (the lists `runtimeReload: reloader` writes).
    /// wave's opt-in (`"true"`), on the workload.
    pub const WAVE: &str = "wave.pusher.com/update-on-config-change";
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

const APPS: &str = "apps,extensions";
const CORE: &str = "";
const INGRESS: &str = "networking.k8s.io,extensions";
const KRUISE: &str = "apps.kruise.io";
const TEMPLATE: &str = "spec/template";

/// A row of [`WORKLOADS`].
type WorkloadRow = (
    &'static str,
    &'static str,
    &'static str,
    bool,
    Restart,
    &'static str,
    bool,
    &'static [Hold],
);

/// Built-in workload kinds: (groups, kind, template, env allowed, restart, delegate,
/// rolls, holds). Third-party rows show that a CRD is only data; each was checked against
/// its project's documentation (docs, "What it finds").
#[rustfmt::skip]
const WORKLOADS: &[WorkloadRow] = &[
    (CORE, "Pod", "", false, Restart::Template, "", false, &[]),
    (CORE, "PodTemplate", "template", true, Restart::Template, "", true, &[]),
    (CORE, "ReplicationController", TEMPLATE, true, Restart::Template, "", true, &[]),
    (APPS, "Deployment", TEMPLATE, true, Restart::Template, "", true, &[Hold::Paused]),
    (APPS, "DaemonSet", TEMPLATE, true, Restart::Template, "", true, &[Hold::OnDelete]),
    (APPS, "ReplicaSet", TEMPLATE, true, Restart::Template, "", true, &[]),
    ("apps", "StatefulSet", TEMPLATE, true, Restart::Template, "", true, &[Hold::OnDelete, Hold::Partition]),
    ("batch", "Job", TEMPLATE, true, Restart::NewObject, "", true, &[]),
    ("batch", "CronJob", "spec/jobTemplate/spec/template", true, Restart::Template, "", false, &[Hold::NextSchedule]),
    ("argoproj.io", "Rollout", TEMPLATE, true, Restart::Template, "spec/workloadRef", true, &[]),
    ("serving.knative.dev", "Service", TEMPLATE, true, Restart::Template, "", true, &[]),
    (KRUISE, "CloneSet", TEMPLATE, true, Restart::DownwardApi, "", true, &[]),
    (KRUISE, "StatefulSet", TEMPLATE, true, Restart::DownwardApi, "", true, &[]),
    (KRUISE, "DaemonSet", TEMPLATE, true, Restart::DownwardApi, "", true, &[]),
    ("keda.sh", "ScaledJob", "spec/jobTargetRef/template", true, Restart::Template, "", true, &[]),
];

/// Built-in pod-spec reference sites: (path from the pod spec to the name, kind, keys
/// seen, the pod sees content). Paths under `containers` cover every container list.
#[rustfmt::skip]
const POD_SITES: &[(&str, SourceKind, &str, bool)] = &[
    ("containers/env/valueFrom/configMapKeyRef/name", SourceKind::ConfigMap, "key", true),
    ("containers/env/valueFrom/secretKeyRef/name", SourceKind::Secret, "key", true),
    ("containers/envFrom/configMapRef/name", SourceKind::ConfigMap, ALL, true),
    ("containers/envFrom/secretRef/name", SourceKind::Secret, ALL, true),
    ("volumes/configMap/name", SourceKind::ConfigMap, ITEMS, true),
    ("volumes/secret/secretName", SourceKind::Secret, ITEMS, true),
    ("volumes/projected/sources/configMap/name", SourceKind::ConfigMap, ITEMS, true),
    ("volumes/projected/sources/secret/name", SourceKind::Secret, ITEMS, true),
    ("imagePullSecrets/name", SourceKind::Secret, ALL, false),
    ("volumes/csi/nodePublishSecretRef/name", SourceKind::Secret, ALL, false),
    // The credentials of in-tree volume plugins (k8s.io/api core/v1: ISCSIVolumeSource,
    // FlexVolumeSource, CephFSVolumeSource, RBDVolumeSource, ScaleIOVolumeSource,
    // StorageOSVolumeSource and CinderVolumeSource `secretRef`, a LocalObjectReference; AzureFileVolumeSource
    // `secretName`): the kubelet reads them to mount the volume, the pod never sees them.
    ("volumes/iscsi/secretRef/name", SourceKind::Secret, ALL, false),
    ("volumes/flexVolume/secretRef/name", SourceKind::Secret, ALL, false),
    ("volumes/cephfs/secretRef/name", SourceKind::Secret, ALL, false),
    ("volumes/rbd/secretRef/name", SourceKind::Secret, ALL, false),
    ("volumes/scaleIO/secretRef/name", SourceKind::Secret, ALL, false),
    ("volumes/storageos/secretRef/name", SourceKind::Secret, ALL, false),
    ("volumes/cinder/secretRef/name", SourceKind::Secret, ALL, false),
    ("volumes/azureFile/secretName", SourceKind::Secret, ALL, false),
    ("volumes/csi/volumeAttributes/secretProviderClass", SourceKind::SecretProviderClass, ALL, true),
];

/// The key selectors of the tables: every key, or the `items` entries' keys; any other
/// word names the sibling field that holds one key.
const ALL: &str = "*";
const ITEMS: &str = "items[].key";

impl KeySel {
    /// As the tables and a user's `keys:` write it.
    pub fn of(text: &str) -> KeySel {
        match text {
            ALL | "" => KeySel::All,
            ITEMS => KeySel::Items,
            field => KeySel::Field(field.to_string()),
        }
    }
}

/// Built-in name-reference sites outside pod specs: kustomize's table for ConfigMaps and
/// Secrets (its `namereference.go`), and more that it misses: (groups, kind, path,
/// namespace sibling, target, form, scope). An empty group list is kustomize's "any
/// group".
#[rustfmt::skip]
const NAME_SITES: &[(&str, &str, &str, &str, SourceKind, Form, Scoped)] = &[
    (CORE, "ServiceAccount", "imagePullSecrets/name", "", SourceKind::Secret, Form::Name, Scoped::Namespaced),
    // Not in kustomize's table: the token Secrets a ServiceAccount lists.
    (CORE, "ServiceAccount", "secrets/name", "", SourceKind::Secret, Form::Name, Scoped::Namespaced),
    (INGRESS, "Ingress", "spec/tls/secretName", "", SourceKind::Secret, Form::Name, Scoped::Namespaced),
    (INGRESS, "Ingress", "metadata/annotations/nginx.ingress.kubernetes.io\\/auth-secret", "", SourceKind::Secret, Form::MaybeNamespaced, Scoped::Namespaced),
    (INGRESS, "Ingress", "metadata/annotations/nginx.ingress.kubernetes.io\\/auth-tls-secret", "", SourceKind::Secret, Form::MaybeNamespaced, Scoped::Namespaced),
    (INGRESS, "Ingress", "metadata/annotations/nginx.ingress.kubernetes.io\\/fastcgi-params-configmap", "", SourceKind::ConfigMap, Form::MaybeNamespaced, Scoped::Namespaced),
    (INGRESS, "Ingress", "metadata/annotations/ingress.kubernetes.io\\/auth-secret", "", SourceKind::Secret, Form::MaybeNamespaced, Scoped::Namespaced),
    ("storage.k8s.io", "StorageClass", "parameters/secretName", "secretNamespace", SourceKind::Secret, Form::Name, Scoped::Cluster),
    ("storage.k8s.io", "StorageClass", "parameters/adminSecretName", "adminSecretNamespace", SourceKind::Secret, Form::Name, Scoped::Cluster),
    ("storage.k8s.io", "StorageClass", "parameters/userSecretName", "userSecretNamespace", SourceKind::Secret, Form::Name, Scoped::Cluster),
    ("storage.k8s.io", "StorageClass", "parameters/secretRef", "secretNamespace", SourceKind::Secret, Form::Name, Scoped::Cluster),
    // Not in kustomize's table: the CSI external-provisioner's Secret parameters, each
    // with its namespace parameter (a template such as `${pvc.name}` names nothing here).
    ("storage.k8s.io", "StorageClass", "parameters/csi.storage.k8s.io\\/provisioner-secret-name", "csi.storage.k8s.io/provisioner-secret-namespace", SourceKind::Secret, Form::Name, Scoped::Cluster),
    ("storage.k8s.io", "StorageClass", "parameters/csi.storage.k8s.io\\/controller-publish-secret-name", "csi.storage.k8s.io/controller-publish-secret-namespace", SourceKind::Secret, Form::Name, Scoped::Cluster),
    ("storage.k8s.io", "StorageClass", "parameters/csi.storage.k8s.io\\/node-stage-secret-name", "csi.storage.k8s.io/node-stage-secret-namespace", SourceKind::Secret, Form::Name, Scoped::Cluster),
    ("storage.k8s.io", "StorageClass", "parameters/csi.storage.k8s.io\\/node-publish-secret-name", "csi.storage.k8s.io/node-publish-secret-namespace", SourceKind::Secret, Form::Name, Scoped::Cluster),
    ("storage.k8s.io", "StorageClass", "parameters/csi.storage.k8s.io\\/controller-expand-secret-name", "csi.storage.k8s.io/controller-expand-secret-namespace", SourceKind::Secret, Form::Name, Scoped::Cluster),
    ("storage.k8s.io", "StorageClass", "parameters/csi.storage.k8s.io\\/node-expand-secret-name", "csi.storage.k8s.io/node-expand-secret-namespace", SourceKind::Secret, Form::Name, Scoped::Cluster),
    (CORE, "PersistentVolume", "spec/azureFile/secretName", "secretNamespace", SourceKind::Secret, Form::Name, Scoped::Cluster),
    // Not in kustomize's table: a PersistentVolume's Secrets (k8s.io/api core/v1
    // CSIPersistentVolumeSource's five `*SecretRef`, and the `secretRef` of the in-tree
    // ISCSI, CephFS, RBD, ScaleIO, StorageOS, Flex and Cinder persistent volume sources), each
    // `{name, namespace}`. Without a namespace the kubelet looks in the namespace of the
    // pod that mounts it, which the volume does not say: any namespace, as for other
    // cluster-scoped referrers.
    (CORE, "PersistentVolume", "spec/csi/controllerPublishSecretRef", "", SourceKind::Secret, Form::Name, Scoped::Cluster),
    (CORE, "PersistentVolume", "spec/csi/nodeStageSecretRef", "", SourceKind::Secret, Form::Name, Scoped::Cluster),
    (CORE, "PersistentVolume", "spec/csi/nodePublishSecretRef", "", SourceKind::Secret, Form::Name, Scoped::Cluster),
    (CORE, "PersistentVolume", "spec/csi/controllerExpandSecretRef", "", SourceKind::Secret, Form::Name, Scoped::Cluster),
    (CORE, "PersistentVolume", "spec/csi/nodeExpandSecretRef", "", SourceKind::Secret, Form::Name, Scoped::Cluster),
    (CORE, "PersistentVolume", "spec/iscsi/secretRef", "", SourceKind::Secret, Form::Name, Scoped::Cluster),
    (CORE, "PersistentVolume", "spec/cephfs/secretRef", "", SourceKind::Secret, Form::Name, Scoped::Cluster),
    (CORE, "PersistentVolume", "spec/rbd/secretRef", "", SourceKind::Secret, Form::Name, Scoped::Cluster),
    (CORE, "PersistentVolume", "spec/scaleIO/secretRef", "", SourceKind::Secret, Form::Name, Scoped::Cluster),
    (CORE, "PersistentVolume", "spec/storageos/secretRef", "", SourceKind::Secret, Form::Name, Scoped::Cluster),
    (CORE, "PersistentVolume", "spec/flexVolume/secretRef", "", SourceKind::Secret, Form::Name, Scoped::Cluster),
    (CORE, "PersistentVolume", "spec/cinder/secretRef", "", SourceKind::Secret, Form::Name, Scoped::Cluster),
    (CORE, "Node", "spec/configSource/configMap", "", SourceKind::ConfigMap, Form::Name, Scoped::Cluster),
];

/// Role rules name objects in `rules[].resourceNames` for the resource types they grant:
/// (kind, resource, target, scope).
const ROLE_RULES: &[(&str, &str, SourceKind, Scoped)] = &[
    (
        "Role",
        "configmaps",
        SourceKind::ConfigMap,
        Scoped::Namespaced,
    ),
    ("Role", "secrets", SourceKind::Secret, Scoped::Namespaced),
    (
        "ClusterRole",
        "configmaps",
        SourceKind::ConfigMap,
        Scoped::Cluster,
    ),
    (
        "ClusterRole",
        "secrets",
        SourceKind::Secret,
        Scoped::Cluster,
    ),
];

/// A built-in producer row: (group, kind, produces, each, name, keys, open (a path, or
/// [`ANY_KEY`]), type (a path, and the type when it is unset), hashed, runtime, unless
/// (path, values), when (path, values)).
type ProducerRow = (
    &'static str,
    &'static str,
    SourceKind,
    &'static str,
    &'static str,
    &'static [&'static str],
    &'static str,
    (&'static str, &'static str),
    Hashed,
    bool,
    Condition,
    Condition,
);

/// A field and the values that decide a producer row: `("", &[])` for none.
type Condition = (&'static str, &'static [&'static str]);
const NO_CONDITION: Condition = ("", &[]);

/// In the open column: any key may exist, always (its keys are not in git).
const ANY_KEY: &str = "*";
const OPAQUE: &str = "Opaque";
const VSO: &str = "secrets.hashicorp.com";
/// The Vault Secrets Operator makes its destination Secret only when told to.
const VSO_CREATES: Condition = ("spec/destination/create", &["true"]);

/// Built-in producers, checked against each project's documentation (docs, "Sources
/// produced by other objects").
#[rustfmt::skip]
const PRODUCERS: &[ProducerRow] = &[
    // Bitnami sealed-secrets: the controller unseals into a Secret of the same name and
    // namespace; `spec.template` gives its type and templated keys.
    ("bitnami.com", "SealedSecret", SourceKind::Secret, "", "", &["spec/encryptedData", "spec/template/data"],
        "", ("spec/template/type", OPAQUE), Hashed::Values, false, NO_CONDITION, NO_CONDITION),
    // External Secrets Operator: `spec.target.name` (default: its own name); with
    // `dataFrom` any key may exist.
    ("external-secrets.io", "ExternalSecret", SourceKind::Secret, "", "spec/target/name", &["spec/data/secretKey", "spec/target/template/data"],
        "spec/dataFrom", ("spec/target/template/type", OPAQUE), Hashed::Spec, true, ("spec/target/creationPolicy", &["Merge", "None"]), NO_CONDITION),
    // Secrets Store CSI driver: a pod's `csi` volume reads the class itself ...
    ("secrets-store.csi.x-k8s.io", "SecretProviderClass", SourceKind::SecretProviderClass, "", "", &[],
        "", ("", ""), Hashed::Spec, true, NO_CONDITION, NO_CONDITION),
    // ... and `spec.secretObjects` are Secrets it syncs while a pod mounts it.
    ("secrets-store.csi.x-k8s.io", "SecretProviderClass", SourceKind::Secret, "spec/secretObjects", "secretName", &["data/key"],
        "", ("type", OPAQUE), Hashed::Spec, true, NO_CONDITION, NO_CONDITION),
    // cert-manager: a `kubernetes.io/tls` Secret `spec.secretName` whose keys the issuer
    // and the spec decide (tls.crt, tls.key, often ca.crt, keystores, extra formats);
    // the certificate is issued and renewed in the cluster, so only the spec is in git.
    ("cert-manager.io", "Certificate", SourceKind::Secret, "", "spec/secretName", &[],
        ANY_KEY, ("", "kubernetes.io/tls"), Hashed::Spec, true, NO_CONDITION, NO_CONDITION),
    // Vault Secrets Operator: the Secret `spec.destination.name`, of type
    // `spec.destination.type`, with whatever keys Vault returns; made only with
    // `destination.create: true` (the default is false: the Secret must exist already).
    (VSO, "VaultStaticSecret", SourceKind::Secret, "", "spec/destination/name", &[],
        ANY_KEY, ("spec/destination/type", OPAQUE), Hashed::Spec, true, NO_CONDITION, VSO_CREATES),
    (VSO, "VaultDynamicSecret", SourceKind::Secret, "", "spec/destination/name", &[],
        ANY_KEY, ("spec/destination/type", OPAQUE), Hashed::Spec, true, NO_CONDITION, VSO_CREATES),
    (VSO, "VaultPKISecret", SourceKind::Secret, "", "spec/destination/name", &[],
        ANY_KEY, ("spec/destination/type", OPAQUE), Hashed::Spec, true, NO_CONDITION, VSO_CREATES),
    (VSO, "HCPVaultSecretsApp", SourceKind::Secret, "", "spec/destination/name", &[],
        ANY_KEY, ("spec/destination/type", OPAQUE), Hashed::Spec, true, NO_CONDITION, VSO_CREATES),
];

/// Built-in annotation reference sites: ours, and those of the tools people migrate
/// from (Reloader `internal/pkg/options/flags.go`, wave's README), so their annotations
/// keep working: (key, kind, tool, regular expressions accepted).
#[rustfmt::skip]
const ANNOTATION_SITES: &[(&str, SourceKind, &str, bool)] = &[
    ("config-hash.dev/extra-configmaps", SourceKind::ConfigMap, "config-hash", false),
    ("config-hash.dev/extra-secrets", SourceKind::Secret, "config-hash", false),
    ("configmap.reloader.stakater.com/reload", SourceKind::ConfigMap, "Reloader", true),
    ("secret.reloader.stakater.com/reload", SourceKind::Secret, "Reloader", true),
    ("wave.pusher.com/extra-configmaps", SourceKind::ConfigMap, "wave", false),
    ("wave.pusher.com/extra-secrets", SourceKind::Secret, "wave", false),
];

// ---------------------------------------------------------------------------------------
// Owners and rollbacks: how a kind's objects show in a live dump, which kinds own which
// and what a rollback needs. Stamping never reads this; `prune` does, to know which kinds
// a dump must hold before it can say that nothing reads an old ConfigMap or Secret.
// ---------------------------------------------------------------------------------------

/// Where the pod templates of a kind's objects are kept, the current one and the old ones
/// a rollback restores.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeptIn {
    /// In the object itself (a ReplicaSet, a Job, a CronJob).
    Itself,
    /// In objects of this kind that it owns (a Deployment's ReplicaSets, a StatefulSet's
    /// ControllerRevisions).
    Owned(String),
}

/// How objects of one kind show in a live dump. A workload kind without a row keeps its
/// pod template in itself (a CronJob, a custom kind): a dump shows what it reads when it
/// holds the object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lineage {
    /// API groups the kind is served under (`""` is the core group).
    pub groups: Vec<String>,
    pub kind: String,
    /// The kind as `kubectl get` takes it (`replicasets`).
    pub resource: String,
    pub kept_in: KeptIn,
    /// Where its status counts the Pods it runs itself (a ReplicaSet's `status/replicas`,
    /// a Job's `status/active`): a dump that holds it with a count above zero holds Pods
    /// it owns.
    pub pods: Option<FieldPath>,
    /// Where its status lists the objects it runs now (a CronJob's `status/active`, each
    /// `{kind, name, namespace, uid}`): a dump that holds it holds them.
    pub runs: Option<FieldPath>,
    /// Where it keeps a pod template it records without running it (a
    /// ControllerRevision's `data/spec/template`): not a workload to stamp, but read for
    /// what a rollback would run.
    pub records: Option<FieldPath>,
    /// Its objects finish and may then be deleted without anyone asking (a Job's
    /// `ttlSecondsAfterFinished`, a deployer's hook policy): one the render holds proves
    /// nothing by its absence. A finished one reads nothing; a running one shows by its
    /// Pods.
    pub finishes: bool,
}

impl Lineage {
    /// The built-in rows.
    fn builtin() -> Vec<Lineage> {
        LINEAGE
            .iter()
            .map(
                |&(g, kind, resource, kept_in, pods, runs, records, finishes)| Lineage {
                    groups: groups(g),
                    kind: kind.to_string(),
                    resource: resource.to_string(),
                    kept_in: if kept_in.is_empty() {
                        KeptIn::Itself
                    } else {
                        KeptIn::Owned(kept_in.to_string())
                    },
                    pods: optional_path(pods),
                    runs: optional_path(runs),
                    records: optional_path(records),
                    finishes,
                },
            )
            .collect()
    }
}

/// What every live dump holds, as `kubectl get` takes the kinds: the ConfigMaps and
/// Secrets themselves and the objects that run or keep the pod templates of Kubernetes'
/// own workloads.
pub const DUMP: &[&str] = &[
    "configmaps",
    "secrets",
    "replicasets",
    "controllerrevisions",
    "pods",
    "jobs",
    "cronjobs",
];

/// A built-in row: (groups, kind, resource, kept in (`""`: itself, else the kind it
/// owns), pods counted at, objects run listed at, pod template recorded at, finishes).
type LineageRow = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    bool,
);

/// Built-in rows.
/// OpenKruise's kinds keep their revisions in ControllerRevisions as apps' do; an Argo
/// Rollout keeps ReplicaSets as a Deployment does.
#[rustfmt::skip]
const LINEAGE: &[LineageRow] = &[
    (CORE, "Pod", "pods", "", "", "", "", false),
    (CORE, "ReplicationController", "replicationcontrollers", "", "status/replicas", "", "", false),
    (APPS, "Deployment", "deployments", "ReplicaSet", "", "", "", false),
    (APPS, "ReplicaSet", "replicasets", "", "status/replicas", "", "", false),
    ("apps", "StatefulSet", "statefulsets", "ControllerRevision", "status/replicas", "", "", false),
    (APPS, "DaemonSet", "daemonsets", "ControllerRevision", "status/currentNumberScheduled", "", "", false),
    // What a StatefulSet or DaemonSet rolls back to (`$patch: replace` beside the
    // template changes nothing of what the pod reads).
    ("apps", "ControllerRevision", "controllerrevisions", "", "", "", "data/spec/template", false),
    ("batch", "Job", "jobs", "", "status/active", "", "", true),
    ("batch", "CronJob", "cronjobs", "", "", "status/active", "", false),
    ("argoproj.io", "Rollout", "rollouts.argoproj.io", "ReplicaSet", "", "", "", false),
    (KRUISE, "CloneSet", "clonesets.apps.kruise.io", "ControllerRevision", "status/replicas", "", "", false),
    (KRUISE, "StatefulSet", "statefulsets.apps.kruise.io", "ControllerRevision", "status/replicas", "", "", false),
    (KRUISE, "DaemonSet", "daemonsets.apps.kruise.io", "ControllerRevision", "status/currentNumberScheduled", "", "", false),
];

/// Everything the function knows about Kubernetes objects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Catalog {
    pub workloads: Vec<WorkloadKind>,
    pub pod_sites: Vec<PodSite>,
    pub name_sites: Vec<NameSite>,
    pub producers: Vec<Producer>,
    pub annotation_sites: Vec<AnnotationSite>,
    /// How each kind that runs, owns or records pod templates shows in a live dump.
    pub lineage: Vec<Lineage>,
    /// Per kind, the rows of `workloads`, `name_sites` and `producers` for it, in order:
    /// every item looks itself up, so a long user catalog must not make each look-up a
    /// scan.
    by_kind: HashMap<String, KindRows>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct KindRows {
    workloads: Vec<usize>,
    name_sites: Vec<usize>,
    producers: Vec<usize>,
}

impl Default for Catalog {
    fn default() -> Self {
        Catalog::builtin()
    }
}

/// Groups written `a,b` (the core group is the empty string).
fn groups(text: &str) -> Vec<String> {
    text.split(',').map(str::to_string).collect()
}

fn condition((path, values): Condition) -> Option<(FieldPath, Vec<String>)> {
    optional_path(path).map(|p| (p, values.iter().map(|v| v.to_string()).collect()))
}

fn optional_path(text: &str) -> Option<FieldPath> {
    (!text.is_empty()).then(|| FieldPath::of(text))
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
                |&(g, kind, template, env_allowed, restart, delegate, rolls, holds)| WorkloadKind {
                    groups: groups(g),
                    kind: kind.to_string(),
                    template: FieldPath::of(template),
                    env_allowed,
                    restart,
                    delegate: optional_path(delegate),
                    rolls,
                    holds: holds.to_vec(),
                    declared_at: None,
                },
            )
            .collect();
        let pod_sites = POD_SITES
            .iter()
            .map(|&(path, kind, keys, visible)| PodSite {
                path: FieldPath::of(path),
                kind,
                keys: KeySel::of(keys),
                visible,
                declared_at: None,
            })
            .collect();
        let mut name_sites: Vec<NameSite> = NAME_SITES
            .iter()
            .map(|&(g, kind, path, ns_key, target, form, scope)| NameSite {
                groups: groups(g),
                kind: kind.to_string(),
                path: FieldPath::of(path),
                namespace_key: (!ns_key.is_empty()).then(|| ns_key.to_string()),
                target,
                form,
                scope,
                rule_resource: None,
                declared_at: None,
            })
            .collect();
        name_sites.extend(
            ROLE_RULES
                .iter()
                .map(|&(kind, resource, target, scope)| NameSite {
                    groups: groups("rbac.authorization.k8s.io"),
                    kind: kind.to_string(),
                    path: FieldPath::of("rules/resourceNames"),
                    namespace_key: None,
                    target,
                    form: Form::Name,
                    scope,
                    rule_resource: Some(resource.to_string()),
                    declared_at: None,
                }),
        );
        let producers = PRODUCERS
            .iter()
            .map(
                |&(
                    group,
                    kind,
                    produces,
                    each,
                    name,
                    keys,
                    open,
                    secret_type,
                    hashed,
                    runtime,
                    unless,
                    when,
                )| {
                    Producer {
                        group: group.to_string(),
                        kind: kind.to_string(),
                        produces,
                        each: optional_path(each),
                        name: optional_path(name),
                        keys: keys.iter().map(|k| FieldPath::of(k)).collect(),
                        open: match open {
                            ANY_KEY => Open::Always,
                            path => optional_path(path).map_or(Open::Never, Open::When),
                        },
                        secret_type: optional_path(secret_type.0),
                        default_type: secret_type.1.to_string(),
                        hashed,
                        runtime,
                        unless: condition(unless),
                        when: condition(when),
                        declared_at: None,
                    }
                },
            )
            .collect();
        let annotation_sites = ANNOTATION_SITES
            .iter()
            .map(|&(key, kind, tool, regex)| AnnotationSite {
                key: key.to_string(),
                kind,
                tool: tool.to_string(),
                regex,
            })
            .collect();
        let mut catalog = Catalog {
            workloads,
            pod_sites,
            name_sites,
            producers,
            annotation_sites,
            lineage: Lineage::builtin(),
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
        for (i, p) in self.producers.iter().enumerate() {
            let rows = self.by_kind.entry(p.kind.clone()).or_default();
            rows.producers.push(i);
        }
    }

    /// Adds user rows: a user workload of a built-in kind replaces the built-in row for
    /// that group, a user producer of a kind and group replaces the built-in ones; every
    /// other row is added.
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
        // A declared row of a kind Kubernetes defines (a Deployment at another template
        // path) still rolls, or is held back, as that kind does.
        let rules_of = |w: &WorkloadKind| {
            rows.iter()
                .find(|r| r.kind == w.kind && r.groups.iter().any(|g| w.groups.contains(g)))
                .map(|r| (r.rolls, r.holds.clone()))
        };
        let declared: Vec<WorkloadKind> = ext
            .workloads
            .iter()
            .map(|w| {
                let mut w = w.clone();
                if let Some((rolls, holds)) = rules_of(&w) {
                    (w.rolls, w.holds) = (rolls, holds);
                }
                w
            })
            .collect();
        for row in &mut rows {
            row.groups.retain(|g| !claimed(&row.kind, g, None));
        }
        for (i, w) in declared.into_iter().enumerate() {
            let mut w = w;
            w.groups.retain(|g| !claimed(&w.kind, g, Some(i)));
            rows.push(w);
        }
        rows.retain(|e| !e.groups.is_empty());
        self.workloads = rows;
        self.name_sites.extend(ext.references.iter().cloned());
        self.pod_sites.extend(ext.pod_references.iter().cloned());
        let declared: Vec<(&str, &str)> = ext
            .producers
            .iter()
            .map(|p| (p.group.as_str(), p.kind.as_str()))
            .collect();
        self.producers.retain(|p| {
            p.declared_at.is_some() || !declared.contains(&(p.group.as_str(), p.kind.as_str()))
        });
        self.producers.extend(ext.producers.iter().cloned());
        self.annotation_sites
            .extend(ext.annotation_references.iter().cloned());
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
        self.by_kind
            .get(kind)
            .into_iter()
            .flat_map(|rows| rows.producers.iter())
            .map(|&i| &self.producers[i])
            .filter(move |p| p.group == group)
    }

    /// Producer kinds pass 1's text prefilter must look for by name: those without
    /// `Secret` in them (see [`crate::read::chunks::may_matter_before_stamping`]).
    pub fn prefilter_kinds(&self) -> Vec<&str> {
        let mut kinds: Vec<&str> = self
            .producers
            .iter()
            .map(|p| p.kind.as_str())
            .filter(|k| !k.contains("Secret"))
            .collect();
        kinds.sort_unstable();
        kinds.dedup();
        kinds
    }

    /// How objects of this apiVersion and kind show in a live dump, if the catalog says.
    pub fn lineage(&self, api_version: &str, kind: &str) -> Option<&Lineage> {
        let group = group_of(api_version);
        self.lineage
            .iter()
            .find(|l| l.kind == kind && l.groups.iter().any(|g| g == group))
    }

    /// The rows for a kind named without its group (an owner reference read by kind).
    pub fn lineage_of_kind<'c, 'k>(
        &'c self,
        kind: &'k str,
    ) -> impl Iterator<Item = &'c Lineage> + use<'c, 'k> {
        self.lineage.iter().filter(move |l| l.kind == kind)
    }

    /// The kind as `kubectl get` takes it, named without its group (an owner reference
    /// without an apiVersion, the kind a row keeps its templates in): its first row's
    /// resource, else the kind in lower case.
    pub fn resource_of_kind(&self, kind: &str) -> String {
        self.lineage_of_kind(kind)
            .next()
            .map_or_else(|| kind.to_lowercase(), |row| row.resource.clone())
    }

    /// The kind as `kubectl get` takes it: its row's resource, else the kind in lower
    /// case, with its group when that is not the core group (`cronworkflow.argoproj.io`):
    /// kubectl finds a kind by that name whatever its plural.
    pub fn resource(&self, api_version: &str, kind: &str) -> String {
        if let Some(row) = self.lineage(api_version, kind) {
            return row.resource.clone();
        }
        match group_of(api_version) {
            "" => kind.to_lowercase(),
            group => format!("{}.{group}", kind.to_lowercase()),
        }
    }

    /// True when any name-reference site applies to this kind (a cheap filter).
    pub fn has_name_sites(&self, api_version: &str, kind: &str) -> bool {
        self.name_sites_for(api_version, kind).next().is_some()
    }
}

/// What a user adds to the catalog from the functionConfig (see [`crate::model::extension`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Extension {
    pub workloads: Vec<WorkloadKind>,
    pub references: Vec<NameSite>,
    pub pod_references: Vec<PodSite>,
    pub producers: Vec<Producer>,
    pub annotation_references: Vec<AnnotationSite>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_kinds_by_group_and_kind() {
        let c = Catalog::builtin();
        assert_eq!(
            c.workload("apps/v1", "Deployment")
                .unwrap()
                .template
                .steps(),
            ["spec", "template"]
        );
        assert_eq!(
            c.workload("batch/v1", "CronJob")
                .unwrap()
                .template
                .steps()
                .len(),
            4
        );
        assert!(!c.workload("v1", "Pod").unwrap().env_allowed);
        assert!(c.workload("v1", "Pod").unwrap().template.is_empty());
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
                .template
                .steps(),
            ["spec", "jobTargetRef", "template"]
        );
        assert_eq!(
            c.workload("argoproj.io/v1alpha1", "Rollout")
                .unwrap()
                .delegate
                .as_ref()
                .map(FieldPath::dotted)
                .as_deref(),
            Some("spec.workloadRef")
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
        assert_eq!(
            c.producers_for("secrets-store.csi.x-k8s.io/v1", "SecretProviderClass")
                .count(),
            2
        );
    }

    #[test]
    fn every_built_in_path_is_one_a_user_could_write() {
        let c = Catalog::builtin();
        let paths = c
            .workloads
            .iter()
            .filter(|w| !w.template.is_empty())
            .map(|w| &w.template)
            .chain(c.pod_sites.iter().map(|s| &s.path))
            .chain(c.name_sites.iter().map(|s| &s.path))
            .chain(c.producers.iter().flat_map(|p| &p.keys));
        for path in paths {
            assert_eq!(
                FieldPath::parse(&path.to_string()).as_ref(),
                Ok(path),
                "{path}"
            );
        }
        // Every pod site names its kind's name field last.
        assert!(c.pod_sites.iter().all(|s| s.path.split_last().is_some()));
    }

    /// A kind that keeps its pod templates in objects it owns names a kind with a row of
    /// its own (how prune finds those objects in a dump), which a dump holds.
    #[test]
    fn every_kind_kept_in_has_a_row_a_dump_holds() {
        let c = Catalog::builtin();
        for row in &c.lineage {
            if let KeptIn::Owned(kind) = &row.kept_in {
                let kept = c.lineage_of_kind(kind).next();
                assert!(kept.is_some(), "{} is kept in {kind}", row.kind);
                assert!(DUMP.contains(&kept.unwrap().resource.as_str()), "{kind}");
            }
        }
        let revision = c.lineage("apps/v1", "ControllerRevision").unwrap();
        assert_eq!(
            revision.records.as_ref().map(FieldPath::dotted).as_deref(),
            Some("data.spec.template")
        );
        assert!(c.lineage("example.com/v1", "ControllerRevision").is_none());
        assert_eq!(c.resource("apps/v1", "ReplicaSet"), "replicasets");
        assert_eq!(
            c.resource("argoproj.io/v1alpha1", "CronWorkflow"),
            "cronworkflow.argoproj.io"
        );
        assert_eq!(c.resource("v1", "PodTemplate"), "podtemplate");
        // Every workload kind with a row of its own says where its templates are kept.
        for w in &c.workloads {
            for g in &w.groups {
                let api = if g.is_empty() {
                    "v1".to_string()
                } else {
                    format!("{g}/v1")
                };
                if let Some(row) = c.lineage(&api, &w.kind) {
                    assert!(row.records.is_none(), "{}", w.kind);
                }
            }
        }
        assert_eq!(
            c.lineage("apps/v1", "StatefulSet").unwrap().kept_in,
            KeptIn::Owned("ControllerRevision".into())
        );
    }

    #[test]
    fn fieldspec_paths_split_on_unescaped_slashes() {
        assert_eq!(FieldPath::of("spec/template").steps(), ["spec", "template"]);
        assert_eq!(
            FieldPath::of("spec/containers[]/env/name").steps(),
            ["spec", "containers", "env", "name"]
        );
        let annotation = FieldPath::of("metadata/annotations/example.com\\/secret");
        assert_eq!(
            annotation.steps(),
            ["metadata", "annotations", "example.com/secret"]
        );
        assert_eq!(
            annotation.to_string(),
            "metadata/annotations/example.com\\/secret"
        );
        assert!(FieldPath::of("").is_empty());
        assert!(FieldPath::parse("").is_err());
        assert!(FieldPath::parse("a//b").is_err());
        assert!(FieldPath::parse("a/b/").is_err());
    }
}
