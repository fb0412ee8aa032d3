#!/bin/sh
# The C compiler for the static musl binaries (release/build.sh sets it as CC for both
# musl targets): zig's clang with its own musl headers, so the aarch64 binary needs no
# cross toolchain. The cc crate passes the Rust target (--target=aarch64-unknown-linux-musl),
# which zig spells aarch64-linux-musl. Only mimalloc is compiled with it (Cargo.toml).
#
#   ZIG   the zig command (default: python3 -m ziglang, the PyPI wheel
#         .ci/setup-release-tools.sh installs)
set -eu
# mimalloc's verbose banner prints __DATE__ and __TIME__: one fixed date keeps the binary
# the same whichever commit or machine built it (cargo keeps a compiled mimalloc across
# commits, and zig caches objects by their inputs, not by this variable).
SOURCE_DATE_EPOCH=0
export SOURCE_DATE_EPOCH
for arg do
  shift
  case $arg in
    --target=*-unknown-linux-musl)
      triple=${arg#--target=}
      set -- "$@" -target "${triple%%-*}-linux-musl"
      ;;
    *) set -- "$@" "$arg" ;;
  esac
done
# shellcheck disable=SC2086 # ZIG may be a command with arguments
exec ${ZIG:-python3 -m ziglang} cc "$@"
