#!/usr/bin/env bash
# The GitHub Action's step (action.yml), runnable anywhere: renders the manifests at
# INPUT_BASE and at the working tree, runs `config-hash diff` on the two, appends its
# Markdown to GITHUB_STEP_SUMMARY (to stdout without one), writes the JSON's path to
# GITHUB_OUTPUT, and exits as `config-hash diff` does (3 when a gate fails). It leaves
# nothing behind but that JSON (when GITHUB_OUTPUT asks for it): its work directory and
# the base revision's worktree are removed however it ends.
#
#   INPUT_RENDER  shell command writing the manifests to stdout, run at the root of each
#                 revision; empty: compare INPUT_PATH (default .) as it is
#   INPUT_BASE    the revision to compare with (required)
#   INPUT_ARGS    more `config-hash diff` options (split on blanks, never glob-expanded)
set -euo pipefail

: "${INPUT_BASE:?INPUT_BASE: the revision to compare with (for a pull request, its base sha)}"
render=${INPUT_RENDER:-}
read -ra args <<< "${INPUT_ARGS:-}"
path=${INPUT_PATH:-.}
tmp=${RUNNER_TEMP:-${TMPDIR:-/tmp}}
head=$(git rev-parse --show-toplevel)

# The base must name a commit; `--end-of-options` and `--` keep one that starts with `-`
# from being read as an option.
if ! base=$(git -C "$head" rev-parse --verify --quiet --end-of-options "$INPUT_BASE^{commit}"); then
  echo "error: INPUT_BASE '$INPUT_BASE' is not a commit of this repository (is it fetched? actions/checkout needs fetch-depth: 0)" >&2
  exit 1
fi

work=$(mktemp -d "$tmp/config-hash-diff.XXXXXX")
# shellcheck disable=SC2317 # run by the trap
cleanup() {
  if [ -e "$work/base" ]; then
    git -C "$head" worktree remove --force -- "$work/base" || true
  fi
  rm -rf -- "$work"
}
trap cleanup EXIT

# The base revision, checked out beside the working tree (never touching it).
git -C "$head" worktree add --quiet --detach -- "$work/base" "$base"

# Runs the render command in $1, its output to $2; a failure stops the step, saying so.
render_at() {
  local status=0
  (cd "$1" && sh -c "$render") > "$2" || status=$?
  if [ "$status" -ne 0 ]; then
    echo "error: the render command failed (exit $status) at $3: $render" >&2
    exit 1
  fi
}

if [ -n "$render" ]; then
  render_at "$work/base" "$work/before.yaml" "the base revision ($INPUT_BASE)"
  render_at "$head" "$work/after.yaml" "the working tree"
  before=$work/before.yaml
  after=$work/after.yaml
else
  before=$work/base/$path
  after=$head/$path
fi

set +e
config-hash diff ${args[@]+"${args[@]}"} --format json "$before" "$after" > "$work/diff.json"
json_status=$?
config-hash diff ${args[@]+"${args[@]}"} --format markdown "$before" "$after" > "$work/diff.md"
status=$?
set -e
if [ "$json_status" -ne "$status" ] || { [ "$status" -ne 0 ] && [ "$status" -ne 3 ]; }; then
  cat "$work/diff.md" >&2
  exit "$status"
fi
if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  cat "$work/diff.md" >> "$GITHUB_STEP_SUMMARY"
else
  cat "$work/diff.md"
fi
if [ -n "${GITHUB_OUTPUT:-}" ]; then
  # Outside the work directory, which is removed: later steps read it.
  json=$(mktemp "$tmp/config-hash-diff.XXXXXX.json")
  cp "$work/diff.json" "$json"
  echo "json=$json" >> "$GITHUB_OUTPUT"
fi
exit "$status"
