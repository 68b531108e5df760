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
  differ=0
  for f in "${files[@]}"; do
    if ! "$format" --style=file "$f" | cmp -s "$f" -; then echo "not formatted: $f"; differ=1; fi
  done
  [ $differ = 0 ] && echo "${#files[@]} files formatted as .clang-format says"
  exit $differ
fi
"$format" --style=file -i "${files[@]}"
