//! The container image, end to end with real tools: the release binary the `Dockerfile`
//! builds is static and runs in an empty root, and an image built from it runs under
//! `kpt fn eval --image` and as a kustomize `container:` function with podman, giving
//! the same output as the exec forms.
//!
//! No base image can be pulled on the test machines, so the test builds the binary on
//! the host with the Dockerfile's flags and builds the Dockerfile's final (`FROM
//! scratch`) stage around it; the build stage itself is not run here. podman and
//! buildah come from `.ci/setup-container.sh` (Debian packages, runc, low ulimits).

#[macro_use]
mod common;

use common::harness::Need;
use std::fs;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::Instant;

use common::{TempDir, path_with, run, which};
use yaml_serde::Value;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
/// The ordinary (dynamically linked) test build; only a negative control here.
const DEBUG_BINARY: &str = common::BINARY;
const TARGET: &str = "x86_64-unknown-linux-gnu";
/// Must match the Dockerfile's build stage, which `dockerfile_builds_what_we_test` checks.
const STATIC_RUSTFLAGS: &str = "-C target-feature=+crt-static";
/// `localhost/config-hash:test-<clone>`: podman's image store is the machine's, so two
/// clones testing at once (CI beside a developer) must not retag each other's image.
fn image() -> &'static str {
    static NAME: OnceLock<String> = OnceLock::new();
    NAME.get_or_init(|| {
        let clone: String = Path::new(ROOT)
            .file_name()
            .map(|n| n.to_string_lossy().to_lowercase())
            .unwrap_or_default()
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '.' {
                    c
                } else {
                    '-'
                }
            })
            .take(100)
            .collect();
        format!("localhost/config-hash:test-{clone}")
    })
}
const ANNOTATION_KEY: &str = "config-hash.dev/hash";
/// What the Dockerfile's final stage copies from the build stage; replaced by the
/// host-built binary in the test's build context.
const COPY_FROM_BUILD: &str = "COPY --from=build /out/config-hash /config-hash";

/// `command` with `stdin` fed from a file.
fn with_stdin(command: &mut Command, file: &Path) -> Output {
    let input = fs::File::open(file).unwrap_or_else(|e| panic!("open {}: {e}", file.display()));
    run(command.stdin(Stdio::from(input)))
}

/// The release binary built as the Dockerfile builds it, once per test process, in
/// `<target dir>/static` so it never contends with the test build's own target dir.
fn static_binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| {
        // DEBUG_BINARY is <target dir>/<profile>/config-hash.
        let target_dir = Path::new(DEBUG_BINARY)
            .ancestors()
            .nth(2)
            .expect("binary under a target dir")
            .join("static");
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let started = Instant::now();
        run(Command::new(cargo)
            .current_dir(ROOT)
            .args(["build", "--release", "--locked", "--target", TARGET])
            .arg("--target-dir")
            .arg(&target_dir)
            .env("RUSTFLAGS", STATIC_RUSTFLAGS)
            .env_remove("CARGO_ENCODED_RUSTFLAGS"));
        eprintln!(
            "static release binary built in {:.1}s",
            started.elapsed().as_secs_f64()
        );
        target_dir.join(TARGET).join("release").join("config-hash")
    })
}

/// The Dockerfile's final stage, with the build stage's binary swapped for a file
/// `config-hash` in the build context.
fn final_stage() -> String {
    let dockerfile = fs::read_to_string(Path::new(ROOT).join("Dockerfile")).expect("Dockerfile");
    let start = dockerfile
        .rfind("\nFROM scratch\n")
        .expect("the Dockerfile's final stage is FROM scratch");
    let stage = &dockerfile[start + 1..];
    assert_eq!(
        stage.matches(COPY_FROM_BUILD).count(),
        1,
        "the final stage must take the binary with `{COPY_FROM_BUILD}`:\n{stage}"
    );
    let stage = stage.replace(COPY_FROM_BUILD, "COPY config-hash /config-hash");
    assert!(
        !stage.contains("--from="),
        "the final stage may copy only the binary from another stage:\n{stage}"
    );
    stage
}

