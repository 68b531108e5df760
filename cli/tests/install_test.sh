#!/usr/bin/env bash
# mpimon installed and relocated: `cmake --install` into a scratch prefix, the prefix moved
# elsewhere, no path of the build or source tree in any installed file (strings), then, with both
# trees hidden under an empty tmpfs in a private mount namespace, the commands run from the moved
# prefix: validate (a few cases), bench overhead (tiny), run --reorder (the demo, 4 processes),
# mpimon-merge, show, plot and report.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR
#        install_test.sh --inside PREFIX DATA   (the runs, once the trees are hidden)
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/test_lib.sh"

run_from_prefix() {
  local p=$1 data=$2
  run "$p/bin/mpimon" validate --case p2p --case rma.rdma.put.fence --case workload.stencil --np 2 --mode 2
  expect_eq "$rc" 0 "mpimon validate from the prefix: $out $err"
  expect_contains "$out" "3 runs: 3 exact" "validate's verdict"

  run "$p/bin/mpimon" bench overhead --np 2 --sizes 0 --ops send --iterations 5 --warmup 1 --pairs 1 -o o.h5
  expect_eq "$rc" 0 "mpimon bench overhead from the prefix: $err"
  run "$p/bin/mpimon" show o.h5
  expect_contains "$out" "launches: 3, 3 ok" "the tiny sweep's launches"

  # mpimon run --reorder preloads the prefix's library; the demo (libexec) finds it through its RPATH.
  run "$p/bin/mpimon" run --reorder --verbose -- mpirun -np 4 --oversubscribe --bind-to none \
    "$p/libexec/mpimon/mpimon-reorder-demo" --source none --bytes 64 --iterations 1
  expect_eq "$rc" 0 "mpimon run --reorder of the installed demo: $out $err"
  expect_contains "$err" "-x LD_PRELOAD=$p/" "mpimon run preloads the library of the prefix"
  expect_contains "$out" "PHASE 2 bytes=1024" "the demo's second exchange (4 processes, 4 x 4 x 64 bytes)"

  run "$p/bin/mpimon-merge" -o m.h5 "$data"/mode2_sample.0.prof "$data"/mode2_sample.1.prof "$data"/mode2_sample.2.prof
  expect_eq "$rc" 0 "mpimon-merge from the prefix: $err"
  run "$p/bin/mpimon" show m.h5
  expect_eq "$rc" 0 "mpimon show from the prefix: $err"
  # The external bytes of the three dumps, summed from their text.
  local external
  external=$(awk -F'\t' '$1 == "E" { split($4, b, " "); s += b[1] } END { print s }' "$data"/mode2_sample.*.prof)
  expect_contains "$out" "$external" "show's external total"

  if /usr/bin/python3 -c "import matplotlib, numpy" 2>/dev/null; then
    run "$p/bin/mpimon" plot m.h5 -o figs
    expect_eq "$rc" 0 "mpimon plot from the prefix (its script in share/mpimon): $err"
    check && [ -n "$(find figs -name '*.png' 2>/dev/null)" ] || fail "mpimon plot drew no PNG"
  else
    skip_part "python3-matplotlib missing: mpimon plot"
  fi
  if [ -f "$p/share/mpimon/report/node_modules/plotly.js-dist-min/plotly.min.js" ]; then
    run "$p/bin/mpimon" report m.h5 -o r.html
    expect_eq "$rc" 0 "mpimon report from the prefix: $err"
    check && grep -q 'persistent' r.html || fail "the report lacks the defects table of share/mpimon/docs/defects.md"
  else
    skip_part "plotly.js was not installed (ci/install-deps.sh): mpimon report"
  fi
}

if [ "${1:-}" = --inside ]; then
  run_from_prefix "$2" "$3"
  finish "install (from the prefix, build tree hidden)"
fi

build=$(cd "$1" && pwd) source_dir=$(cd "$2" && pwd)
check && cmake --install "$build" --prefix "$work/staged" >install.log 2>&1 || { cat install.log; fail "cmake --install"; }
mv "$work/staged" "$work/moved" # relocatable: nothing may depend on where it was installed
prefix=$work/moved
for f in bin/mpimon bin/mpimon-merge libexec/mpimon/mpimon-p2p-ledger libexec/mpimon/mpimon-overhead-bench \
  libexec/mpimon/libmpimon-pmpi-delay.so share/mpimon/scripts/plot_heatmaps.py share/mpimon/docs/defects.md \
  include/mpimon/matrices/matrix_file.hpp include/mpimon/base/version.hpp include/mpimon/reorder.h \
  libexec/mpimon/mpimon-reorder-demo; do
  check && [ -e "$prefix/$f" ] || fail "not installed: $f"
done
check && [ -n "$(find "$prefix" -name libmpimon-collect.so)" ] || fail "not installed: libmpimon-collect.so"
check && [ -n "$(find "$prefix" -name libmpimon-reorder.so)" ] || fail "not installed: libmpimon-reorder.so"
check && [ -n "$(find "$prefix" -name mpimonConfig.cmake)" ] || fail "not installed: mpimonConfig.cmake"
# No path of this machine's trees in anything installed (binaries: their strings; text files).
while IFS= read -r -d '' f; do
  if check && strings -a "$f" | grep -qF -e "$build" -e "$source_dir"; then
    fail "${f#"$prefix"/} holds a path of the build or source tree: $(strings -a "$f" | grep -F -m1 -e "$build" -e "$source_dir")"
  fi
done < <(find "$prefix" -type f -print0)

mkdir data && cp "$source_dir"/analysis/tests/data/real/mode2_sample.*.prof data/
cp "$here/install_test.sh" "$here/test_lib.sh" "$work/"
# Hide both trees: an empty tmpfs over each, in a mount namespace of this test only (root; else a
# user namespace). Without either, the runs still happen but the test is reported as skipped.
hide="mount --make-rprivate / && mount -t tmpfs none \"\$1\" && mount -t tmpfs none \"\$0\" &&
      [ ! -e \"\$1/CMakeCache.txt\" ] && exec bash \"\$2/install_test.sh\" --inside \"\$3\" \"\$2/data\""
if unshare --mount true 2>/dev/null; then
  unshare --mount bash -c "$hide" "$source_dir" "$build" "$work" "$prefix"
elif unshare --user --map-root-user --mount true 2>/dev/null; then
  unshare --user --map-root-user --mount bash -c "$hide" "$source_dir" "$build" "$work" "$prefix"
else
  bash "$work/install_test.sh" --inside "$prefix" "$work/data"
  rc=$?
  check && [ $rc = 1 ] && fail "the runs from the prefix"
  skip_part "no mount namespace (unshare): the runs could not hide the build tree"
  finish "install"
fi
rc=$?
check && [ $rc = 0 ] || [ $rc = 77 ] || fail "the runs from the prefix with the build tree hidden (exit $rc)"
[ $rc = 77 ] && skip_part "a part of the runs from the prefix"
finish "install"
