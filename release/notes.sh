#!/usr/bin/env bash
# Prints the release notes of VERSION: the section of CHANGELOG.md headed `## VERSION`,
# without its heading, up to the next `## ` heading. Fails when there is no such
# section, or it is empty, so a release is never published without its notes.
#
#   release/notes.sh VERSION > notes.md
set -euo pipefail
cd "$(dirname "$0")/.."

version=${1:?usage: release/notes.sh VERSION}
notes=$(awk -v heading="## $version" '
  $0 == heading { inside = 1; next }
  inside && /^## / { exit }
  inside { print }
' CHANGELOG.md | sed -e '/./,$!d')
if [ -z "$(printf '%s' "$notes" | tr -d '[:space:]')" ]; then
  echo "notes: CHANGELOG.md has no section '## $version' with text" >&2
  exit 1
fi
printf '%s\n' "$notes"
