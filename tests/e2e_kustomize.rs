//! End to end with the real `kubectl kustomize` (kustomize v5.5.0): the plugin is
//! installed with `config-hash install-kustomize-plugin` into a temporary
//! XDG_CONFIG_HOME, and `examples/kustomize/` is built with `--enable-alpha-plugins`.
//!
//! kustomize runs config-hash as a legacy exec plugin before it appends its own hash
//! suffix to generated objects. So the stamped hash must cover the generated ConfigMap
//! under the name kustomize gives it afterwards (the build's output then passes
//! --check), and the suffixing and reference rewriting must still happen. Beside the
//! example: kustomize's whole name-reference table for ConfigMaps and Secrets, compared
//! field by field with config-hash --name-suffix.

#[macro_use]
mod common;

use common::harness::Need;
use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use common::{BINARY, TempDir, assert_success, is_hash, pod_template};
use yaml_serde::Value;

const ANNOTATION_KEY: &str = "config-hash.dev/hash";
const GENERATED: &str = "app-settings";
const WEB: &str = "Deployment/web";
const REPORT: &str = "CronJob/nightly-report";

/// A temp dir holding a copy of `examples/kustomize` (`example/`) and an
/// XDG_CONFIG_HOME with the plugin installed (`xdg/`); removed on drop.
struct Workspace {
    root: TempDir,
}

impl Workspace {
    fn new() -> Self {
        let root = TempDir::new("e2e-kustomize");
        common::copy_dir(
            &common::example_dir("kustomize"),
            &root.path().join("example"),
        );
        let ws = Workspace { root };
        ws.install_plugin();
        ws
    }

    fn example(&self) -> PathBuf {
        self.root.path().join("example")
    }

    fn xdg(&self) -> PathBuf {
        self.root.path().join("xdg")
    }

    /// `config-hash install-kustomize-plugin` with XDG_CONFIG_HOME set: checks the
    /// printed path and that the plugin there is this binary, executable.
    fn install_plugin(&self) {
        let output = Command::new(BINARY)
            .arg("install-kustomize-plugin")
            .env("XDG_CONFIG_HOME", self.xdg())
            .output()
            .expect("run config-hash install-kustomize-plugin");
        assert_success(&output, "config-hash install-kustomize-plugin");
        let expected = self
            .xdg()
            .join("kustomize/plugin/config-hash.dev/v1alpha1/confighash/ConfigHash");
        assert_eq!(
            String::from_utf8_lossy(&output.stdout),
            format!("{}\n", expected.display()),
            "install-kustomize-plugin must print where it put the plugin"
        );
        let installed = fs::read(&expected).expect("the plugin file exists");
        assert!(
            installed == fs::read(BINARY).expect("read the binary"),
            "the installed plugin is not a copy of config-hash"
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = fs::metadata(&expected)
                .expect("stat plugin")
                .permissions()
                .mode();
            assert_eq!(
                mode & 0o111,
                0o111,
                "the plugin is not executable: {mode:o}"
            );
        }
    }

    /// Replaces the one occurrence of `from` in the example's `file` with `to`.
    fn edit(&self, file: &str, from: &str, to: &str) {
        common::replace_once(&self.example(), file, from, to);
    }

    /// `kubectl kustomize --enable-alpha-plugins example/`, run with XDG_CONFIG_HOME.
    fn kustomize(&self) -> Output {
        Command::new("kubectl")
            .args(["kustomize", "--enable-alpha-plugins"])
            .arg(self.example())
            .env("XDG_CONFIG_HOME", self.xdg())
            .output()
            .expect("run kubectl kustomize")
    }

    /// A successful build's output.
    fn build(&self) -> String {
        let output = self.kustomize();
        assert_success(&output, "kubectl kustomize --enable-alpha-plugins");
        String::from_utf8(output.stdout).expect("UTF-8 output")
    }
}

