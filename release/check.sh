#!/usr/bin/env bash
# Checks a release directory made by release/build.sh, with the real tools, as a user
# would meet each artifact. Every check compares bytes against another route to the
# same result, and fails (never skips) when a tool is missing.
#
#   release/check.sh [DIST]        # default target/dist
#
#  1. SHA256SUMS lists every file, and every sum matches.
#  2. Each archive holds a static binary of its architecture, its completions and man
#     pages (one per command, each what `config-hash man COMMAND` prints); the same binary is in the kustomize plugin and the Helm plugin.
#  3. Each SBOM describes its archive: the version the binary prints, its target, and
#     exactly the crates cargo compiles into it.
#  4. The x86_64 binary gives the golden outputs; the aarch64 binary, under
#     qemu-aarch64-static, gives the x86_64 one's stdout, stderr and exit status on every
#     golden case; so does the wasm32-wasip1 build under Node.js's WASI.
#  5. The x86_64 binary runs in an empty root (no libc, no /etc) as nobody.
#  6. The image (release/image.sh): amd64 under `kpt fn eval --image` and as kustomize's
#     container KRM function gives what `--exec` and the exec plugin give; each
#     architecture's image holds the archive's binary.
#  7. The kustomize plugin layout, extracted where kustomize looks, runs.
#  8. The Helm plugin installs with Helm 4 (`--verify=false`, as it is unsigned here),
#     and runs as the post-renderer; an unsigned one is refused by default; signed with a
#     throwaway key by release/helm-plugin.sh, it installs with verification.
#  9. The kpt wasm function gives what `--exec` gives on every example package.
# 10. CHANGELOG.md has this version's release notes (release/notes.sh).
#
# Tools: qemu-aarch64-static (Debian's qemu-user-static), node, kpt, kubectl, podman,
# buildah, gpg, Helm 4 ($HELM, default target/tools/helm4/helm), cargo.
set -euo pipefail
cd "$(dirname "$0")/.."

dist=$(cd "${1:-target/dist}" && pwd)
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)
helm=$(realpath "${HELM:-target/tools/helm4/helm}")
image=${IMAGE:-localhost/config-hash:$version}
targets=(x86_64-unknown-linux-musl aarch64-unknown-linux-musl)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for tool in qemu-aarch64-static node kpt kubectl podman buildah gpg cargo "$helm"; do
  command -v "$tool" >/dev/null || { echo "check: $tool is needed and missing" >&2; exit 1; }
done

started=$SECONDS
step_name=
step_started=$SECONDS
step() { # ends the step before (printing its time), starts the next
  if [ -n "$step_name" ]; then echo "-- $step_name: $((SECONDS - step_started))s"; fi
  step_name=$*
  step_started=$SECONDS
  echo "== check: $*"
}
fail() { echo "check: FAILED: $*" >&2; exit 1; }

step "1. SHA256SUMS"
(cd "$dist" && sha256sum --check --strict --quiet SHA256SUMS) || fail "a sum does not match"
listed=$(awk '{print $2}' "$dist/SHA256SUMS" | sort)
present=$(cd "$dist" && find . -maxdepth 1 -type f ! -name SHA256SUMS -printf '%P\n' | sort)
[ "$listed" = "$present" ] || fail "SHA256SUMS lists $listed; the directory holds $present"
[ "$(echo "$listed" | wc -l)" -ge 10 ] || fail "only $(echo "$listed" | wc -l) artifacts"

step "2. archives"
declare -A arch_of=([x86_64-unknown-linux-musl]=x86-64 [aarch64-unknown-linux-musl]=aarch64)
declare -A helm_arch=([x86_64-unknown-linux-musl]=amd64 [aarch64-unknown-linux-musl]=arm64)
mkdir -p "$work/helm-plugin"
tar -xzf "$dist/config-hash-$version.tgz" -C "$work/helm-plugin"
for target in "${targets[@]}"; do
  name="config-hash-$version-$target"
  tar -xzf "$dist/$name.tar.gz" -C "$work"
  bin="$work/$name/config-hash"
  for file in README.md LICENSE CHANGELOG.md man/config-hash.1 completions/config-hash.bash \
    completions/_config-hash completions/config-hash.fish; do
    [ -s "$work/$name/$file" ] || fail "$name.tar.gz lacks $file"
  done
  description=$(file -b "$bin")
  case $description in
    *"${arch_of[$target]}"*static*) ;;
    *) fail "$name/config-hash is not a static ${arch_of[$target]} binary: $description" ;;
  esac
  case $description in *"dynamically linked"* | *interpreter*) fail "$description" ;; esac
  mkdir -p "$work/kustomize-$target"
  tar -xzf "$dist/config-hash-kustomize-plugin-$version-$target.tar.gz" -C "$work/kustomize-$target"
  cmp "$bin" "$work/kustomize-$target/config-hash.dev/v1alpha1/confighash/ConfigHash"
  cmp "$bin" "$work/helm-plugin/config-hash/bin/linux-${helm_arch[$target]}/config-hash"
