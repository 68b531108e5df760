#!/usr/bin/env bash
# The README's `sh setup` blocks run as written: in order, from the repository's root, in one bash
# shell, except the test command itself (`bash ci/test.sh`, which runs this). So the main command
# (`bash ci/main.sh`) and "Building by hand" are run by the test command, not only named. Each
# line's own status is checked after it: `set -e` alone would let `cmake -S . -B build && cmake
# --build build` go on after a failed configure (a failure before `&&` does not stop a -e shell). They build in ./build: after ci/test.sh's build there, with the same settings (main.sh
# builds as the test command does), nothing is compiled again.
# Usage: bash ci/readme_setup.sh   (exit: the failing line's own; 2 when the README has no such
# block, or a line continues on the next)
source "$(dirname "$0")/common.sh"
[ "$build" = "$repo/build" ] || {
  echo "readme_setup: the README's blocks build in ./build, not in MPIMON_BUILD_DIR ($build)" >&2
  exit 2
}
blocks=$(mktemp -d)
trap 'rm -rf "$blocks"' EXIT
/usr/bin/python3 "$repo/ci/tests/doc_blocks.py" "$repo/README.md" "$blocks" >/dev/null
grep -vE '^bash ci/test\.sh( |$)' "$blocks/setup.sh" >"$blocks/as-written.sh" || true
grep -qE '^bash ci/main\.sh( |$)' "$blocks/as-written.sh" || {
  echo "readme_setup: README.md's setup blocks lost the main command (bash ci/main.sh)" >&2
  exit 2
}
! grep -qE '\\$' "$blocks/as-written.sh" || {
  echo "readme_setup: a setup line of README.md continues on the next (\\): one command a line" >&2
  exit 2
}
# Every line, then its status: the first that fails ends the stage with its status, named.
while IFS= read -r line; do
  printf '%s\n' "$line"
  [[ $line =~ ^[[:space:]]*(#|$) ]] ||
    printf 'readme_status=$?; ((readme_status == 0)) || { echo "readme_setup: README.md setup line failed (exit $readme_status): "%q >&2; exit "$readme_status"; }\n' "$line"
done <"$blocks/as-written.sh" >"$blocks/checked.sh"
echo "readme_setup: README.md's setup blocks, as written, from $repo:"
sed 's/^/    /' "$blocks/as-written.sh"
cd "$repo"
bash -e "$blocks/checked.sh"
