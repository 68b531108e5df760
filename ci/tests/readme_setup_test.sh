#!/usr/bin/env bash
# ci/readme_setup.sh on a repository of its own making: the README's setup lines run as written,
# in order, from the repository's root, the test command's line left out; a failing line fails it,
# also when it fails before `&&`;
# a README without the main command and a build outside ./build are refused (exit 2).
# Usage: readme_setup_test.sh REPO
set -u
source "$1/cli/tests/test_lib.sh"
fake=$work/repo
mkdir -p "$fake/ci/tests"
cp "$1/ci/readme_setup.sh" "$1/ci/common.sh" "$fake/ci/"
cp "$1/ci/tests/doc_blocks.py" "$fake/ci/tests/"
# The commands write where they ran and in which order; ci/test.sh would say it ran.
printf 'echo "main $PWD" >>"%s/ran"\n' "$work" >"$fake/ci/main.sh"
printf 'echo test >>"%s/ran"\n' "$work" >"$fake/ci/test.sh"
readme() {
  printf '# fake\n\n```sh setup\nbash ci/main.sh    # the main job\nbash ci/test.sh    # every test\n```\n\n'
  printf 'text\n\n```sh setup\n%s\n```\n' "$1"
}
readme 'echo "by hand $PWD" >>"'"$work"'/ran"' >"$fake/README.md"

run env -u MPIMON_BUILD_DIR bash "$fake/ci/readme_setup.sh"
expect_eq "$rc" 0 "the blocks ran ($err)"
expect_eq "$(cat "$work/ran")" "main $fake
by hand $fake" "the main command, then the build by hand, from the repository's root; not the test command"

rm -f "$work/ran"
readme 'false
echo after >>"'"$work"'/ran"' >"$fake/README.md"
run env -u MPIMON_BUILD_DIR bash "$fake/ci/readme_setup.sh"
expect_eq "$rc" 1 "a failing line fails the stage"
expect_eq "$(cat "$work/ran")" "main $fake" "nothing runs after the failing line"

# A failure before && does not stop a `bash -e` shell (the README's configure-and-build line):
# each line's own status is checked.
rm -f "$work/ran"
readme 'false && true
echo after >>"'"$work"'/ran"' >"$fake/README.md"
run env -u MPIMON_BUILD_DIR bash "$fake/ci/readme_setup.sh"
expect_eq "$rc" 1 "a line failing before && fails the stage"
expect_eq "$(cat "$work/ran")" "main $fake" "nothing runs after the line failing before &&"
expect_contains "$err" "false && true" "the error names the failing line"

readme 'echo one \
  two' >"$fake/README.md"
run env -u MPIMON_BUILD_DIR bash "$fake/ci/readme_setup.sh"
expect_eq "$rc" 2 "a line continued on the next is refused"

printf '```sh setup\nbash ci/test.sh\n```\n' >"$fake/README.md"
run env -u MPIMON_BUILD_DIR bash "$fake/ci/readme_setup.sh"
expect_eq "$rc" 2 "a README without the main command"
expect_contains "$err" "bash ci/main.sh" "the error names the missing command"

run env MPIMON_BUILD_DIR="$work/elsewhere" bash "$fake/ci/readme_setup.sh"
expect_eq "$rc" 2 "a build directory outside ./build"
expect_contains "$err" "MPIMON_BUILD_DIR" "the error names MPIMON_BUILD_DIR"
finish readme_setup
