#!/usr/bin/env bash
# Builds every artifact of a release into one directory (default target/dist):
#
#   config-hash-V-x86_64-unknown-linux-musl.tar.gz    static binaries, each with README,
#   config-hash-V-aarch64-unknown-linux-musl.tar.gz   LICENSE, CHANGELOG, completions, man pages
#   config-hash-V-TARGET.cdx.json                      CycloneDX SBOM of each binary
#   config-hash-kustomize-plugin-V-TARGET.tar.gz       the kustomize exec plugin layout
#   config-hash-V.tgz (and .prov when signing)         the Helm 4 plugin, both binaries
#   config-hash-V-wasm32-wasip1.wasm                   the CLI for WASI runtimes
#   config-hash-kpt-fn-V.wasm                          the kpt wasm function (experimental)
#   config-hash.schema.json                            JSON Schema of the functionConfig
#   SHA256SUMS                                         the sha256 of every file above
#
# and, where buildah is on PATH, the multi-arch image (release/image.sh).
#
#   release/build.sh [--out DIR] [--no-image] [--image NAME]
#
# Needs: rustup targets x86_64-unknown-linux-musl, aarch64-unknown-linux-musl,
# wasm32-wasip1, wasm32-unknown-unknown; cargo-cyclonedx; zig ($ZIG, default the PyPI
# wheel under target/tools/zig from .ci/setup-release-tools.sh), which compiles the musl
# binaries' allocator (mimalloc, C) for both targets; Helm 4 ($HELM, default
# target/tools/helm4/helm from .ci/setup-helm.sh). The aarch64 binary is linked with
# rust-lld, so no cross C toolchain is needed. To sign the Helm plugin (.prov), set
# HELM_SIGN_KEY and HELM_SIGN_KEYRING (see release/helm-plugin.sh).
#
# Reproducible: file times are the last commit's (SOURCE_DATE_EPOCH), archives list
# their files in order with owner 0, and build paths are remapped out of the binaries.
# CARGO_TARGET_DIR is honoured. The x86_64 binary is built first and runs the rest
# (completions, man pages), so the host must run x86_64 Linux binaries.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

out=target/dist
image=
build_image=auto
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    --no-image) build_image=no; shift ;;
    --image) image=$2; build_image=yes; shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "build.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)
targets=(x86_64-unknown-linux-musl aarch64-unknown-linux-musl)
target_dir=${CARGO_TARGET_DIR:-target}
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}
cargo_home=${CARGO_HOME:-$HOME/.cargo}
# No build machine's paths in the binaries: panic messages name src/... and crates by
# their registry name, wherever the build ran.
remap="--remap-path-prefix=$root=. --remap-path-prefix=$cargo_home=/cargo"
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_MUSL_LINKER=rust-lld
if [ -z "${ZIG:-}" ]; then
  zig_python=$root/target/tools/zig/bin/python
  if [ ! -x "$zig_python" ]; then
    echo "build.sh: no zig: run .ci/setup-release-tools.sh, or set ZIG to a zig command" >&2
    exit 1
  fi
  export ZIG="$zig_python -m ziglang"
fi
for t in x86_64_unknown_linux_musl aarch64_unknown_linux_musl; do
  export "CC_$t=$root/release/zig-cc.sh" "AR_$t=$root/release/zig-ar.sh"
done
for t in X86_64_UNKNOWN_LINUX_MUSL AARCH64_UNKNOWN_LINUX_MUSL; do
  export "CARGO_TARGET_${t}_RUSTFLAGS=-C strip=symbols $remap"
done
export CARGO_TARGET_WASM32_WASIP1_RUSTFLAGS="$remap"
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="$remap"

step() { echo "== release: $*"; }
tar_reproducibly() { # <archive.tar.gz> <dir> <entry>
  tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
    --format=gnu -C "$2" -cf - "$3" | gzip -n -9 >"$1"
}

rm -rf "$out"
mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
# zig caches what it compiles by its inputs: a cache of this build's own, so no object
# compiled elsewhere (another date in mimalloc's banner) finds its way in.
export ZIG_GLOBAL_CACHE_DIR="$stage/zig-cache" ZIG_LOCAL_CACHE_DIR="$stage/zig-cache"