/// `localhost/config-hash:test`, built once per test process by `container/build-image.sh`,
/// the command the container guide gives for machines without registry access (the
/// Dockerfile's final stage around the static binary).
fn test_image() -> &'static str {
    static BUILT: OnceLock<()> = OnceLock::new();
    BUILT.get_or_init(|| {
        // The script builds into the same target dir with the same flags: no rebuild.
        let target_dir = static_binary()
            .ancestors()
            .nth(3)
            .expect("<target dir>/<target>/release/config-hash");
        let previous = image_id();
        let started = Instant::now();
        run(Command::new("bash")
            .arg(Path::new(ROOT).join("container/build-image.sh"))
            .arg(image())
            .env("CARGO_TARGET_DIR", target_dir)
            .env_remove("CARGO_ENCODED_RUSTFLAGS"));
        eprintln!(
            "image {} built in {:.1}s",
            image(),
            started.elapsed().as_secs_f64()
        );
        // Drop the image the tag moved away from, so reruns do not pile up untagged
        // images; without --force, so a concurrent test run still using it keeps it.
        if let Some(old) = previous.filter(|old| Some(old) != image_id().as_ref()) {
            let _ = Command::new("podman").args(["image", "rm", &old]).output();
        }
    });
    image()
}

/// The id of the image tagged [`image()`], if there is one.
fn image_id() -> Option<String> {
    let output = Command::new("podman")
        .args(["image", "inspect", "--format", "{{.Id}}", image()])
        .output()
        .ok()?;
    let id = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    (output.status.success() && !id.is_empty()).then_some(id)
}

fn parse_yaml_stream(text: &str) -> Vec<Value> {
    text.split("\n---\n")
        .map(|doc| yaml_serde::from_str(doc).unwrap_or_else(|e| panic!("{e}:\n{doc}")))
        .collect()
}

fn find<'a>(docs: &'a [Value], kind: &str, name_prefix: &str) -> &'a Value {
    docs.iter()
        .find(|d| {
            d["kind"].as_str() == Some(kind)
                && d["metadata"]["name"]
                    .as_str()
                    .is_some_and(|n| n.starts_with(name_prefix))
        })
        .unwrap_or_else(|| panic!("no {kind} {name_prefix}* in the output"))
}

fn dockerfile_builds_what_we_test() {
    let dockerfile = fs::read_to_string(Path::new(ROOT).join("Dockerfile")).expect("Dockerfile");
    for needle in [
        format!("RUSTFLAGS='{STATIC_RUSTFLAGS}'"),
        format!("cargo build --release --locked --target {TARGET}"),
        format!("target/{TARGET}/release/config-hash /out/config-hash"),
    ] {
        assert!(dockerfile.contains(&needle), "Dockerfile lacks {needle:?}");
    }
    let stage = final_stage();
    for line in [
        "COPY container/passwd container/group /etc/",
        "USER 65534:65534",
        r#"ENTRYPOINT ["/config-hash"]"#,
    ] {
        assert!(
            stage.lines().any(|l| l == line),
            "final stage lacks {line:?}"
        );
    }
    let passwd = fs::read_to_string(Path::new(ROOT).join("container/passwd")).expect("passwd");
    let group = fs::read_to_string(Path::new(ROOT).join("container/group")).expect("group");
    assert!(
        passwd
            .lines()
            .any(|l| l.starts_with("nobody:x:65534:65534:"))
    );
    assert!(group.lines().any(|l| l.starts_with("nobody:x:65534:")));
}

