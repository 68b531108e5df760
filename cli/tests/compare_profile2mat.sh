#!/usr/bin/env bash
# Runs Open MPI's profile2mat on the concatenation of one dump's rank files, and
# `mpimon export mat --compat profile2mat` on the merged dump, and requires the same file names
# with identical bytes.
# Usage: compare_profile2mat.sh MPIMON MPIMON_MERGE PROFILE2MAT DUMP_FILES...
set -euo pipefail
mpimon=$1 merge=$2 profile2mat=$3
shift 3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
first=$(basename "$1")
dump=${first%.*.prof}
mkdir "$work/ref" "$work/mine"
cat "$@" >"$work/ref/$dump.prof"
(cd "$work/ref" && "$profile2mat" "$dump.prof" >/dev/null)
rm "$work/ref/$dump.prof"
"$merge" -q -o "$work/m.h5" "$@"
"$mpimon" export mat --compat profile2mat "$work/m.h5" -o "$work/mine" >/dev/null
if [ "$(ls "$work/ref")" != "$(ls "$work/mine")" ]; then
  echo "file names differ: profile2mat: $(ls "$work/ref" | tr '\n' ' '); mpimon: $(ls "$work/mine" | tr '\n' ' ')"
  exit 1
fi
status=0
for f in "$work"/ref/*.mat; do
  if ! cmp -s "$f" "$work/mine/$(basename "$f")"; then
    echo "$(basename "$f") differs from profile2mat's:"
    diff "$f" "$work/mine/$(basename "$f")" | head -5
    status=1
  fi
done
[ $status -eq 0 ] && echo "profile2mat compatible: $dump, $# rank files, $(ls "$work/ref" | wc -l) files identical"
exit $status
