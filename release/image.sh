#!/usr/bin/env bash
# Builds the multi-arch image (linux/amd64 and linux/arm64) from the static binaries in
# a release directory (release/build.sh), with buildah: no Rust toolchain and no
# emulation, since nothing runs during the build (release/Containerfile is FROM scratch).
# The binaries are taken out of the release archives, so the image holds exactly what
# the archives hold.
#
#   release/image.sh DIST [NAME]     # NAME default localhost/config-hash:VERSION
#
# NAME is a manifest list in local storage; each architecture's image is also tagged
# NAME-amd64 and NAME-arm64, which kpt and podman can run by name. Push with
#   buildah manifest push --all NAME docker://ghcr.io/OWNER/config-hash:vVERSION
set -euo pipefail
cd "$(dirname "$0")/.."

dist=${1:?usage: release/image.sh DIST [NAME]}
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n1)
name=${2:-localhost/config-hash:$version}
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}
source_url=$(sed -n 's/^repository = "\(.*\)"$/\1/p' Cargo.toml | head -n1)

context=$(mktemp -d)
trap 'rm -rf "$context"' EXIT
cp container/passwd container/group release/Containerfile "$context/"
declare -A triple=([amd64]=x86_64-unknown-linux-musl [arm64]=aarch64-unknown-linux-musl)
for arch in amd64 arm64; do
  archive="$dist/config-hash-$version-${triple[$arch]}.tar.gz"
  mkdir -p "$context/$arch"
  tar -xzf "$archive" -C "$context/$arch" --strip-components=1 \
    "config-hash-$version-${triple[$arch]}/config-hash"
done

# A manifest list cannot be re-created under a name an image holds; start afresh.
buildah manifest rm "$name" >/dev/null 2>&1 || buildah rmi "$name" >/dev/null 2>&1 || true
buildah manifest create "$name" >/dev/null
for arch in amd64 arm64; do
  buildah rmi "$name-$arch" >/dev/null 2>&1 || true
  # --timestamp: the image's times are the commit's, so a rebuild gives the same digest.
  buildah build --quiet --isolation chroot --os linux --arch "$arch" \
    --build-arg "TARGETARCH=$arch" --timestamp "$SOURCE_DATE_EPOCH" \
    --label "org.opencontainers.image.source=$source_url" \
    --label "org.opencontainers.image.version=$version" \
    --label "org.opencontainers.image.licenses=Apache-2.0" \
    --label "org.opencontainers.image.description=config-hash, a KRM function: stamps the hash of the ConfigMaps and Secrets each pod reads into its pod template" \
    -t "$name-$arch" -f "$context/Containerfile" "$context" >/dev/null
  buildah manifest add --os linux --arch "$arch" "$name" "containers-storage:$name-$arch" >/dev/null
done
echo "image: $name (linux/amd64, linux/arm64; also $name-amd64 and $name-arm64)"
