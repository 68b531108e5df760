#!/usr/bin/env bash
# Formats the tracked C and C++ files with clang-format (.clang-format); with --check, changes
# nothing and exits 1 listing the files that differ (CTest: code.format). Exit 77 when clang-format
# or git is missing, or the tree is not a git checkout (CTest counts it as skipped).
# MPIMON_FORMAT_ROOT: the tree to format (default: this repository).
set -euo pipefail
cd "${MPIMON_FORMAT_ROOT:-$(dirname "$0")/..}"
format=$(command -v clang-format || command -v clang-format-14 || true)
[ -n "$format" ] || { echo "SKIP: clang-format is not installed (ci/install-deps.sh installs it)"; exit 77; }
command -v git >/dev/null && git rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
  { echo "SKIP: not a git checkout (the files to check are git's tracked files)"; exit 77; }
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cpp' '*.hpp')
if [ "${1:-}" = "--check" ]; then
  # One clang-format for every file (a process per file took six times as long): each line it
  # complains with starts with the file's name.
  status=0
  complaints=$("$format" --style=file --dry-run -Werror "${files[@]}" 2>&1 >/dev/null) || status=$?
  differ=$(sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: error: .*clang-format-violations.*/\1/p' <<<"$complaints" | sort -u || true)
  if [ -n "$differ" ]; then
    sed 's/^/not formatted: /' <<<"$differ"
    exit 1
  fi
  [ "$status" -eq 0 ] || { printf '%s\n' "$complaints"; echo "clang-format failed (exit code $status)"; exit 1; }
  echo "${#files[@]} files formatted as .clang-format says"
  exit 0
fi
"$format" --style=file -i "${files[@]}"
