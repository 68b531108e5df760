#!/usr/bin/env bash
# `mpimon plot FILE.h5` and `mpimon report` on a merged matrices file, looked at as a person would:
# the PNGs are not blank, and headless Chromium opens REPORT.html from disk with no console error,
# draws the heatmaps, and shows the numbers the HDF5 file holds (read back with h5py); on a matrix
# with one hot pair, every heatmap cell has its value's colour and one cell only is hot.
# Usage: report_test.sh MPIMON MPIMON_MERGE DATA_DIR
set -u
mpimon=$1 merge=$2 data=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/test_lib.sh"
python=/usr/bin/python3
# Skips are decided here, before anything is checked.
"$python" -c "import matplotlib, h5py, numpy" 2>/dev/null ||
  skip_test "python3-matplotlib, python3-h5py or python3-numpy missing (ci/install-deps.sh)"
chromium=$(command -v chromium) || skip_test "chromium missing (ci/install-deps.sh installs it)"

cp "$data"/real/mode2_sample.*.prof .
run "$merge" -o m.h5 mode2_sample.0.prof mode2_sample.1.prof mode2_sample.2.prof
expect_eq "$rc" 0 "mpimon-merge: $err"

# plot: PNG and SVG per view, and the PML view next to the PMPI view.
run "$mpimon" plot m.h5 -o figs
expect_eq "$rc" 0 "mpimon plot m.h5: $err"
for view in external internal coll combined pml pmpi pml_vs_pmpi; do
  for ext in png svg; do check && [ -s "figs/mode2_sample_bytes_$view.$ext" ] || fail "no figs/mode2_sample_bytes_$view.$ext"; done
done
run "$python" "$here/check_report.py" image figs/*.png
expect_eq "$rc" 0 "PNG pixels: $out"
run "$mpimon" plot m.h5 --metric count --classes external -o figs
expect_eq "$rc" 0 "plot --metric count --classes external: $err"
check && [ -s figs/mode2_sample_count_external.png ] || fail "no count figure"
check && [ -e figs/mode2_sample_count_internal.png ] && fail "--classes external drew internal"
run "$mpimon" plot m.h5 --metric size -o figs
expect_eq "$rc" 2 "bad --metric exit code"
expect_contains "$err" "--metric must be bytes or count" "bad --metric message"
run "$mpimon" plot m.h5 --classes external,bogus -o figs
expect_eq "$rc" 2 "bad --classes exit code"
expect_contains "$err" "unknown class 'bogus'" "bad --classes message"

# report: one file, nothing fetched at view time.
run "$mpimon" report m.h5 -o report.html
expect_eq "$rc" 0 "mpimon report: $err"
check && grep -qE '<script[^>]+src=|<link[^>]+href=' report.html && fail "the report loads something from outside"
run "$mpimon" report missing.h5 -o bad.html
expect_eq "$rc" 1 "report of a missing file exit code"
check && [ -e bad.html ] && fail "a failed report left bad.html"

# report_hot_pair: hot.html, the report of a matrix made by check_report_heatmap.py (one hot pair
# among cold ones), merged by mpimon-merge.
report_hot_pair() {
  mkdir hot
  run "$python" "$here/check_report_heatmap.py" write hot/hot
  expect_eq "$rc" 0 "writing the hot-pair dumps: $out"
  run "$merge" -o hot.h5 hot/hot.*.prof
  expect_eq "$rc" 0 "mpimon-merge of the hot-pair dumps: $err"
  run "$mpimon" report hot.h5 -o hot.html
  expect_eq "$rc" 0 "mpimon report hot.h5: $err"
}
# Under the sanitizers (MPIMON_SANITIZED) the commands above and below run as here, but the page is
# not opened in Chromium nor checked by Python: no code of that build runs there, and the main
# build checks them.
if [ -n "${MPIMON_SANITIZED:-}" ]; then
  report_hot_pair
  finish report
fi

browse() {  # browse ARGS...: headless Chromium on $page (report.html), console messages on stderr
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$work/profile" \
    --enable-logging=stderr --v=0 --virtual-time-budget=15000 "$@" "file://$work/${page:-report.html}"
}
browse --dump-dom >dom.html 2>console.log
check && [ -s dom.html ] || fail "chromium wrote no DOM: $(tail -5 console.log)"
if check && grep -E 'CONSOLE' console.log | grep -qiE 'error|uncaught'; then
  fail "console errors: $(grep CONSOLE console.log | head -5)"
fi
run "$python" "$here/check_report.py" dom dom.html m.h5
expect_eq "$rc" 0 "page vs file: $out"
browse --screenshot="$work/shot.png" --window-size=1300,1400 >/dev/null 2>&1
check && [ -s shot.png ] || fail "no screenshot"
run "$python" "$here/check_report.py" image shot.png
expect_eq "$rc" 0 "screenshot: $out"

# The heatmap as a person sees it: a matrix made by check_report_heatmap.py (one hot pair among
# cold ones), merged, reported and rendered; each cell's colour in Plotly's rendered SVG against
# Plotly's documented Viridis at the cell's value, and exactly one hot cell, at its place.
report_hot_pair
rm -rf "$work/profile"
page=hot.html browse --dump-dom >hot_dom.html 2>console.log
check && [ -s hot_dom.html ] || fail "chromium wrote no DOM of the hot-pair report: $(tail -5 console.log)"
run "$python" "$here/check_report_heatmap.py" check hot_dom.html
expect_eq "$rc" 0 "hot-pair heatmap: $out"
echo "$out"
[ -n "${REPORT_TEST_KEEP:-}" ] && cp -r figs shot.png report.html "$REPORT_TEST_KEEP"/
finish report
