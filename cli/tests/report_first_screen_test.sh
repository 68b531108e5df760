#!/usr/bin/env bash
# What a person sees first in `mpimon report` of a run whose rank order does not fit the machine: a
# 16-rank halo exchange (the stencil workload with a scrambled rank order) recorded, reported with
# --topology and with a `place --json` result, rendered by headless Chromium. Above the fold: the
# summary and the matrix; then the placement against packed, with its predicted time saved (or, without
# links, how to give them); at most the defects the run can show
# unfolded; communicator records without traffic folded (check_report_first_screen.py says how each
# is checked independently).
# Usage: report_first_screen_test.sh MPIMON WORKLOAD SOURCE_DIR
set -u
mpimon=$1 workload=$2 source_dir=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=/usr/bin/python3
chromium=$(command -v chromium || true)
# Prerequisites first: nothing is asserted before the decision to skip.
if ! "$python" -c "import matplotlib, h5py, numpy" 2>/dev/null; then
  echo "SKIP: python3-matplotlib, python3-h5py or python3-numpy missing (ci/install-deps.sh)"; exit 77
fi
if [ -z "$chromium" ]; then
  echo "SKIP: chromium missing (ci/install-deps.sh installs it)"; exit 77
fi
source "$here/test_lib.sh"
if check && [ ! -x "$workload" ]; then
  fail "mpimon-workload not built ('$workload')"
  finish report_first_screen
fi

# The run: 16 ranks on a 4 x 2 x 2 process grid, places shuffled (seed 1), every message in a ledger.
run "$mpimon" record --np 16 -o halo.h5 -- "$workload" --workload stencil --scramble 1 --iterations 5 --ledger led/halo
expect_eq "$rc" 0 "record the scrambled halo ($err)"
sent=$(cat led/halo.*.ledger | awk '$1 == "E" { b += $3 } END { print b }')
recorded=$("$python" -c "import h5py,sys; f=h5py.File(sys.argv[1]); d=f[next(iter(f))]; print(int(d['external/bytes'][()].sum()))" halo.h5)
expect_eq "$recorded" "$sent" "recorded external bytes = the ledgers' (the scrambled halo is recorded whole)"

# Two ways to the placement section: --topology, and a place --json result given with the file;
# both with the links between nodes (100 Mbit/s, 50 us), so the section predicts the time saved.
# 2x2x4: 2 nodes of 2 sockets of 4 cores, 8 ranks per node under packed.
link=(--link 100mbit,50us) rate=100000000 latency=0.00005
run "$mpimon" report halo.h5 --topology 2x2x4 "${link[@]}" -o report.html
expect_eq "$rc" 0 "report --topology --link ($err)"
run "$mpimon" place halo.h5 --topology 2x2x4 "${link[@]}" --json place.json
expect_eq "$rc" 0 "place --json ($err)"
run "$mpimon" report halo.h5 place.json -o report_place.html
expect_eq "$rc" 0 "report with a place --json result ($err)"
run "$mpimon" report halo.h5 --topology 2x2x4 -o report_nolinks.html
expect_eq "$rc" 0 "report --topology without links ($err)"
run "$mpimon" report place.json --topology 2x2x4 -o none.html
expect_eq "$rc" 2 "--topology without a matrices file"
expect_contains "$err" "--topology" "--topology without a matrices file: the option named"
check && [ -e none.html ] && fail "a refused report left its output"
run "$mpimon" report halo.h5 "${link[@]}" -o none.html
expect_eq "$rc" 2 "--link without --topology"
expect_contains "$err" "--link" "--link without --topology: the option named"
run "$mpimon" report halo.h5 --topology 2x2x4 --link 100mbit,50us --link 1gbit --link 1gbit --link 1gbit -o none.html
expect_eq "$rc" 2 "more links than levels"
expect_contains "$err" "--link" "more links than levels: the option named"
check && [ -e none.html ] && fail "a refused report left its output"

# A stencil sends point-to-point only (no persistent request, no collective record, no I line),
# with every monitoring component loaded: of the defects, only that of point-to-point traffic
# (persistent-send-uncounted, on both 4.1 and 5.0 in docs/defects.md) can show in it.
browse() {  # browse PAGE ARGS...: headless Chromium, console messages on stderr
  local page=$1
  shift
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --user-data-dir="$work/profile" \
    --enable-logging=stderr --v=0 --virtual-time-budget=15000 "$@" "file://$work/$page"
}
for page in report.html report_place.html; do
  rm -rf "$work/profile"
  browse "$page" --dump-dom >dom.html 2>console.log
  check && [ -s dom.html ] || fail "$page: chromium wrote no DOM: $(tail -5 console.log)"
  if check && grep -E 'CONSOLE' console.log | grep -qiE 'error|uncaught'; then
    fail "$page: console errors: $(grep CONSOLE console.log | head -5)"
  fi
  rm -rf "$work/profile"
  # The first screen of a laptop: 1300 x 900 pixels.
  browse "$page" --screenshot="$work/first.png" --window-size=1300,900 >/dev/null 2>&1
  check && [ -s first.png ] || fail "$page: no screenshot"
  run "$python" "$here/check_report_first_screen.py" dom.html first.png halo.h5 "$source_dir/docs/defects.md" 8 \
    place.json persistent-send-uncounted
  expect_eq "$rc" 0 "$page: $out"
  echo "$page: $out"
  # The matrix cell by cell: each cell's colour in Plotly's rendered SVG is Viridis at the value
  # halo.h5 holds (read with h5py), on the colour bar's scale; cells without traffic are empty.
  run "$python" "$here/check_report_heatmap.py" check dom.html halo.h5
  expect_eq "$rc" 0 "$page: heatmap cells: $out"
  echo "$page: $out"
  # The predicted time and the seconds saved against the time model written in the checker, on
  # the file's matrices and histograms (and against place.json's predicted_seconds).
  run "$python" "$here/check_report_first_screen.py" prediction dom.html halo.h5 2x2x4 "$rate" "$latency" \
    $([ "$page" = report_place.html ] && echo place.json)
  expect_eq "$rc" 0 "$page: $out"
  echo "$page: $out"
done
# Without links the section says how to give them (and predicts nothing).
rm -rf "$work/profile"
browse report_nolinks.html --dump-dom >dom.html 2>console.log
run "$python" "$here/check_report_first_screen.py" no-prediction dom.html
expect_eq "$rc" 0 "report_nolinks.html: $out"
echo "report_nolinks.html: $out"
[ -n "${REPORT_TEST_KEEP:-}" ] && cp report.html first.png "$REPORT_TEST_KEEP"/
finish report_first_screen