/// The documents of a multi-document stream, keyed by `Kind/name`.
fn documents(text: &str) -> BTreeMap<String, Value> {
    let mut docs = BTreeMap::new();
    let mut chunks = vec![String::new()];
    for line in text.split_inclusive('\n') {
        if line.trim_end() == "---" {
            chunks.push(String::new());
        } else {
            chunks.last_mut().expect("a chunk").push_str(line);
        }
    }
    for chunk in chunks.iter().filter(|c| !c.trim().is_empty()) {
        let doc: Value = yaml_serde::from_str(chunk)
            .unwrap_or_else(|e| panic!("a document does not parse: {e}\n{chunk}"));
        let id = format!(
            "{}/{}",
            doc["kind"].as_str().expect("kind"),
            doc["metadata"]["name"].as_str().expect("name")
        );
        assert!(docs.insert(id.clone(), doc).is_none(), "{id} twice");
    }
    docs
}

/// The hash on each workload's pod template (the two workloads of the example).
fn hashes(docs: &BTreeMap<String, Value>) -> BTreeMap<&'static str, String> {
    [WEB, REPORT]
        .into_iter()
        .map(|id| {
            let doc = docs
                .get(id)
                .unwrap_or_else(|| panic!("{id} not in the output"));
            let hash = pod_template(doc)["metadata"]["annotations"][ANNOTATION_KEY]
                .as_str()
                .unwrap_or_else(|| panic!("{id} is not stamped"))
                .to_owned();
            assert!(is_hash(&hash), "{id}: {hash:?} is not 64 lowercase hex");
            (id, hash)
        })
        .collect()
}

/// The name kustomize gave the generated ConfigMap: `app-settings-<suffix>`.
fn generated_name(docs: &BTreeMap<String, Value>) -> String {
    let names: Vec<&String> = docs
        .keys()
        .filter(|id| id.starts_with(&format!("ConfigMap/{GENERATED}")))
        .collect();
    let [id] = names.as_slice() else {
        panic!("expected one generated ConfigMap, found {names:?}");
    };
    let name = id.trim_start_matches("ConfigMap/").to_owned();
    let suffix = name
        .strip_prefix(&format!("{GENERATED}-"))
        .unwrap_or_else(|| panic!("kustomize did not suffix the generated ConfigMap: {name}"));
    assert_eq!(
        suffix.len(),
        10,
        "kustomize's suffix is 10 characters: {name}"
    );
    name
}

/// Every `configMapKeyRef` name in a workload's containers.
fn config_map_key_refs(doc: &Value) -> Vec<String> {
    let containers = pod_template(doc)["spec"]["containers"]
        .as_sequence()
        .expect("containers");
    containers
        .iter()
        .flat_map(|c| c["env"].as_sequence().cloned().unwrap_or_default())
        .filter_map(|e| {
            e["valueFrom"]["configMapKeyRef"]["name"]
                .as_str()
                .map(str::to_owned)
        })
        .collect()
}

fn kubectl_kustomize_runs_the_installed_plugin_and_still_suffixes() {
    let ws = Workspace::new();
    let output = ws.build();
    let docs = documents(&output);
    assert_eq!(
        docs.keys()
            .filter(|id| !id.starts_with("ConfigMap/app-settings"))
            .collect::<Vec<_>>(),
        [
            "ConfigMap/nginx-conf",
            "CronJob/nightly-report",
            "Deployment/web",
            "Secret/web-db"
        ],
        "the resources of the build"
    );

    // kustomize still suffixed the generated ConfigMap after config-hash ran, and
    // rewrote every reference to it: config-hash kept its build annotations.
    let generated = generated_name(&docs);
    for id in [WEB, REPORT] {
        let refs = config_map_key_refs(&docs[id]);
        assert!(!refs.is_empty(), "{id} reads the generated ConfigMap");
        assert!(
            refs.iter().all(|r| *r == generated),
            "{id}: references not rewritten to {generated}: {refs:?}"
        );
    }
    for leaked in [
        "internal.config.kubernetes.io",
        "kustomize.config.k8s.io/id",
    ] {
        assert!(
            !output.contains(leaked),
            "{leaked} leaked into the output:\n{output}"
        );
    }

    // Both workloads are stamped; they read different keys, so different hashes.
    let stamped = hashes(&docs);
    assert_ne!(stamped[WEB], stamped[REPORT]);
    for id in [
        "ConfigMap/nginx-conf",
        "Secret/web-db",
        &format!("ConfigMap/{generated}"),
    ] {
        assert!(
            docs[id]["metadata"]["annotations"].is_null(),
            "{id} must carry no annotations: {:?}",
            docs[id]["metadata"]
        );
    }

    // The hash survives kustomize's later renaming: it is the hash of what the pods
    // read under the name kustomize gives the generated object after the plugin ran, so
    // config-hash run on the output computes the same hashes, and --check passes (a CI
    // gate on the build's output).
    let run = |args: &[&str]| {
        let mut child = Command::new(BINARY)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run config-hash");
        std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), output.as_bytes())
            .expect("write stdin");
        child.wait_with_output().expect("wait for config-hash")
    };
    let rerun = run(&[]);
    assert_success(&rerun, "config-hash on the build output");
    let rerun = String::from_utf8(rerun.stdout).expect("UTF-8");
    assert_eq!(hashes(&documents(&rerun)), stamped);
    assert_success(
        &run(&["--check"]),
        "config-hash --check on the build output",
    );
}