done
x86="$work/config-hash-$version-x86_64-unknown-linux-musl/config-hash"
arm="$work/config-hash-$version-aarch64-unknown-linux-musl/config-hash"
"$x86" --version | grep -qx "config-hash $version" || fail "x86_64: $("$x86" --version)"
x86_man="$work/config-hash-$version-x86_64-unknown-linux-musl/man"
"$x86" man | cmp - "$x86_man/config-hash.1"
# A page for every command the binary has (clap's help aside), each as it prints it.
for command in $("$x86" --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && !/^  / { on = 0 }'); do
  [ "$command" = help ] && continue
  "$x86" man "$command" | cmp - "$x86_man/config-hash-$command.1" || fail "man/config-hash-$command.1"
done

step "3. SBOMs"
for target in "${targets[@]}"; do
  name="config-hash-$version-$target"
  # What cargo compiles into the binary for this target: normal dependencies (proc
  # macros among them), no build scripts' or tests' own.
  for platform in "$target" all; do
    cargo tree --locked -p config-hash --target "$platform" -e normal --prefix none \
      --format '{p}' | sed 's/ (.*//; s/ v/@/' | grep -v '^config-hash@' | sort -u >"$work/tree-$platform"
  done
  python3 - "$dist/$name.cdx.json" "$target" "$version" "$work/tree-$target" "$work/tree-all" <<'PY'
import json, sys
sbom, target, version, tree, any_platform = sys.argv[1:]
bom = json.load(open(sbom))
assert bom["bomFormat"] == "CycloneDX", bom["bomFormat"]
top = bom["metadata"]["component"]
assert (top["name"], top["version"]) == ("config-hash", version), top
props = {p["name"]: p["value"] for p in bom["metadata"].get("properties", [])}
assert props.get("cdx:rustc:sbom:target:triple") == target, props
listed = sorted({f'{c["name"]}@{c["version"]}' for c in bom["components"]})
compiled = sorted(set(open(tree).read().split()))
missing, extra = set(compiled) - set(listed), set(listed) - set(compiled)
assert not missing, f"{sbom}: crates compiled into the binary are missing: {sorted(missing)}"
# cargo-cyclonedx keeps a dependency declared for a platform condition no build meets
# (serde_core's serde_derive under cfg(any()), which pins their versions together):
# allowed, and named here, but nothing outside config-hash's dependencies on any platform.
outside = extra - set(open(any_platform).read().split())
assert not outside, f"{sbom}: lists crates config-hash does not depend on: {sorted(outside)}"
assert len(listed) >= 20, listed
note = f" (and {', '.join(sorted(extra))} listed for another platform)" if extra else ""
print(f"check: {sbom.rsplit('/', 1)[-1]}: all {len(compiled)} crates compiled in{note}")
PY
done
qemu-aarch64-static "$arm" --version | grep -qx "config-hash $version" || fail "aarch64 --version"
# The static binaries' allocator is mimalloc (musl's own made a run 3.6 times slower):
# asked, mimalloc prints its banner on stderr; musl's allocator prints nothing.
# (Read whole before the match: grep -q would stop reading, and pipefail fail the pipe.)
banner=$(MIMALLOC_VERBOSE=1 "$x86" --version 2>&1 >/dev/null)
grep -q '^mimalloc: ' <<<"$banner" || fail "x86_64: the binary's allocator is not mimalloc"
banner=$(MIMALLOC_VERBOSE=1 qemu-aarch64-static "$arm" --version 2>&1 >/dev/null)
grep -q '^mimalloc: ' <<<"$banner" || fail "aarch64: the binary's allocator is not mimalloc"

step "4. golden cases: x86_64 against the expected files"
release/golden-run.sh "$work/golden-x86" "$x86"
mismatch=0
for dir in testdata/*/; do
  name=$(basename "$dir")
  for ext in yaml json; do
    if [ -f "$dir/expected.$ext" ] && ! cmp -s "$dir/expected.$ext" "$work/golden-x86/$name.stdout"; then
      echo "check: $name: the release binary's output is not expected.$ext"
      mismatch=$((mismatch + 1))
    fi
  done
done
[ "$mismatch" -eq 0 ] || fail "$mismatch golden case(s)"
step "4. golden cases: aarch64 under qemu-aarch64-static against x86_64"
release/golden-run.sh "$work/golden-arm" "$arm" qemu-aarch64-static
diff -r "$work/golden-x86" "$work/golden-arm" >/dev/null || {
  diff -rq "$work/golden-x86" "$work/golden-arm" | head -20
  fail "aarch64 and x86_64 differ"
}
step "4. golden cases: wasm32-wasip1 under Node.js WASI against x86_64"
node --expose-gc --disable-warning=ExperimentalWarning release/wasi-golden.mjs "$work/golden-wasi" \
  "$dist/config-hash-$version-wasm32-wasip1.wasm"
diff -r "$work/golden-x86" "$work/golden-wasi" >/dev/null || {
  diff -rq "$work/golden-x86" "$work/golden-wasi" | head -20
  fail "wasm32-wasip1 and x86_64 differ"
}

step "5. the x86_64 binary in an empty root, as nobody"
mkdir -p "$work/empty-root"
cp "$x86" "$work/empty-root/config-hash"
chroot --userspec=65534:65534 "$work/empty-root" /config-hash \
  <examples/resource-list.yaml >"$work/empty-root.out" 2>"$work/empty-root.err" \
  || fail "in an empty root: $(cat "$work/empty-root.err")"
"$x86" <examples/resource-list.yaml | cmp - "$work/empty-root.out"
grep -q 'config-hash.dev/hash' "$work/empty-root.out" || fail "nothing stamped in the empty root"

step "6. the image: each architecture holds its archive's binary"
for arch in amd64 arm64; do
  [ "$(podman image inspect --format '{{.Architecture}}' "$image-$arch")" = "$arch" ] \
    || fail "$image-$arch is not $arch"
  container=$(podman create --arch "$arch" "$image-$arch")
  podman cp "$container:/config-hash" "$work/image-$arch"
  podman rm "$container" >/dev/null
done
cmp "$work/image-amd64" "$x86"
cmp "$work/image-arm64" "$arm"
[ "$(buildah manifest inspect "$image" | python3 -c 'import json,sys; print(" ".join(sorted(m["platform"]["architecture"] for m in json.load(sys.stdin)["manifests"])))')" = "amd64 arm64" ] \
  || fail "$image is not a manifest list of amd64 and arm64"

step "6. the image under kpt fn eval --image, against --exec"
for way in image exec; do
  rm -rf "$work/kpt-$way" && cp -r examples/basic "$work/kpt-$way"
done
KPT_FN_RUNTIME=podman kpt fn eval "$work/kpt-image" --image "$image-amd64" -- mode=both >/dev/null 2>"$work/kpt.err" \
  || fail "kpt fn eval --image: $(cat "$work/kpt.err")"
kpt fn eval "$work/kpt-exec" --exec "$x86" -- mode=both >/dev/null 2>&1
diff -r "$work/kpt-image" "$work/kpt-exec" || fail "--image and --exec differ"
diff -r examples/basic "$work/kpt-image" >/dev/null && fail "kpt fn eval --image changed nothing"

step "6. the image as kustomize's container KRM function, against the exec plugin"
mkdir -p "$work/shim" "$work/xdg-empty" "$work/xdg-plugin/kustomize/plugin"
ln -s "$(command -v podman)" "$work/shim/docker"
cp -r examples/container "$work/kustomize-container"
sed -i "s#image: localhost/config-hash:latest#image: $image-amd64#" "$work/kustomize-container/config-hash.yaml"
grep -q "image: $image-amd64" "$work/kustomize-container/config-hash.yaml" || fail "examples/container names no image"
PATH="$work/shim:$PATH" XDG_CONFIG_HOME="$work/xdg-empty" \
  kubectl kustomize --enable-alpha-plugins "$work/kustomize-container" >"$work/by-container.yaml"
cp -r examples/container "$work/kustomize-legacy"
python3 - "$work/kustomize-legacy/config-hash.yaml" <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
cut = "  annotations:\n    config.kubernetes.io/function: |\n      container:\n        image: localhost/config-hash:latest\n"
assert cut in text, text
open(path, "w").write(text.replace(cut, ""))
PY

step "7. the kustomize plugin layout, extracted where kustomize looks"
cp -r "$work/kustomize-x86_64-unknown-linux-musl/config-hash.dev" "$work/xdg-plugin/kustomize/plugin/"
XDG_CONFIG_HOME="$work/xdg-plugin" kubectl kustomize --enable-alpha-plugins \
  "$work/kustomize-legacy" >"$work/by-plugin.yaml"
cmp "$work/by-container.yaml" "$work/by-plugin.yaml" || fail "container function and plugin differ"
grep -q 'config-hash.dev/hash' "$work/by-plugin.yaml" || fail "kustomize: nothing stamped"

step "8. the Helm plugin with Helm 4"
# Plugins go to (and are found in) $HELM_DATA_HOME/plugins: a fresh one here.
unset HELM_PLUGINS
export HELM_CACHE_HOME="$work/helm-cache" HELM_CONFIG_HOME="$work/helm-config" \
  HELM_DATA_HOME="$work/helm-data"
if "$helm" plugin install "$dist/config-hash-$version.tgz" >"$work/helm.out" 2>&1; then
  fail "Helm 4 installed an unsigned plugin without --verify=false"
fi
"$helm" plugin install "$dist/config-hash-$version.tgz" --verify=false >/dev/null
"$helm" template r examples/helm/chart --post-renderer config-hash >"$work/helm-plugin.yaml"
"$helm" plugin uninstall config-hash >/dev/null
# The same chart through the plugin that runs config-hash from PATH.
mkdir -p "$work/path-bin" && cp "$x86" "$work/path-bin/config-hash"
"$helm" plugin install examples/helm/plugin >/dev/null
PATH="$work/path-bin:$PATH" "$helm" template r examples/helm/chart --post-renderer config-hash >"$work/helm-path.yaml"
"$helm" plugin uninstall config-hash >/dev/null
cmp "$work/helm-plugin.yaml" "$work/helm-path.yaml" || fail "Helm plugin and PATH plugin differ"
grep -q 'config-hash.dev/hash' "$work/helm-plugin.yaml" || fail "Helm: nothing stamped"

step "8. the Helm plugin signed (a throwaway key) installs with verification"
export GNUPGHOME="$work/gnupg"
mkdir -m 700 "$GNUPGHOME"
gpg --batch --quiet --passphrase '' --quick-gen-key 'config-hash check <check@config-hash.invalid>' \
  rsa2048 sign never
gpg --batch --quiet --export-secret-keys >"$work/secring.gpg"
gpg --batch --quiet --export >"$work/pubring.gpg"
HELM_SIGN_KEY='config-hash check' HELM_SIGN_KEYRING="$work/secring.gpg" \
  release/helm-plugin.sh "$version" "$x86" "$arm" "$work/signed" >/dev/null
[ -s "$work/signed/config-hash-$version.tgz.prov" ] || fail "no .prov"
"$helm" plugin install "$work/signed/config-hash-$version.tgz" --keyring "$work/pubring.gpg" >/dev/null
"$helm" template r examples/helm/chart --post-renderer config-hash | cmp - "$work/helm-plugin.yaml"
"$helm" plugin uninstall config-hash >/dev/null
# Control: the same .prov beside a tarball one byte longer is refused.
mkdir -p "$work/tampered"
cp "$work/signed/config-hash-$version.tgz" "$work/signed/config-hash-$version.tgz.prov" "$work/tampered/"
printf '\0' >>"$work/tampered/config-hash-$version.tgz"
if "$helm" plugin install "$work/tampered/config-hash-$version.tgz" --keyring "$work/pubring.gpg" >/dev/null 2>&1; then
  fail "Helm 4 installed a plugin that does not match its .prov"
fi
unset GNUPGHOME HELM_CACHE_HOME HELM_CONFIG_HOME HELM_DATA_HOME

step "9. the kpt wasm function against --exec, on every example package"
cp "$dist/config-hash-kpt-fn-$version.wasm" "$work/fn.wasm"
packages=0
for kptfile in examples/*/Kptfile; do
  pkg=$(dirname "$kptfile")
  for way in wasm exec; do
    rm -rf "$work/wasm-$way" && cp -r "$pkg" "$work/wasm-$way"
  done
  KPT_FN_WASM_RUNTIME=nodejs kpt fn eval "$work/wasm-wasm" --allow-alpha-wasm --exec "$work/fn.wasm" \
    >"$work/wasm.out" 2>&1 || fail "$pkg: the wasm function failed: $(cat "$work/wasm.out")"
  kpt fn eval "$work/wasm-exec" --exec "$x86" >/dev/null 2>&1 || fail "$pkg: --exec failed"
  diff -r "$work/wasm-wasm" "$work/wasm-exec" || fail "$pkg: wasm and --exec differ"
  packages=$((packages + 1))
done
[ "$packages" -ge 5 ] || fail "only $packages example packages"
# An error: both fail the same way (kpt shows the results, exit 1).
KPT_FN_WASM_RUNTIME=nodejs kpt fn eval "$work/wasm-wasm" --allow-alpha-wasm --exec "$work/fn.wasm" \
  -- mode=sideways >"$work/wasm-error.out" 2>&1 && fail "the wasm function accepted mode=sideways"
grep -q 'is not accepted' "$work/wasm-error.out" || fail "no error result: $(cat "$work/wasm-error.out")"

step "10. the release notes of this version, from CHANGELOG.md"
release/notes.sh "$version" >"$work/notes.md"
head -n1 "$work/notes.md" | grep -q . || fail "the notes start with a blank line"
grep -q '^## ' "$work/notes.md" && fail "the notes run into another version's section"
release/notes.sh 0.0.0-not-a-version >/dev/null 2>&1 && fail "notes.sh found notes for no version"

step "done"
echo "check: every check passed in $((SECONDS - started))s"