/// The ELF file has no program interpreter and needs no shared library.
fn assert_static_elf(path: &Path) {
    const PT_DYNAMIC: u32 = 2;
    const PT_INTERP: u32 = 3;
    const DT_NEEDED: u64 = 1;
    let elf = fs::read(path).expect("read binary");
    assert_eq!(&elf[..4], b"\x7fELF", "not an ELF file");
    assert_eq!((elf[4], elf[5]), (2, 1), "expected ELF64 little-endian");
    let u16_at = |at: usize| u16::from_le_bytes(elf[at..at + 2].try_into().expect("2 bytes"));
    let u32_at = |at: usize| u32::from_le_bytes(elf[at..at + 4].try_into().expect("4 bytes"));
    let u64_at = |at: usize| u64::from_le_bytes(elf[at..at + 8].try_into().expect("8 bytes"));
    let as_index = |n: u64| usize::try_from(n).expect("offset fits usize");
    let phoff = as_index(u64_at(0x20));
    let phentsize = usize::from(u16_at(0x36));
    let phnum = usize::from(u16_at(0x38));
    for header in (0..phnum).map(|i| phoff + i * phentsize) {
        let kind = u32_at(header);
        assert_ne!(kind, PT_INTERP, "{} has PT_INTERP", path.display());
        if kind == PT_DYNAMIC {
            let (offset, size) = (as_index(u64_at(header + 8)), as_index(u64_at(header + 32)));
            for entry in (offset..offset + size).step_by(16) {
                assert_ne!(
                    u64_at(entry),
                    DT_NEEDED,
                    "{} needs a library",
                    path.display()
                );
            }
        }
    }
}

/// Runs `binary` as nobody in a root that holds nothing else: no libc, no /etc.
fn run_in_empty_root(binary: &Path, input: &Path) -> std::io::Result<Output> {
    let root = TempDir::new("e2e-container-empty-root");
    fs::copy(binary, root.path().join("config-hash"))?;
    let stdin = Stdio::from(fs::File::open(input)?);
    let is_root = fs::metadata("/proc/self").map(|m| m.uid() == 0)?;
    // As root, chroot and drop to nobody; otherwise a user namespace maps us to root.
    // Absolute paths: the child's environment is empty, PATH included.
    let (tool, args) = if is_root {
        ("chroot", &["--userspec=65534:65534"][..])
    } else {
        ("unshare", &["--map-root-user", "--root"][..])
    };
    let mut command = Command::new(which(tool).unwrap_or_else(|| panic!("{tool} not on PATH")));
    command.args(args);
    command
        .arg(root.path())
        .arg("/config-hash")
        .env_clear()
        .stdin(stdin)
        .output()
}

fn release_binary_is_static_and_runs_in_an_empty_root() {
    let binary = static_binary();
    assert_static_elf(binary);

    let input = Path::new(ROOT).join("examples/resource-list.yaml");
    let started = Instant::now();
    let output = run_in_empty_root(binary, &input).expect("run in an empty root");
    assert!(
        output.status.success(),
        "static binary failed in an empty root ({})\nstderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    eprintln!(
        "ran in an empty root in {:.2}s",
        started.elapsed().as_secs_f64()
    );
    let on_host = with_stdin(&mut Command::new(binary), &input);
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&on_host.stdout),
        "the empty root changed the output"
    );
    assert!(
        String::from_utf8_lossy(&output.stdout).contains(ANNOTATION_KEY),
        "nothing was stamped"
    );

    // Control: the root really is empty, so a dynamically linked build cannot start.
    let control = run_in_empty_root(Path::new(DEBUG_BINARY), &input).expect("run control");
    assert!(
        !control.status.success(),
        "the dynamically linked test binary ran in the empty root: the root is not empty"
    );
}

/// `kpt fn eval DIR ARGS [-- FN_ARGS]`.
fn kpt_eval(dir: &TempDir, args: &[&str], fn_args: &[&str]) -> Output {
    let mut command = Command::new("kpt");
    command.args(["fn", "eval", dir.str()]).args(args);
    if !fn_args.is_empty() {
        command.arg("--").args(fn_args);
    }
    run(command.env("KPT_FN_RUNTIME", "podman"))
}