fn editing_a_value_changes_exactly_the_hashes_of_the_workloads_that_read_it() {
    let baseline_ws = Workspace::new();
    let baseline_docs = documents(&baseline_ws.build());
    let baseline = hashes(&baseline_docs);
    let baseline_generated = generated_name(&baseline_docs);

    // (file, from, to, the workloads whose hash must change). Any edit of the generated
    // ConfigMap gives it a new name, which every workload reading it is rewritten to
    // (so rolls): the hash covers that name, so it moves for both, as the pods do.
    let cases: [(&str, &str, &str, &[&str]); 7] = [
        (
            "kustomization.yaml",
            "LOG_LEVEL=info",
            "LOG_LEVEL=debug",
            &[WEB, REPORT],
        ),
        (
            "kustomization.yaml",
            "FEATURE_FLAGS=search,checkout",
            "FEATURE_FLAGS=search",
            &[WEB, REPORT],
        ),
        (
            "kustomization.yaml",
            "REPORT_FORMAT=csv",
            "REPORT_FORMAT=json",
            &[WEB, REPORT],
        ),
        // A new literal nobody reads: kustomize renames the ConfigMap all the same.
        (
            "kustomization.yaml",
            "- REPORT_FORMAT=csv",
            "- REPORT_FORMAT=csv\n      - UNUSED=1",
            &[WEB, REPORT],
        ),
        ("configmap.yaml", "listen 8080;", "listen 8081;", &[WEB]),
        (
            "secret.yaml",
            "password: change-me",
            "password: changed",
            &[WEB],
        ),
        ("secret.yaml", "username: web", "username: nobody", &[]),
    ];
    for (file, from, to, expected) in cases {
        let ws = Workspace::new();
        ws.edit(file, from, to);
        let docs = documents(&ws.build());
        if file == "kustomization.yaml" {
            assert_ne!(
                generated_name(&docs),
                baseline_generated,
                "kustomize's own suffix must follow the literals"
            );
        }
        let now = hashes(&docs);
        let changed: Vec<&str> = [WEB, REPORT]
            .into_iter()
            .filter(|id| now[id] != baseline[id])
            .collect();
        assert_eq!(
            changed, expected,
            "{file}: {from:?} -> {to:?} changed these hashes"
        );
    }
}

fn on_missing_error_fails_the_kustomize_build() {
    let ws = Workspace::new();
    ws.edit(
        "deployment.yaml",
        "name: nginx-conf\n",
        "name: nginx-typo\n",
    );
    // onMissing: warn (the example's setting) still builds and stamps.
    let docs = documents(&ws.build());
    hashes(&docs);

    ws.edit("config-hash.yaml", "onMissing: warn", "onMissing: error");
    let output = ws.kustomize();
    assert!(!output.status.success(), "the build must fail");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("Deployment web")
            && stderr.contains("spec.template.spec.volumes[0].configMap")
            && stderr.contains("ConfigMap \"nginx-typo\""),
        "kustomize must show config-hash's error:\n{stderr}"
    );
}

