#!/usr/bin/env bash
# Builds the fuzzing seed corpus (not committed): every golden input under testdata/,
# and, when present, the real-world manifests under ../../shared/corpus/ (as plain
# streams) and each of them wrapped in a ResourceList. krm_options seeds get two leading
# option bytes (see fuzz_targets/krm_options.rs), one copy per few option sets.
set -euo pipefail
cd "$(dirname "$0")"
root=..
shared=${SHARED_CORPUS:-$root/../shared/corpus}
rm -rf corpus
mkdir -p corpus/krm_default corpus/krm_options corpus/graph corpus/reader_vs_saphyr
n=0
add() { # add FILE
  local f=$1
  n=$((n + 1))
  cp "$f" "corpus/krm_default/seed-$n"
  cp "$f" "corpus/graph/seed-$n"
  cp "$f" "corpus/reader_vs_saphyr/seed-$n"
  for opts in '\x00\x00' '\x22\x05' '\x8d\x06' '\x61\x07'; do
    { printf "$opts"; cat "$f"; } > "corpus/krm_options/seed-$n-${opts//\\x/}"
  done
}
for f in "$root"/testdata/*/input.*; do
  add "$f"
done
if [ -d "$shared" ]; then
  while IFS= read -r -d '' f; do
    # Keep seeds small: libFuzzer mutates short inputs far faster.
    [ "$(stat -c %s "$f")" -le 65536 ] || continue
    add "$f"
  done < <(find "$shared" -type f \( -name '*.yaml' -o -name '*.yml' \) -print0 | sort -z)
fi
# Every input a fuzz run ever failed on, kept per target (krm_options inputs keep their
# two option bytes), so each later run starts from them.
for target in krm_default krm_options graph reader_vs_saphyr; do
  if [ -d "regressions/$target" ]; then
    for f in "regressions/$target"/*; do
      [ -f "$f" ] || continue
      n=$((n + 1))
      cp "$f" "corpus/$target/regression-$(basename "$f")"
    done
  fi
done
echo "seeded $n inputs into fuzz/corpus/{krm_default,krm_options,graph,reader_vs_saphyr}"