fn image_under_kpt_matches_exec() {
    let image = test_image();
    let inspect = run(Command::new("podman").args([
        "image",
        "inspect",
        "--format",
        "{{.Config.User}} {{json .Config.Entrypoint}}",
        image,
    ]));
    assert_eq!(
        String::from_utf8_lossy(&inspect.stdout).trim(),
        r#"65534:65534 ["/config-hash"]"#
    );

    let original = TempDir::copy_of("e2e-container", "basic").snapshot();
    for fn_args in [&[][..], &["mode=both"][..]] {
        let by_image = TempDir::copy_of("e2e-container", "basic");
        let by_exec = TempDir::copy_of("e2e-container", "basic");
        let started = Instant::now();
        kpt_eval(
            &by_image,
            &["--image", image, "--image-pull-policy", "never"],
            fn_args,
        );
        eprintln!(
            "kpt fn eval --image {fn_args:?} in {:.2}s",
            started.elapsed().as_secs_f64()
        );
        let binary = static_binary().to_str().expect("UTF-8 path");
        kpt_eval(&by_exec, &["--exec", binary], fn_args);

        let (image_files, exec_files) = (by_image.snapshot(), by_exec.snapshot());
        assert_eq!(
            image_files.keys().collect::<Vec<_>>(),
            exec_files.keys().collect::<Vec<_>>()
        );
        for (file, bytes) in &image_files {
            assert_eq!(
                String::from_utf8_lossy(bytes),
                String::from_utf8_lossy(&exec_files[file]),
                "{} differs between --image and --exec ({fn_args:?})",
                file.display()
            );
        }
        let deployment = String::from_utf8_lossy(&image_files[Path::new("deployment.yaml")]);
        assert!(
            deployment.contains(ANNOTATION_KEY),
            "the image stamped nothing:\n{deployment}"
        );
        assert_ne!(image_files, original, "kpt --image changed nothing");
    }
}

/// `kubectl kustomize --enable-alpha-plugins DIR` with `docker` resolving to podman and
/// plugins looked up under `xdg`.
fn kustomize(dir: &TempDir, xdg: &TempDir) -> String {
    let shim = TempDir::new("e2e-container-docker-shim");
    let podman = which("podman").expect("podman on PATH");
    std::os::unix::fs::symlink(podman, shim.path().join("docker")).expect("docker shim");
    let output = run(Command::new("kubectl")
        .args(["kustomize", "--enable-alpha-plugins", dir.str()])
        .env("PATH", path_with(shim.path()))
        .env("XDG_CONFIG_HOME", xdg.path()));
    String::from_utf8(output.stdout).expect("UTF-8 output")
}

fn image_as_kustomize_container_function_matches_exec_plugin() {
    let image = test_image();
    let example = TempDir::copy_of("e2e-container", "container");
    example.edit(
        "config-hash.yaml",
        "image: localhost/config-hash:latest",
        &format!("image: {image}"),
    );
    let no_plugins = TempDir::new("e2e-container-xdg-empty");
    let started = Instant::now();
    let by_container = kustomize(&example, &no_plugins);
    eprintln!(
        "kubectl kustomize with the container function in {:.2}s",
        started.elapsed().as_secs_f64()
    );

    let docs = parse_yaml_stream(&by_container);
    let deployment = find(&docs, "Deployment", "api");
    let hash = deployment["spec"]["template"]["metadata"]["annotations"][ANNOTATION_KEY]
        .as_str()
        .unwrap_or_else(|| panic!("Deployment api not stamped:\n{by_container}"));
    assert!(
        hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit()),
        "not a hash: {hash:?}"
    );
    // kustomize still suffixes the generated ConfigMap and rewrites the reference.
    let generated = find(&docs, "ConfigMap", "api-flags-");
    let suffixed = generated["metadata"]["name"].as_str().expect("name");
    assert!(
        by_container.contains(&format!("name: {suffixed}\n")),
        "reference to {suffixed} not rewritten:\n{by_container}"
    );
    assert_eq!(
        by_container.matches("name: api-flags-").count(),
        2,
        "the ConfigMap and its one reference carry the suffix:\n{by_container}"
    );

    // The same config object as a legacy exec plugin (no function annotation) runs
    // the same binary outside the container.
    let legacy = TempDir::copy_of("e2e-container", "container");
    legacy.edit(
        "config-hash.yaml",
        "  annotations:\n    config.kubernetes.io/function: |\n      container:\n        image: localhost/config-hash:latest\n",
        "",
    );
    let plugins = TempDir::new("e2e-container-xdg-plugin");
    run(Command::new(static_binary())
        .arg("install-kustomize-plugin")
        .env("XDG_CONFIG_HOME", plugins.path()));
    let by_plugin = kustomize(&legacy, &plugins);
    assert_eq!(
        by_container, by_plugin,
        "container function and exec plugin disagree"
    );
}