/// The KRM-function form (`config.kubernetes.io/function` on the same object, for
/// standalone kustomize and Argo CD) gets the ConfigHash object as `functionConfig`
/// and the resources as kustomize holds them before suffixing: it must compute the same
/// hashes as the plugin form did under `kubectl kustomize`.
fn krm_function_form_accepts_the_same_config_object() {
    let ws = Workspace::new();
    let output = ws.build();
    let plugin_hashes = hashes(&documents(&output));

    let config = fs::read_to_string(ws.example().join("config-hash.yaml")).expect("read config");
    let metadata = "metadata:\n  name: config-hash\n";
    assert_eq!(
        config.matches(metadata).count(),
        1,
        "config-hash.yaml metadata"
    );
    let function_config = config.replace(
        metadata,
        &format!(
            "{metadata}  annotations:\n    config.kubernetes.io/function: |\n      \
             exec:\n        path: {BINARY}\n"
        ),
    );

    // The items as kustomize sends them: the generated ConfigMap unsuffixed, with its
    // build annotation, and every reference naming it unsuffixed.
    let generated = generated_name(&documents(&output));
    let mut list =
        String::from("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n");
    let unsuffixed_metadata = format!("metadata:\n  name: {GENERATED}\n");
    let annotated_metadata = format!(
        "metadata:\n  annotations:\n    internal.config.kubernetes.io/needsHashSuffix: enabled\n  \
         name: {GENERATED}\n"
    );
    let items = output
        .replace(&generated, GENERATED)
        .replace(&unsuffixed_metadata, &annotated_metadata);
    assert!(
        items.contains(&annotated_metadata),
        "the generated ConfigMap"
    );
    for doc in items.split("\n---\n") {
        list.push_str(&indent_item(doc));
    }
    list.push_str("functionConfig:\n");
    list.push_str(&indent(config_body(&function_config), "  "));

    let mut child = Command::new(BINARY)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run config-hash");
    std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), list.as_bytes())
        .expect("write stdin");
    let out = child.wait_with_output().expect("wait for config-hash");
    assert_success(&out, "config-hash on a ResourceList");
    let out: Value = yaml_serde::from_slice(&out.stdout).expect("a ResourceList comes back");
    let items = out["items"].as_sequence().expect("items");
    let docs: BTreeMap<String, Value> = items
        .iter()
        .map(|i| {
            let id = format!(
                "{}/{}",
                i["kind"].as_str().expect("kind"),
                i["metadata"]["name"].as_str().expect("name")
            );
            (id, i.clone())
        })
        .collect();
    assert_eq!(hashes(&docs), plugin_hashes);
    let generated_item = &docs[&format!("ConfigMap/{GENERATED}")];
    assert_eq!(
        generated_item["metadata"]["annotations"]["internal.config.kubernetes.io/needsHashSuffix"]
            .as_str(),
        Some("enabled"),
        "kustomize's build annotation must be passed through"
    );
    let errors: Vec<&Value> = out["results"]
        .as_sequence()
        .expect("results")
        .iter()
        .filter(|r| r["severity"].as_str() != Some("info"))
        .collect();
    assert!(errors.is_empty(), "unexpected results: {errors:?}");
}

/// The config file without its leading comment lines.
fn config_body(text: &str) -> &str {
    let start = text.find("apiVersion:").expect("config has apiVersion");
    &text[start..]
}

fn indent(text: &str, prefix: &str) -> String {
    text.lines()
        .map(|l| {
            if l.is_empty() {
                "\n".to_owned()
            } else {
                format!("{prefix}{l}\n")
            }
        })
        .collect()
}

/// One document as a block sequence item.
fn indent_item(doc: &str) -> String {
    let body = indent(doc, "  ");
    format!("- {}", &body[2..])
}

