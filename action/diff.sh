#!/usr/bin/env bash
# The GitHub Action's step (action.yml), runnable anywhere: renders the manifests at
# INPUT_BASE and at the working tree, runs `config-hash diff` on the two, appends its
# Markdown to GITHUB_STEP_SUMMARY, writes the JSON's path to GITHUB_OUTPUT, and exits
# as `config-hash diff` does (3 when a gate fails).
#
#   INPUT_RENDER  shell command writing the manifests to stdout, run at the root of each
#                 revision; empty: compare INPUT_PATH (default .) as it is
#   INPUT_BASE    the revision to compare with (required)
#   INPUT_ARGS    more `config-hash diff` options (split on blanks)
set -euo pipefail

: "${INPUT_BASE:?INPUT_BASE: the revision to compare with (for a pull request, its base sha)}"
render=${INPUT_RENDER:-}
args=${INPUT_ARGS:-}
path=${INPUT_PATH:-.}
summary=${GITHUB_STEP_SUMMARY:-/dev/stdout}
work=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/config-hash-diff.XXXXXX")
head=$(git rev-parse --show-toplevel)

# The base revision, checked out beside the working tree (never touching it).
git -C "$head" worktree add --quiet --detach "$work/base" "$INPUT_BASE"
trap 'git -C "$head" worktree remove --force "$work/base"' EXIT

if [ -n "$render" ]; then
  (cd "$work/base" && sh -c "$render") > "$work/before.yaml"
  (cd "$head" && sh -c "$render") > "$work/after.yaml"
  before=$work/before.yaml
  after=$work/after.yaml
else
  before=$work/base/$path
  after=$head/$path
fi

# shellcheck disable=SC2086 # args is a list of options
set +e
config-hash diff $args --format json "$before" "$after" > "$work/diff.json"
json_status=$?
config-hash diff $args --format markdown "$before" "$after" > "$work/diff.md"
status=$?
set -e
if [ "$json_status" -ne "$status" ] || { [ "$status" -ne 0 ] && [ "$status" -ne 3 ]; }; then
  cat "$work/diff.md" >&2
  exit "$status"
fi
cat "$work/diff.md" >> "$summary"
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  echo "json=$work/diff.json" >> "$GITHUB_OUTPUT"
fi
exit "$status"