for target in "${targets[@]}"; do
  step "binary for $target"
  cargo build --release --locked --bin config-hash --target "$target"
done
bin_of() { echo "$target_dir/$1/release/config-hash"; }
host_bin=$(bin_of x86_64-unknown-linux-musl)

step "completions and man pages"
docs="$stage/docs"
mkdir -p "$docs/completions" "$docs/man"
"$host_bin" completions bash >"$docs/completions/config-hash.bash"
"$host_bin" completions zsh >"$docs/completions/_config-hash"
"$host_bin" completions fish >"$docs/completions/config-hash.fish"
# One page per command (config-hash.1, config-hash-diff.1, ...); the paths it prints
# are not needed.
"$host_bin" man --dir "$docs/man" >/dev/null

for target in "${targets[@]}"; do
  step "archive, SBOM and kustomize plugin for $target"
  name="config-hash-$version-$target"
  dir="$stage/$name"
  mkdir -p "$dir"
  install -m 0755 "$(bin_of "$target")" "$dir/config-hash"
  install -m 0644 README.md LICENSE CHANGELOG.md "$dir/"
  cp -r "$docs/completions" "$docs/man" "$dir/"
  touch -d "@$SOURCE_DATE_EPOCH" "$dir"
  tar_reproducibly "$out/$name.tar.gz" "$stage" "$name"

  # The dependencies compiled into the binary for this target (build scripts' own
  # dependencies left out); written beside Cargo.toml by the tool, moved here.
  cargo cyclonedx --quiet --format json --spec-version 1.5 --describe binaries \
    --target "$target" --no-build-deps --manifest-path Cargo.toml
  mv config-hash_bin.cdx.json "$out/$name.cdx.json"
  find . crates -maxdepth 3 -name '*.cdx.json' -not -path './target/*' -delete

  # kustomize finds a legacy exec plugin at $XDG_CONFIG_HOME/kustomize/plugin/<group>/
  # <version>/<lowercase kind>/<kind>: extract this under ~/.config/kustomize/plugin.
  plugin="$stage/kustomize-$target"
  mkdir -p "$plugin/config-hash.dev/v1alpha1/confighash"
  install -m 0755 "$(bin_of "$target")" "$plugin/config-hash.dev/v1alpha1/confighash/ConfigHash"
  find "$plugin" -exec touch -d "@$SOURCE_DATE_EPOCH" {} +
  tar_reproducibly "$out/config-hash-kustomize-plugin-$version-$target.tar.gz" "$plugin" config-hash.dev
done

step "Helm 4 plugin"
release/helm-plugin.sh "$version" "$(bin_of x86_64-unknown-linux-musl)" \
  "$(bin_of aarch64-unknown-linux-musl)" "$out"

step "wasm: the CLI for WASI (wasm32-wasip1) and the kpt wasm function"
cargo build --release --locked --bin config-hash --target wasm32-wasip1
install -m 0644 "$target_dir/wasm32-wasip1/release/config-hash.wasm" \
  "$out/config-hash-$version-wasm32-wasip1.wasm"
cargo build --release --locked -p config-hash-kpt-wasm --target wasm32-unknown-unknown
install -m 0644 "$target_dir/wasm32-unknown-unknown/release/config_hash_kpt_wasm.wasm" \
  "$out/config-hash-kpt-fn-$version.wasm"

step "JSON Schema of the functionConfig"
install -m 0644 schema/config-hash.schema.json "$out/config-hash.schema.json"

step "SHA256SUMS"
(cd "$out" && find . -maxdepth 1 -type f -printf '%P\n' | LC_ALL=C sort | xargs sha256sum) \
  >"$stage/SHA256SUMS"
mv "$stage/SHA256SUMS" "$out/SHA256SUMS"
cat "$out/SHA256SUMS"

if [ "$build_image" = auto ]; then
  if command -v buildah >/dev/null; then build_image=yes; else
    echo "release: buildah is not on PATH: no image (release/image.sh builds it later)"
  fi
fi
if [ "$build_image" = yes ]; then
  step "multi-arch image"
  release/image.sh "$out" ${image:+"$image"}
fi
echo "release: $out"
