#!/usr/bin/env bash
# Makes podman able to run config-hash's image under kpt and kustomize, on a Debian or
# Ubuntu machine: installs podman, buildah and runc from the distribution's packages
# when missing (needs root), and writes podman's containers.conf (needs root for the
# default /etc/containers/containers.conf; CONTAINERS_CONF=FILE writes FILE instead,
# which podman then reads when the same variable is set).
#
# Why: where podman's default runtime (crun) cannot manage cgroups, or its default
# ulimits exceed what the machine allows, a function container fails to start with
# "error setting rlimit type 7: operation not permitted". runc with these limits works.
# Idempotent: a second run installs and writes nothing.
set -euo pipefail

conf=${CONTAINERS_CONF:-/etc/containers/containers.conf}

missing=()
for tool in podman buildah runc; do
  if command -v "$tool" >/dev/null; then
    echo "setup-podman: $tool present: $(command -v "$tool")"
  else
    missing+=("$tool")
  fi
done

if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup-podman: ${missing[*]} missing; run as root to install them (apt-get)" >&2
    exit 1
  fi
  echo "setup-podman: installing ${missing[*]} from the distribution's packages"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

wanted='[containers]
default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]

[engine]
runtime = "runc"'

if [ -f "$conf" ] && [ "$(cat "$conf")" = "$wanted" ]; then
  echo "setup-podman: $conf already up to date"
else
  mkdir -p "$(dirname "$conf")"
  if [ -f "$conf" ]; then
    cp "$conf" "$conf.bak"
    echo "setup-podman: kept the previous $conf as $conf.bak"
  fi
  printf '%s\n' "$wanted" >"$conf"
  echo "setup-podman: wrote $conf (runtime runc, nofile/nproc 1024)"
fi

echo "setup-podman: $(podman --version), $(buildah --version | cut -d' ' -f1-3), $(runc --version | head -n1)"
