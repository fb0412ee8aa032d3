#!/usr/bin/env bash
# Sets up a rootful podman that can run config-hash's container image, for the
# container end-to-end tests (tests/e2e_container.rs): the same script the container
# guide (docs/guide-containers.md) gives users, container/setup-podman.sh. Needs root.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" -ne 0 ]; then
  echo "setup-container: must run as root (installs packages, writes /etc/containers)" >&2
  exit 1
fi
exec bash container/setup-podman.sh
