#!/bin/sh
# The archiver beside release/zig-cc.sh: zig's, which indexes objects of any target.
set -eu
# shellcheck disable=SC2086 # ZIG may be a command with arguments
exec ${ZIG:-python3 -m ziglang} ar "$@"
