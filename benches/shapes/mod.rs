//! The benchmarks' inputs, shared by `throughput` (time and memory) and `instructions`
//! (the instruction-count gate): the same applications written in every shape the
//! pipeline must take at the same speed, and the hostile objects. Every input is a pure
//! function of its size, so a count measured today and one measured next month read the
//! same bytes.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;

/// One hostile object: written to cost the most memory per input byte.
pub struct Hostile {
    pub name: String,
    /// A short name for files and the instruction-count baseline.
    pub slug: &'static str,
    /// The object's text: YAML, or a whole JSON ResourceList.
    pub object: String,
    /// Whether the benchmark runs `kubectl kustomize` on it too.
    pub peer: bool,
}

impl Hostile {
    /// What config-hash reads: a YAML object inside a block ResourceList, the JSON one
    /// as it is.
    pub fn input(&self) -> String {
        if self.object.starts_with('{') {
            return self.object.clone();
        }
        let mut list =
            String::from("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n");
        for (i, line) in self.object.lines().enumerate() {
            list.push_str(if i == 0 { "- " } else { "  " });
            list.push_str(line);
            list.push('\n');
        }
        list
    }
}

/// The hostile objects at `1 / scale` of their benchmark size (1M flow items, 1M flow
/// keys, 100k missing references, a one-line JSON ResourceList of 100k items): a YAML
/// object is sent inside a block ResourceList; the JSON one is a whole ResourceList on
/// one line.
pub fn hostile_objects(scale: usize) -> Vec<Hostile> {
    let mut flow = String::from("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\nother: [");
    flow.push_str(&vec!["a"; 1_000_000 / scale].join(","));
    flow.push_str("]\n");
    let mut keys = String::from("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {");
    for i in 0..1_000_000 / scale {
        let sep = if i == 0 { "" } else { ", " };
        write!(keys, "{sep}k{i}: v").expect("write to a String");
    }
    keys.push_str("}\n");
    let mut missing = String::from(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    spec:\n      containers:\n      - name: app\n        envFrom:\n",
    );
    for i in 0..100_000 / scale {
        writeln!(missing, "        - configMapRef: {{name: m{i}}}").expect("write to a String");
    }
    let mut json = String::from(
        r#"{"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": ["#,
    );
    for i in 0..33_334 / scale {
        let sep = if i == 0 { "" } else { ", " };
        write!(
            json,
            r#"{sep}{{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {{"name": "c{i}"}}, "data": {{"a": "1"}}}}, {{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {{"name": "w{i}"}}, "spec": {{"template": {{"spec": {{"containers": [{{"name": "a", "envFrom": [{{"configMapRef": {{"name": "c{i}"}}}}]}}]}}}}}}}}, {{"apiVersion": "v1", "kind": "Service", "metadata": {{"name": "s{i}"}}, "spec": {{"ports": [{{"port": 80}}]}}}}"#
        )
        .expect("write to a String");
    }
    json.push_str("]}\n");
    let n = |full: usize| match full / scale {
        m if m % 1_000_000 == 0 => format!("{}M", m / 1_000_000),
        m if m % 1_000 == 0 => format!("{}k", m / 1_000),
        m => m.to_string(),
    };
    vec![
        Hostile {
            name: format!("{} one-letter flow items", n(1_000_000)),
            slug: "flow-items",
            object: flow,
            peer: true,
        },
        Hostile {
            name: format!("ConfigMap with {} flow keys", n(1_000_000)),
            slug: "flow-keys",
            object: keys,
            peer: false,
        },
        Hostile {
            name: format!("{} missing references in one Deployment", n(100_000)),
            slug: "missing-references",
            object: missing,
            peer: true,
        },
        Hostile {
            name: format!("one-line JSON ResourceList, {} items", n(100_000)),
            slug: "one-line-json",
            object: json,
            peer: false,
        },
    ]
}

/// An input shape: the same applications written another way, or run with a flag.
pub struct Shape {
    pub name: &'static str,
    /// A short name for files and the instruction-count baseline.
    pub slug: &'static str,
    pub args: &'static [&'static str],
}

