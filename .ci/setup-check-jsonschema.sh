#!/usr/bin/env bash
# Installs check-jsonschema from PyPI into a virtualenv, for the schema test
# (tests/schema.rs): target/tools/check-jsonschema/bin/check-jsonschema. It validates
# the examples' functionConfigs against schema/config-hash.schema.json.
# Idempotent: a virtualenv with this version is kept.
set -euo pipefail
cd "$(dirname "$0")/.."

version=0.39.0
venv="$PWD/target/tools/check-jsonschema"
python=$(command -v python3 || command -v python)

if [ -x "$venv/bin/check-jsonschema" ] && "$venv/bin/check-jsonschema" --version | grep -qF "$version"; then
  echo "setup-check-jsonschema: check-jsonschema $version present: $venv/bin/check-jsonschema"
  exit 0
fi
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "check-jsonschema==$version"
"$venv/bin/check-jsonschema" --version