/// `kubectl kustomize dir | config-hash --name-suffix`: kustomize's own suffixed names
/// are recognised as suffixed (the content gives the same suffix), so they do not get a
/// second one, and nothing changes at all.
fn suffixes_never_stack_on_kustomize_output() {
    let dir = common::TempDir::new("e2e-kustomize-stack");
    dir.write(
        "kustomization.yaml",
        "configMapGenerator:\n- name: app-settings\n  literals: [LOG_LEVEL=info]\n\
         secretGenerator:\n- name: app-db\n  literals: [PASSWORD=hunter2]\nresources:\n- deployment.yaml\n",
    );
    dir.write(
        "deployment.yaml",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\nspec:\n  template:\n    spec:\n      containers:\n      - name: app\n        envFrom:\n        - configMapRef: {name: app-settings}\n        - secretRef: {name: app-db}\n",
    );
    let built = common::run(Command::new("kubectl").args(["kustomize", dir.str()]));
    let built = String::from_utf8(built.stdout).expect("UTF-8");
    let name = built
        .lines()
        .find_map(|l| l.trim().strip_prefix("name: app-settings-"))
        .expect("kustomize suffixed the ConfigMap")
        .to_string();
    let mut child = Command::new(common::BINARY)
        .args(["--name-suffix", "-q"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run config-hash");
    std::io::Write::write_all(&mut child.stdin.take().expect("stdin"), built.as_bytes())
        .expect("write stdin");
    let out = child.wait_with_output().expect("config-hash");
    common::assert_success(&out, "config-hash --name-suffix");
    let text = String::from_utf8(out.stdout).expect("UTF-8");
    assert!(
        !text.contains(&format!("app-settings-{name}-")),
        "a second suffix:\n{text}"
    );
    assert!(
        text.contains(&format!("name: app-settings-{name}\n")),
        "{text}"
    );
    // Names stay, so the only edits are the base-name annotations and the stamp.
    assert_eq!(
        text.matches("app-settings-").count(),
        built.matches("app-settings-").count(),
        "{text}"
    );
}

/// A Deployment that reads a Secret the build does not hold, under the real
/// `kubectl kustomize` in a terminal: kustomize hides a successful plugin's stderr, so
/// the warning goes to the terminal; the build still succeeds and stamps. With
/// `CONFIG_HASH_ON_MISSING=error` (CI) the build fails, and kustomize shows why.
fn a_missing_secret_reaches_the_person_running_the_build() {
    let ws = Workspace::new();
    ws.edit("deployment.yaml", "name: web-db\n", "name: web-db-typo\n");
    let out = ws.root.path().join("out.yaml");
    let err = ws.root.path().join("err.txt");
    let command = format!(
        "kubectl kustomize --enable-alpha-plugins {} > {} 2> {}; echo \"exit $?\"",
        ws.example().display(),
        out.display(),
        err.display()
    );
    let shown = common::in_terminal(&command, &[("XDG_CONFIG_HOME", ws.xdg().as_os_str())]);
    assert!(shown.contains("exit 0"), "the build must succeed:\n{shown}");
    assert!(
        shown
            .lines()
            .any(|l| l.starts_with("config-hash: warning: Deployment web")
                && l.contains("Secret \"web-db-typo\", which is not in the input")),
        "the terminal must show the warning:\n{shown}"
    );
    assert_eq!(fs::read_to_string(&err).expect("stderr file"), "");
    let built = fs::read_to_string(&out).expect("output file");
    hashes(&documents(&built));

    // In CI there is no terminal: strict mode fails the build with the message.
    let strict = Command::new("kubectl")
        .args(["kustomize", "--enable-alpha-plugins"])
        .arg(ws.example())
        .env("XDG_CONFIG_HOME", ws.xdg())
        .env("CONFIG_HASH_ON_MISSING", "error")
        .output()
        .expect("run kubectl kustomize");
    assert!(!strict.status.success(), "strict mode must fail the build");
    let stderr = String::from_utf8_lossy(&strict.stderr);
    assert!(
        stderr.contains("Secret \"web-db-typo\", which is not in the input"),
        "{stderr}"
    );
}

/// The config listed under `generators:` instead of `transformers:`: kustomize runs it
/// with no resources, and the build fails saying where the config belongs.
fn a_config_listed_as_a_generator_says_where_it_belongs() {
    let ws = Workspace::new();
    ws.edit("kustomization.yaml", "transformers:", "generators:");
    let output = ws.kustomize();
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("under transformers:, not generators:"),
        "{stderr}"
    );
}

/// A pod spec naming `nr-cm` and `nr-sec` at every pod field of kustomize's table.
const POD_SPEC: &str = "containers:
- name: c
  image: i
  env:
  - {name: A, valueFrom: {configMapKeyRef: {name: nr-cm, key: k}}}
  - {name: B, valueFrom: {secretKeyRef: {name: nr-sec, key: k}}}
  envFrom: [{configMapRef: {name: nr-cm}}, {secretRef: {name: nr-sec}}]
initContainers:
- name: i
  image: i
  env:
  - {name: A, valueFrom: {configMapKeyRef: {name: nr-cm, key: k}}}
  - {name: B, valueFrom: {secretKeyRef: {name: nr-sec, key: k}}}
  envFrom: [{configMapRef: {name: nr-cm}}, {secretRef: {name: nr-sec}}]
imagePullSecrets: [{name: nr-sec}]
volumes:
- {name: v1, configMap: {name: nr-cm}}
- {name: v2, secret: {secretName: nr-sec}}
- {name: v3, projected: {sources: [{configMap: {name: nr-cm}}, {secret: {name: nr-sec}}]}}
";

/// Every object of kustomize's name-reference table for ConfigMaps and Secrets (its
/// `namereference.go`), each naming `nr-cm` and `nr-sec` in the fields the table lists
/// for its kind, and nowhere else.
fn name_reference_objects() -> String {
    let indent = |text: &str, n: usize| {
        text.lines()
            .map(|l| format!("{}{l}\n", " ".repeat(n)))
            .collect::<String>()
    };
    let mut out = String::new();
    // (apiVersion, kind, the YAML above the pod spec, its indentation)
    let workloads = [
        ("v1", "Pod", "spec:\n", 2),
        ("v1", "PodTemplate", "template:\n  spec:\n", 4),
        (
            "apps/v1",
            "Deployment",
            "spec:\n  template:\n    spec:\n",
            6,
        ),
        (
            "apps/v1",
            "ReplicaSet",
            "spec:\n  template:\n    spec:\n",
            6,
        ),
        ("apps/v1", "DaemonSet", "spec:\n  template:\n    spec:\n", 6),
        (
            "apps/v1",
            "StatefulSet",
            "spec:\n  template:\n    spec:\n",
            6,
        ),
        ("batch/v1", "Job", "spec:\n  template:\n    spec:\n", 6),
        (
            "batch/v1",
            "CronJob",
            "spec:\n  jobTemplate:\n    spec:\n      template:\n        spec:\n",
            10,
        ),
    ];
    for (api, kind, above, n) in workloads {
        out.push_str(&format!(
            "---\napiVersion: {api}\nkind: {kind}\nmetadata: {{name: w}}\n{above}{}",
            indent(POD_SPEC, n)
        ));
    }
    out.push_str(
        "---
apiVersion: v1
kind: Node
metadata: {name: n}
spec:
  configSource:
    configMap: {name: nr-cm, kubeletConfigKey: k}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: r}
rules:
- apiGroups: ['']
  resources: [configmaps, secrets]
  resourceNames: [nr-cm, nr-sec]
  verbs: [get]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: r}
rules:
- apiGroups: ['']
  resources: [configmaps, secrets]
  resourceNames: [nr-cm, nr-sec]
  verbs: [get]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: i
  annotations:
    nginx.ingress.kubernetes.io/fastcgi-params-configmap: nr-cm
    ingress.kubernetes.io/auth-secret: nr-sec
    nginx.ingress.kubernetes.io/auth-secret: nr-sec
    nginx.ingress.kubernetes.io/auth-tls-secret: nr-sec
spec:
  tls: [{hosts: [example.com], secretName: nr-sec}]
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: s}
imagePullSecrets: [{name: nr-sec}]
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: s}
provisioner: example.com/p
parameters: {secretName: nr-sec, adminSecretName: nr-sec, userSecretName: nr-sec, secretRef: nr-sec}
---
apiVersion: serving.knative.dev/v1
kind: Service
metadata: {name: k}
spec:
  template:
    spec:
      containers:
      - image: i
        env:
        - {name: B, valueFrom: {secretKeyRef: {name: nr-sec, key: k}}}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: p}
