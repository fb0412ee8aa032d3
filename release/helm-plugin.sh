#!/usr/bin/env bash
# Packages the Helm 4 plugin of a release: release/helm-plugin.yaml with both static
# binaries, as Helm's own `helm plugin package` makes it (config-hash-VERSION.tgz), and
# signs it (a .prov beside it, which `helm plugin install` verifies by default) when
# HELM_SIGN_KEY names a key of the secret keyring HELM_SIGN_KEYRING
# (HELM_SIGN_PASSPHRASE_FILE: its passphrase, if it has one).
#
#   release/helm-plugin.sh VERSION AMD64_BINARY ARM64_BINARY OUT_DIR
#
# Helm 4: $HELM, default target/tools/helm4/helm (.ci/setup-helm.sh). Used by
# release/build.sh, and by release/check.sh with a throwaway key to prove the signed
# plugin installs.
set -euo pipefail
cd "$(dirname "$0")/.."

version=$1 amd64=$2 arm64=$3 out=$4
helm=${HELM:-target/tools/helm4/helm}
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
dir="$stage/config-hash"
mkdir -p "$dir/bin/linux-amd64" "$dir/bin/linux-arm64"
sed "s/@VERSION@/$version/" release/helm-plugin.yaml >"$dir/plugin.yaml"
install -m 0755 "$amd64" "$dir/bin/linux-amd64/config-hash"
install -m 0755 "$arm64" "$dir/bin/linux-arm64/config-hash"
install -m 0644 LICENSE "$dir/"
find "$stage" -exec touch -d "@$SOURCE_DATE_EPOCH" {} +

if [ -n "${HELM_SIGN_KEY:-}" ]; then
  sign=(--sign --key "$HELM_SIGN_KEY" --keyring "${HELM_SIGN_KEYRING:?the secret keyring that holds HELM_SIGN_KEY}")
  if [ -n "${HELM_SIGN_PASSPHRASE_FILE:-}" ]; then
    sign+=(--passphrase-file "$HELM_SIGN_PASSPHRASE_FILE")
  fi
else
  echo "helm-plugin: HELM_SIGN_KEY is not set: the plugin is not signed (no .prov)"
  sign=(--sign=false)
fi
mkdir -p "$out"
"$helm" plugin package "$dir" --destination "$out" "${sign[@]}" 2>&1 \
  | grep -v '^WARNING: Skipping plugin signing' || true
test -f "$out/config-hash-$version.tgz"