/// The image names users copy from the docs and examples carry a registry host, which
/// kpt leaves alone; kpt rewrites an unqualified name to its catalog (gcr.io/kpt-fn/).
/// Checked with the real kpt: what it reports running is the name as given. Needs no
/// container runtime (the run itself may fail without one).
fn documented_image_names_are_ones_kpt_does_not_rewrite() {
    let mut docs: Vec<PathBuf> = common::user_docs()
        .into_iter()
        .map(|(page, _)| Path::new(ROOT).join(page))
        .collect();
    docs.push(Path::new(ROOT).join("Dockerfile"));
    let mut stack = vec![Path::new(ROOT).join("examples")];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).expect("list examples") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                docs.push(path);
            }
        }
    }
    let mut names = Vec::new();
    for doc in &docs {
        let text = fs::read_to_string(doc).unwrap_or_default();
        for (i, _) in text.match_indices("config-hash:") {
            let start = text[..i]
                .rfind(|c: char| c.is_whitespace() || c == '"' || c == '\'' || c == '{')
                .map_or(0, |s| s + 1);
            let name = &text[start..i];
            let tag: String = text[i + "config-hash:".len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '.' || *c == '-')
                .collect();
            let line_start = text[..i].rfind('\n').map_or(0, |s| s + 1);
            let line_end = text[i..].find('\n').map_or(text.len(), |e| i + e);
            // A line that explains the rewrite names the unqualified form on purpose.
            let explains = text[line_start..line_end].contains("gcr.io/kpt-fn/");
            if !tag.is_empty() && !explains {
                assert!(
                    name.contains('/'),
                    "{}: image {name}config-hash:{tag} has no registry host; kpt would run gcr.io/kpt-fn/config-hash:{tag}",
                    doc.display()
                );
                names.push(format!("{name}config-hash:{tag}"));
            }
        }
    }
    assert!(
        names.iter().any(|n| n == "localhost/config-hash:latest"),
        "{names:?}"
    );
    let pkg = TempDir::copy_of("e2e-container-names", "basic");
    for (image, ran) in [
        (
            "localhost/config-hash:latest",
            "localhost/config-hash:latest",
        ),
        ("config-hash:latest", "gcr.io/kpt-fn/config-hash:latest"),
    ] {
        let out = Command::new("kpt")
            .args([
                "fn",
                "eval",
                pkg.str(),
                "--image",
                image,
                "--",
                "mode=annotation",
            ])
            .env("KPT_FN_RUNTIME", "podman")
            .output()
            .expect("run kpt");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("[RUNNING] \"{ran}\"")),
            "kpt --image {image}: expected it to run {ran}:\n{err}"
        );
    }
}