spec:
  capacity: {storage: 1Gi}
  azureFile: {secretName: nr-sec, shareName: s}
",
    );
    out
}

/// Every string in the documents that names one of the two objects, by document and
/// field path (config-hash's own annotations aside).
fn names_in(text: &str) -> BTreeMap<(String, String), String> {
    fn walk(v: &Value, path: String, out: &mut Vec<(String, String)>) {
        match v {
            Value::String(s) if s.starts_with("nr-") => out.push((path, s.clone())),
            Value::Sequence(items) => {
                for (i, item) in items.iter().enumerate() {
                    walk(item, format!("{path}[{i}]"), out);
                }
            }
            Value::Mapping(map) => {
                for (k, item) in map {
                    let k = k.as_str().unwrap_or("?");
                    if !k.starts_with("config-hash.dev/") {
                        walk(item, format!("{path}.{k}"), out);
                    }
                }
            }
            _ => {}
        }
    }
    let mut out = BTreeMap::new();
    for (id, doc) in documents(text) {
        let mut found = Vec::new();
        walk(&doc, String::new(), &mut found);
        for (path, name) in found {
            out.insert((id.clone(), path), name);
        }
    }
    out
}

/// kustomize's whole name-reference table for ConfigMaps and Secrets: kubectl kustomize
/// suffixes a generated ConfigMap and Secret (in namespace `app`) and rewrites every
/// field of its table;
/// config-hash --name-suffix, given the same objects with the same content, must give the
/// same names and rewrite the same fields to them.
fn every_field_of_kustomizes_name_reference_table_is_rewritten_as_kustomize_does() {
    let dir = TempDir::new("kustomize-namereference");
    let objects = name_reference_objects();
    dir.write("objects.yaml", &objects);
    dir.write(
        "kustomization.yaml",
        "namespace: app\n\
         resources: [objects.yaml]\n\
         configMapGenerator: [{name: nr-cm, literals: [k=v]}]\n\
         secretGenerator: [{name: nr-sec, literals: [k=v]}]\n",
    );
    let built = common::run(Command::new("kubectl").arg("kustomize").arg(dir.path()));
    assert_success(&built, "kubectl kustomize");
    let kustomize = String::from_utf8(built.stdout).expect("UTF-8");

    let sources = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: nr-cm}\ndata: {k: v}\n\
                   ---\napiVersion: v1\nkind: Secret\nmetadata: {name: nr-sec}\ntype: Opaque\ndata: {k: dg==}\n";
    // kustomize puts every namespaced object in `app`, which config-hash is told is
    // where objects without a namespace go: cluster-scoped referrers (ClusterRole,
    // StorageClass, PersistentVolume, Node) find the objects in any namespace.
    let ours = common::config_hash(
        &["--name-suffix", "--namespace", "app"],
        &format!("{sources}{objects}"),
    );
    assert_success(&ours, "config-hash --name-suffix");
    let ours = String::from_utf8(ours.stdout).expect("UTF-8");

    let (expected, got) = (names_in(&kustomize), names_in(&ours));
    // The comparison covers every field: each object names both, renamed.
    assert!(expected.len() > 100, "{expected:#?}");
    assert!(
        expected
            .values()
            .all(|n| n.len() == "nr-cm-".len() + 10 || n.len() == "nr-sec-".len() + 10),
        "kustomize left a name as written: {expected:#?}"
    );
    let differ: Vec<String> = expected
        .keys()
        .chain(got.keys())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .filter(|k| expected.get(*k) != got.get(*k))
        .map(|k| {
            format!(
                "{} {}: kustomize {:?}, config-hash {:?}",
                k.0,
                k.1,
                expected.get(k),
                got.get(k)
            )
        })
        .collect();
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}

fn main() -> std::process::ExitCode {
    common::harness::run(vec![
        trial!(
            kubectl_kustomize_runs_the_installed_plugin_and_still_suffixes,
            Need::tool("kubectl")
        ),
        trial!(
            editing_a_value_changes_exactly_the_hashes_of_the_workloads_that_read_it,
            Need::tool("kubectl")
        ),
        trial!(
            on_missing_error_fails_the_kustomize_build,
            Need::tool("kubectl")
        ),
        trial!(
            krm_function_form_accepts_the_same_config_object,
            Need::tool("kubectl")
        ),
        trial!(
            suffixes_never_stack_on_kustomize_output,
            Need::tool("kubectl")
        ),
        trial!(
            a_missing_secret_reaches_the_person_running_the_build,
            Need::tool("kubectl"),
            Need::tool("script")
        ),
        trial!(
            every_field_of_kustomizes_name_reference_table_is_rewritten_as_kustomize_does,
            Need::tool("kubectl")
        ),
        trial!(
            a_config_listed_as_a_generator_says_where_it_belongs,
            Need::tool("kubectl")
        ),
    ])
}
