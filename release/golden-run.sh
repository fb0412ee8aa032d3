#!/usr/bin/env bash
# Runs a config-hash binary on every golden case under testdata/ the way tests/golden.rs
# does, and writes what it did to OUT: <case>.stdout, <case>.stderr and <case>.status.
# Two such directories are compared byte for byte by release/check.sh (the aarch64
# binary under qemu against the x86_64 one; the WASI build against both).
#
#   release/golden-run.sh OUT BINARY [RUNNER...]     # RUNNER: e.g. qemu-aarch64-static
#
# A case is one of: input.yaml or input.json on stdin; `args` (one argument a line) run
# in the case's directory; live.yaml: `prune --live live.yaml [args] render.yaml`.
set -euo pipefail
cd "$(dirname "$0")/.."

out=$1
binary=$(realpath "$2")
shift 2
runner=("$@")
mkdir -p "$out"
out=$(realpath "$out")
# The expected files are unkeyed hashes with the default on-missing, whatever the
# caller's environment holds.
unset CONFIG_HASH_KEY CONFIG_HASH_KEY_FILE CONFIG_HASH_ON_MISSING

cases=0
for dir in testdata/*/; do
  name=$(basename "$dir")
  args=()
  if [ -f "$dir/args" ]; then
    mapfile -t args < <(grep -v '^[[:space:]]*$' "$dir/args" || true)
  fi
  status=0
  if [ -f "$dir/live.yaml" ]; then
    (cd "$dir" && "${runner[@]}" "$binary" prune --live live.yaml "${args[@]}" render.yaml) \
      </dev/null >"$out/$name.stdout" 2>"$out/$name.stderr" || status=$?
  elif [ -f "$dir/args" ]; then
    (cd "$dir" && "${runner[@]}" "$binary" "${args[@]}") \
      </dev/null >"$out/$name.stdout" 2>"$out/$name.stderr" || status=$?
  else
    input=${dir}input.yaml
    [ -f "$input" ] || input=${dir}input.json
    "${runner[@]}" "$binary" <"$input" >"$out/$name.stdout" 2>"$out/$name.stderr" || status=$?
  fi
  echo "$status" >"$out/$name.status"
  cases=$((cases + 1))
done
if [ "$cases" -eq 0 ]; then
  echo "golden-run: no case under testdata/" >&2
  exit 1
fi
echo "golden-run: $cases cases run with ${runner[*]:+${runner[*]} }$binary"