/// The container guide's steps on a machine where podman has its default configuration:
/// there `kpt fn eval --image` may fail with "error setting rlimit type 7" (it does in
/// this project's sandbox); after `container/setup-podman.sh` (here writing podman's
/// configuration where CONTAINERS_CONF says, so the machine's own is left alone) it
/// runs. The guide names both scripts.
fn a_fresh_podman_runs_the_image_after_the_documented_setup() {
    let guide =
        fs::read_to_string(Path::new(ROOT).join("docs/guide-containers.md")).expect("guide");
    for step in ["container/setup-podman.sh", "container/build-image.sh"] {
        assert!(
            guide.contains(step),
            "docs/guide-containers.md does not give {step}"
        );
    }
    let image = test_image();
    let conf = TempDir::new("e2e-container-conf");
    let conf_file = conf.path().join("containers.conf");
    fs::write(&conf_file, "").expect("an empty containers.conf: podman's defaults");
    let eval = |pkg: &TempDir| {
        Command::new("kpt")
            .args([
                "fn",
                "eval",
                pkg.str(),
                "--image",
                image,
                "--image-pull-policy",
                "never",
            ])
            .env("KPT_FN_RUNTIME", "podman")
            .env("CONTAINERS_CONF", &conf_file)
            .output()
            .expect("run kpt")
    };
    let before = eval(&TempDir::copy_of("e2e-container-fresh", "basic"));
    eprintln!(
        "with podman's defaults: {} {}",
        before.status,
        String::from_utf8_lossy(&before.stderr)
            .lines()
            .find(|l| l.contains("rlimit"))
            .unwrap_or("")
    );
    run(Command::new("bash")
        .arg(Path::new(ROOT).join("container/setup-podman.sh"))
        .env("CONTAINERS_CONF", &conf_file));
    let pkg = TempDir::copy_of("e2e-container-fresh", "basic");
    let after = eval(&pkg);
    common::assert_success(
        &after,
        "kpt fn eval --image after container/setup-podman.sh",
    );
    let deployment = fs::read_to_string(pkg.path().join("deployment.yaml")).expect("read");
    assert!(
        deployment.contains(ANNOTATION_KEY),
        "not stamped:\n{deployment}"
    );
}

/// A podman that `container/setup-podman.sh` has not set up is a missing need that
/// names the setup step, not a test failing with "error setting rlimit type 7".
fn a_podman_without_the_documented_setup_is_a_need_naming_it() {
    let lines = common::harness::podman_setup_lines();
    assert!(
        lines.contains(&"runtime = \"runc\""),
        "container/setup-podman.sh no longer sets runc: {lines:?}"
    );
    let dir = TempDir::new("e2e-container-conf-check");
    let conf = dir.path().join("containers.conf");
    fs::write(&conf, "").expect("write");
    assert!(!common::harness::podman_configured(&conf));
    fs::write(&conf, "[engine]\nruntime = \"runc\"\n").expect("write");
    assert!(
        !common::harness::podman_configured(&conf),
        "ulimits missing"
    );
    fs::write(&conf, lines.join("\n") + "\n").expect("write");
    assert!(common::harness::podman_configured(&conf));
    let hint = Need::podman().describe();
    assert!(hint.contains("container/setup-podman.sh"), "{hint}");
}

fn main() -> std::process::ExitCode {
    common::harness::run(vec![
        trial!(dockerfile_builds_what_we_test),
        trial!(a_podman_without_the_documented_setup_is_a_need_naming_it),
        trial!(
            documented_image_names_are_ones_kpt_does_not_rewrite,
            Need::tool("kpt")
        ),
        // The rest builds the static release binary, or an image around it: the slow
        // tier (`cargo test -- --ignored`).
        trial!(release_binary_is_static_and_runs_in_an_empty_root).slow(),
        trial!(
            image_under_kpt_matches_exec,
            Need::podman(),
            Need::tool("kpt")
        )
        .slow(),
        trial!(
            image_as_kustomize_container_function_matches_exec_plugin,
            Need::podman(),
            Need::tool("kubectl")
        )
        .slow(),
        // Sets podman up itself (CONTAINERS_CONF in a temp dir): needs only the tools.
        trial!(
            a_fresh_podman_runs_the_image_after_the_documented_setup,
            Need::tool("podman"),
            Need::tool("buildah"),
            Need::tool("runc"),
            Need::tool("kpt")
        )
        .slow(),
    ])
}
