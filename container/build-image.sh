#!/usr/bin/env bash
# Builds config-hash's image without pulling anything: the static binary with the host's
# Rust toolchain (the Dockerfile's flags), then the Dockerfile's final stage (FROM
# scratch) around it, with buildah (or podman build). Use it where the Dockerfile's
# build stage cannot pull its Rust image (no registry access).
#
#   container/build-image.sh [IMAGE]          # default localhost/config-hash:latest
#
# CARGO_TARGET_DIR is honoured (cargo's own variable).
set -euo pipefail
cd "$(dirname "$0")/.."

image=${1:-localhost/config-hash:latest}
target=x86_64-unknown-linux-gnu
target_dir=${CARGO_TARGET_DIR:-target}

# Only the shipped binary is static (--target keeps crt-static off build scripts).
RUSTFLAGS='-C target-feature=+crt-static' \
  cargo build --release --locked --target "$target"

context=$(mktemp -d)
trap 'rm -rf "$context"' EXIT
cp "$target_dir/$target/release/config-hash" "$context/config-hash"
cp -r container "$context/"
# The Dockerfile's final stage, taking the binary from the context.
sed -n '/^FROM scratch$/,$p' Dockerfile \
  | sed 's#^COPY --from=build /out/config-hash /config-hash$#COPY config-hash /config-hash#' \
  >"$context/Containerfile"

if command -v buildah >/dev/null; then
  buildah bud --isolation chroot -q -t "$image" -f "$context/Containerfile" "$context"
else
  podman build -q -t "$image" -f "$context/Containerfile" "$context"
fi
echo "built $image"
