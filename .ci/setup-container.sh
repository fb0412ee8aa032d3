#!/usr/bin/env bash
# Sets up a rootful podman that can run config-hash's container image, for the
# container end-to-end tests (tests/e2e_container.rs). Idempotent: installs podman,
# buildah and runc from Debian packages only when missing, and (re)writes
# /etc/containers/containers.conf only when its content differs. Needs root.
#
# Why runc and low ulimits: the default crun runtime fails in this sandbox (cgroups
# hybrid mode), and podman's default ulimits exceed what the sandbox allows; runc with
# the limits below works (see ../shared/docs/krm-and-orchestrators.md).
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
  echo "setup-container: must run as root (installs packages, writes /etc/containers)" >&2
  exit 1
fi

missing=()
for tool in podman buildah runc; do
  if command -v "$tool" >/dev/null; then
    echo "setup-container: $tool present: $(command -v "$tool")"
  else
    missing+=("$tool")
  fi
done

if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup-container: installing ${missing[*]} from Debian packages"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "setup-container: nothing to install"
fi

conf=/etc/containers/containers.conf
wanted='[containers]
default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]

[engine]
runtime = "runc"'

mkdir -p /etc/containers
if [ -f "$conf" ] && [ "$(cat "$conf")" = "$wanted" ]; then
  echo "setup-container: $conf already up to date"
else
  if [ -f "$conf" ]; then
    cp "$conf" "$conf.bak"
    echo "setup-container: kept the previous $conf as $conf.bak"
  fi
  printf '%s\n' "$wanted" >"$conf"
  echo "setup-container: wrote $conf (runtime runc, nofile/nproc 1024)"
fi

echo "setup-container: $(podman --version), $(buildah --version | cut -d' ' -f1-3), $(runc --version | head -n1)"