/// Every shape the pipeline must take at the same speed and memory (issue 8).
pub const SHAPES: &[Shape] = &[
    Shape {
        name: "block YAML",
        slug: "block-yaml",
        args: &[],
    },
    Shape {
        name: "JSON",
        slug: "json",
        args: &[],
    },
    Shape {
        name: "one needs-hash item",
        slug: "needs-hash",
        args: &[],
    },
    Shape {
        name: "one shared anchor",
        slug: "shared-anchor",
        args: &[],
    },
    Shape {
        name: "stream with one List",
        slug: "stream-with-list",
        args: &[],
    },
    Shape {
        name: "stream with a Flux Kustomization",
        slug: "stream-with-flux-kustomization",
        args: &[],
    },
    Shape {
        name: "--name-suffix",
        slug: "name-suffix",
        args: &["--name-suffix"],
    },
];

pub fn write_shape(dir: &Path, n: usize, shape: &Shape) -> PathBuf {
    let block = resource_list(n);
    let text = match shape.name {
        "JSON" => {
            let value: yaml_serde::Value = yaml_serde::from_str(&block).expect("bench YAML");
            serde_json::to_string_pretty(&value).expect("bench JSON")
        }
        "one needs-hash item" => block.replacen(
            "      config.kubernetes.io/index: '1'\n",
            "      config.kubernetes.io/index: '1'\n      kustomize.config.k8s.io/needs-hash: \"true\"\n",
            1,
        ),
        "one shared anchor" => block
            .replacen("LOG_LEVEL: info", "LOG_LEVEL: &level info", 1)
            .replacen("LOG_LEVEL: info", "LOG_LEVEL: *level", 1),
        "stream with one List" => stream_with_list(&block),
        // The word a kustomization spells, in an object of another API: nothing reads
        // the whole input for it before the run.
        "stream with a Flux Kustomization" => format!(
            "{}---\napiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata:\n  name: apps\n  namespace: flux-system\nspec:\n  interval: 10m\n  path: ./apps\n  prune: true\n  sourceRef:\n    kind: GitRepository\n    name: flux-system\n",
            stream_with_list(&block)
        ),
        _ => block,
    };
    let path = dir.join(format!("deployments-{n}-{}.txt", shape.slug));
    fs::write(&path, text).expect("write bench input");
    path
}

