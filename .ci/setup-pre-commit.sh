#!/usr/bin/env bash
# Installs the real pre-commit from PyPI into a virtualenv for the pre-commit hook's
# end-to-end test (tests/e2e_review.rs): target/tools/pre-commit/bin/pre-commit.
# Idempotent: a virtualenv with this version is kept.
set -euo pipefail
cd "$(dirname "$0")/.."

version=4.7.0
venv="$PWD/target/tools/pre-commit"
python=$(command -v python3 || command -v python)

if [ -x "$venv/bin/pre-commit" ] && "$venv/bin/pre-commit" --version | grep -qF "$version"; then
  echo "setup-pre-commit: pre-commit $version present: $venv/bin/pre-commit"
  exit 0
fi
rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "pre-commit==$version"
"$venv/bin/pre-commit" --version
