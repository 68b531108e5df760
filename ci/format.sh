#!/usr/bin/env bash
# Formats the tracked C and C++ files with clang-format (.clang-format); with --check, changes
# nothing and exits 1 listing the files that differ. Not yet called by ci/test.sh: the tree is
# formatted once first.
set -euo pipefail
cd "$(dirname "$0")/.."
format=$(command -v clang-format || command -v clang-format-14)
mapfile -t files < <(git ls-files '*.c' '*.h' '*.cpp' '*.hpp')
if [ "${1:-}" = "--check" ]; then
  differ=0
  for f in "${files[@]}"; do
    if ! "$format" --style=file "$f" | cmp -s "$f" -; then echo "not formatted: $f"; differ=1; fi
  done
  exit $differ
fi
"$format" --style=file -i "${files[@]}"