/// The items as a plain stream of documents, the first application's three wrapped in
/// one `kind: List`.
fn stream_with_list(block: &str) -> String {
    let body = &block[block.find("items:\n").expect("items") + "items:\n".len()..];
    let items: Vec<&str> = body.split("\n- ").collect();
    let mut out = String::with_capacity(block.len());
    out.push_str("apiVersion: v1\nkind: List\nitems:\n");
    for (i, item) in items.iter().enumerate() {
        let item = item.strip_prefix("- ").unwrap_or(item);
        if i < 3 {
            out.push_str("- ");
            out.push_str(item);
            out.push('\n');
            continue;
        }
        out.push_str("---\n");
        for (j, line) in item.lines().enumerate() {
            let line = if j == 0 {
                line
            } else {
                line.strip_prefix("  ").unwrap_or(line)
            };
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// A ResourceList as `kpt fn eval --exec` would send it: items with kpt's path/index
/// annotations, one file per application.
pub fn resource_list(n: usize) -> String {
    let mut s = String::with_capacity(n * 3_200);
    s.push_str("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n");
    for i in 0..n {
        application(&mut s, i);
    }
    s
}

/// A Deployment, its ConfigMap and its Secret (about 3 KB of YAML).
pub fn application(s: &mut String, i: usize) {
    let name = format!("app-{i:05}");
    let team = ["payments", "search", "checkout", "identity"][i % 4];
    let file = format!("{team}/{name}.yaml");
    // Writing to a String cannot fail.
    let _ = write!(
        s,
        r#"- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: {name}
    namespace: {team}
    labels:
      app.kubernetes.io/name: {name}
      app.kubernetes.io/part-of: {team}
      app.kubernetes.io/version: "1.{minor}.0"
      tier: backend
    annotations:
      config.kubernetes.io/index: '0'
      config.kubernetes.io/path: '{file}'
      internal.config.kubernetes.io/index: '0'
      internal.config.kubernetes.io/path: '{file}'
  spec:
    replicas: 3
    revisionHistoryLimit: 5
    selector:
      matchLabels:
        app.kubernetes.io/name: {name}
    template:
      metadata:
        labels:
          app.kubernetes.io/name: {name}
          app.kubernetes.io/part-of: {team}
          tier: backend
      spec:
        serviceAccountName: {name}
        containers:
        - name: server
          image: registry.example.com/{team}/{name}:1.{minor}.0 # pinned by release
          imagePullPolicy: IfNotPresent
          args: ["--config=/etc/{name}/app.properties", "--port=8080"]
          ports:
          - name: http
            containerPort: 8080
          envFrom:
          - configMapRef:
              name: {name}-config
          env:
          - name: DB_PASSWORD
            valueFrom:
              secretKeyRef:
                name: {name}-db
                key: password
          - name: GOMAXPROCS
            value: "2"
          resources:
            requests:
              cpu: 100m
              memory: 128Mi
            limits:
              memory: 256Mi
          readinessProbe:
            httpGet:
              path: /healthz
              port: http
            periodSeconds: 10
          volumeMounts:
          - name: config
            mountPath: /etc/{name}
            readOnly: true
        volumes:
        - name: config
          configMap:
            name: {name}-config
            defaultMode: 0644
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: {name}-config
    namespace: {team}
    labels:
      app.kubernetes.io/name: {name}
      app.kubernetes.io/part-of: {team}
    annotations:
      config.kubernetes.io/index: '1'
      config.kubernetes.io/path: '{file}'
      internal.config.kubernetes.io/index: '1'
      internal.config.kubernetes.io/path: '{file}'
  data:
    LOG_LEVEL: info
    FEATURE_FLAGS: "search-v2,fast-checkout"
    UPSTREAM_URL: http://{team}-gateway.{team}.svc.cluster.local:8080
    CACHE_TTL: "300"
    app.properties: |
      # {name} settings
      server.port=8080
      server.shutdown=graceful
      pool.size={pool}
      tracing.sample-rate=0.05
- apiVersion: v1
  kind: Secret
  metadata:
    name: {name}-db
    namespace: {team}
    labels:
      app.kubernetes.io/name: {name}
    annotations:
      config.kubernetes.io/index: '2'
      config.kubernetes.io/path: '{file}'
      internal.config.kubernetes.io/index: '2'
      internal.config.kubernetes.io/path: '{file}'
  type: Opaque
  data:
    username: {user}
    password: {password}
"#,
        minor = i % 17,
        pool = 4 + i % 13,
        user = BASE64.encode(format!("{name}-user")),
        password = BASE64.encode(format!(
            "s3cr3t-{i:08x}-{:08x}",
            i.wrapping_mul(2_654_435_761)
        )),
    );
}

/// The applications as they were before every ConfigMap changed (`LOG_LEVEL: debug`
/// where the input has `info`): `diff`'s BEFORE, so that every workload rolls.
pub fn every_config_map_changed(block: &str) -> String {
    block.replace("LOG_LEVEL: info", "LOG_LEVEL: debug")
}

/// N Deployments that all read one ConfigMap through `envFrom`, the ConfigMap first with
/// `LOG_LEVEL: {level}`: the shape that makes a view's edges as many as its workloads
/// while the input stays small (about 370 bytes per Deployment).
pub fn one_configmap(n: usize, level: &str) -> String {
    let mut s = String::with_capacity(n * 380 + 200);
    s.push_str("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n");
    let _ = write!(
        s,
        "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: shared\n  data:\n    LOG_LEVEL: {level}\n    OTHER: x\n"
    );
    for i in 0..n {
        let _ = write!(
            s,
            r#"- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: app-{i:06}
    labels:
      app.kubernetes.io/name: app-{i:06}
      tier: backend
  spec:
    replicas: 3
    template:
      spec:
        containers:
        - name: server
          image: registry.example.com/app-{i:06}:1.0.0
          envFrom:
          - configMapRef:
              name: shared
"#
        );
    }
    s
}
