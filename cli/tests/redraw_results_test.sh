#!/usr/bin/env bash
# The committed figures and tables of results/ redrawn from the compact results files kept next to
# them (docs/plots.md, "Redrawn from results/"), without running a benchmark:
# - the analysis of each compact file (mpimon show --csv) equals the CSV committed when the full
#   results file, with every raw sample, still existed (an independent record of the same numbers);
# - mpimon plot redraws Fig. 1, Fig. 2 and Fig. 3 byte for byte as committed, and their pixels are
#   not uniform; likewise the measured placements' Fig. 4a and Fig. 5. The committed figures were drawn by the code under test: the byte comparison pins
#   drift, not truth. The truth side is check_figure_data.py: the values each figure plots (read
#   back from the figure objects) against values recomputed with numpy from the results files'
#   per-launch records (h5py alone), never from the /analysis mpimon wrote;
# - mpimon report of the compact files opens in headless Chromium without console error, and the
#   Table 1 it shows equals the committed table1.csv.
# Under the sanitizers (MPIMON_SANITIZED) the commands of mpimon run (show, compact, report, the
# errors) but the figures are not drawn nor checked and the page not opened: that is Python's and
# Chromium's work, where no code of that build runs, and the main build checks it.
# Usage: redraw_results_test.sh MPIMON SOURCE_DIR
set -u
mpimon=$1 src=$2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/test_lib.sh"
python=/usr/bin/python3
# Skips are decided here, before anything is checked.
"$python" -c "import matplotlib, h5py, numpy" 2>/dev/null ||
  skip_test "python3-matplotlib, python3-h5py or python3-numpy missing (ci/install-deps.sh)"
chromium=$(command -v chromium) || skip_test "chromium missing (ci/install-deps.sh installs it)"
overhead=$src/results/overhead apps=$src/results/apps
drawn=yes
[ -n "${MPIMON_SANITIZED:-}" ] && drawn=

# Table 1, Fig. 3's table and the overhead analysis, recomputed from the per-launch summaries:
# the committed CSV's columns (newer versions add some) byte for byte. hpcc's times are the
# harness's wall clock, kept in its launches CSV with 9 significant digits: within 1e-8.
for pair in "$overhead/np2-compact.h5 $overhead/np2-analysis.csv" "$apps/table1-compact.h5 $apps/table1.csv" \
  "$apps/fig3-compact.h5 $apps/fig3.csv" "$apps/hpcc-compact.h5 $apps/hpcc.csv"; do
  set -- $pair
  run "$mpimon" show "$1" --csv analysis.csv
  expect_eq "$rc" 0 "mpimon show $1: $err"
  if [ "$(basename "$1")" = hpcc-compact.h5 ]; then
    run "$python" "$here/check_report.py" csv analysis.csv "$2" 1e-8
    expect_eq "$rc" 0 "the analysis of hpcc-compact.h5 vs hpcc.csv: $out"
    continue
  fi
  columns=$(head -1 "$2" | tr ',' '\n' | wc -l)
  check && cut -d, -f"1-$columns" analysis.csv | cmp -s - "$2" ||
    fail "the analysis of $(basename "$1") differs from $(basename "$2"): $(cut -d, -f"1-$columns" analysis.csv | diff - "$2" | head -5)"
done

if [ -n "$drawn" ]; then
# The figures, byte for byte.
run "$mpimon" plot "$overhead/np2-compact.h5" -o np2
expect_eq "$rc" 0 "mpimon plot np2-compact.h5: $err"
run "$mpimon" plot "$apps/fig3-compact.h5" -o apps
expect_eq "$rc" 0 "mpimon plot fig3-compact.h5: $err"
compared=0
for committed in "$overhead"/figures/np2/* "$apps"/fig3.png "$apps"/fig3.svg; do
  case $committed in */np2/*) drawn=np2/$(basename "$committed") ;; *) drawn=apps/$(basename "$committed") ;; esac
  check && [ -e "$drawn" ] || { fail "$committed: mpimon plot drew no $(basename "$committed")"; continue; }
  check && cmp -s "$drawn" "$committed" || fail "$committed differs from its redrawing"
  compared=$((compared + 1))
done
drawn_count=$(ls np2 apps | grep -c '\.\(png\|svg\)$')
expect_eq "$compared" "$drawn_count" "committed figures vs figures drawn"
run "$python" "$here/check_report.py" image np2/*.png apps/fig3.png
expect_eq "$rc" 0 "PNG pixels: $out"
# What the figures plot, against the files themselves (not against figures drawn by this code).
run env MPLBACKEND=Agg "$python" "$here/check_figure_data.py" "$src/analysis/scripts/plot_overhead.py" \
  "$overhead/np2-compact.h5" "$apps/fig3-compact.h5"
expect_eq "$rc" 0 "the plotted values vs the results files: $out"
check && [ "$(grep -c "the plotted values are the file's" <<<"$out")" -eq "$(ls np2 apps | grep -c '\.png$')" ] ||
  fail "not every figure drawn had its values checked: $out"
# That check recomputes Fig. 1 and Fig. 2 from the launches, not from the file's /analysis (which
# mpimon wrote): a file whose /analysis is wrong (relative and per-process overheads and their CIs
# scaled by 1.5) draws figures the check refuses.
cp "$overhead/np2-compact.h5" wrong-analysis.h5
"$python" -c "import h5py, sys
with h5py.File(sys.argv[1], 'r+') as f:
    for column in ('relative', 'relative_ci_low', 'relative_ci_high', 'per_process_ns', 'per_process_ci_low_ns',
                   'per_process_ci_high_ns'):
        f['analysis'][column][...] = 1.5 * f['analysis'][column][()]" wrong-analysis.h5
run env MPLBACKEND=Agg "$python" "$here/check_figure_data.py" "$src/analysis/scripts/plot_overhead.py" \
  wrong-analysis.h5 "$apps/fig3-compact.h5"
expect_eq "$rc" 1 "a wrong /analysis: the plotted values are refused ($out)"
expect_contains "$out" "FAIL: fig1" "a wrong /analysis: Fig. 1 named"

fi

# Across the network (results/overhead/network): interleaved-design compact files, which keep each
# block's interquartile mean; their analysis equals the CSV made from the raw files (every sample),
# and their figures are redrawn byte for byte.
network=$overhead/network
for transport in network shared; do
  run "$mpimon" show "$network/$transport-compact.h5" --csv "$transport.csv"
  expect_eq "$rc" 0 "mpimon show $transport-compact.h5: $err"
  check && cmp -s "$transport.csv" "$network/$transport-analysis.csv" ||
    fail "the analysis of $transport-compact.h5 differs from $transport-analysis.csv: $(diff "$transport.csv" "$network/$transport-analysis.csv" | head -5)"
  [ -n "$drawn" ] || continue
  run "$mpimon" plot "$network/$transport-compact.h5" -o "net-$transport"
  expect_eq "$rc" 0 "mpimon plot $transport-compact.h5: $err"
  expect_eq "$(ls "net-$transport" | LC_ALL=C sort)" "$(ls "$network/figures/$transport" | LC_ALL=C sort)" \
    "$transport: the figures drawn are the committed ones"
  for committed in "$network/figures/$transport"/*; do
    check && cmp -s "$committed" "net-$transport/$(basename "$committed")" || fail "$committed differs from its redrawing"
  done
done

# The measured placements (Fig. 4a and Fig. 5 on an emulated cluster, results/placement/measured):
# redrawn byte for byte from their compact files; what they plot against those files (h5py) and
# the CSV written when the full results files existed.
placement=$src/results/placement/measured
if [ -n "$drawn" ]; then
for figure in "fig4a Fig. 4a measured" "fig5 Fig. 5 measured" "objective place --objective hop-bytes (A) against time (B)"; do
  set -- $figure
  run "$mpimon" plot placement "$placement"/compact/"$1"-*-compact.h5 -o "placement-$1" --title "${*:2}"
  expect_eq "$rc" 0 "mpimon plot placement $1: $err"
  for ext in png svg; do
    check && cmp -s "placement-$1.$ext" "$placement/$1-measured.$ext" ||
      fail "$placement/$1-measured.$ext differs from its redrawing"
  done
  run env MPLBACKEND=Agg "$python" "$here/check_placement_measured.py" "$src/analysis/scripts/plot_placement_measured.py" \
    "$placement/$1-measured.csv" "$placement"/compact/"$1"-*-compact.h5
  expect_eq "$rc" 0 "the plotted values of $1-measured vs its compact files: $out"
  expect_contains "$out" "the plotted values are the files'" "$1-measured checked"
done
run "$python" "$here/check_report.py" image placement-fig4a.png placement-fig5.png placement-objective.png
expect_eq "$rc" 0 "PNG pixels of the measured placements: $out"
# The modelled placements' bars (mpimon place --json reports): the methods drawn are the reports'.
run env MPLBACKEND=Agg "$python" "$here/check_placement_bars.py" "$src/analysis/scripts/plot_placement.py" \
  "$src/results/placement/json/fig5-stencil7-np16-2x2x4.json"
expect_contains "$out" "the placement bars are the reports'" "the placement bars: $out"
fi
# Bad input to plot placement: named, non-zero, nothing drawn.
run "$mpimon" plot placement "$overhead/np2-compact.h5" -o bad
expect_eq "$rc" 1 "plot placement of an overhead file: exit code"
expect_contains "$err" "np2-compact.h5: not a results file of mpimon bench placement" "plot placement of an overhead file"
run "$mpimon" plot placement "$apps/fig3-compact.h5" -o bad
expect_eq "$rc" 1 "plot placement of bench app results: exit code"
expect_contains "$err" "fig3-compact.h5: not a placement comparison to draw: no 'case'" "plot placement of bench app results"
echo '{}' >report.json
run "$mpimon" plot placement report.json "$placement"/compact/fig5-cg-packed-vs-cyclic-compact.h5 -o bad
expect_eq "$rc" 2 "plot placement of a report and a results file: exit code"
expect_contains "$err" "not both" "plot placement of a report and a results file"
check && ls bad.* >/dev/null 2>&1 && fail "a refused plot placement drew $(ls bad.*)"

# The simulated placements (results/placement/simulated): mpimon plot draws each results file of
# mpimon simulate, its simulated times beside the modelled costs; what the figure plots, for every
# committed file, against the file's launches and configuration read with h5py alone.
simulated=$src/results/placement/simulated/compact
if [ -n "$drawn" ]; then
  for file in fig4a-np32-1000000-10gbit-arithmetic fig5-cg-np1024; do
    run "$mpimon" plot "$simulated/$file-compact.h5" -o "sim-$file"
    expect_eq "$rc" 0 "mpimon plot $file-compact.h5: $err"
    expect_eq "$(ls "sim-$file" | LC_ALL=C sort | tr '\n' ' ')" "simulated.png simulated.svg " "$file: the figures drawn"
    run "$python" "$here/check_report.py" image "sim-$file/simulated.png"
    expect_eq "$rc" 0 "PNG pixels of $file: $out"
  done
  run env MPLBACKEND=Agg "$python" "$here/check_simulated_figure.py" "$src/analysis/scripts/plot_placement_measured.py" \
    "$simulated"/*-compact.h5
  expect_eq "$rc" 0 "the simulated figures vs their files: $out"
  expect_contains "$out" "($(ls "$simulated"/*-compact.h5 | wc -l) results files of mpimon simulate)" "every file checked"
  # A file whose /mappings table (what the script reads) says other than its launches is refused;
  # one without modelled costs (simulate --platform without a tree) draws its simulated times alone.
  cp "$simulated/fig4a-np32-1000000-10gbit-arithmetic-compact.h5" wrong-mappings.h5
  cp wrong-mappings.h5 no-costs.h5
  "$python" -c "import h5py, sys
with h5py.File(sys.argv[1], 'r+') as f:
    f['mappings']['seconds'][1] *= 1.5
with h5py.File(sys.argv[2], 'r+') as f:
    for key in [k for k in f['configuration'].attrs if k.startswith('modelled_')]:
        del f['configuration'].attrs[key]" wrong-mappings.h5 no-costs.h5
  run env MPLBACKEND=Agg "$python" "$here/check_simulated_figure.py" "$src/analysis/scripts/plot_placement_measured.py" \
    wrong-mappings.h5
  expect_eq "$rc" 1 "a wrong /mappings: the plotted values are refused ($out)"
  expect_contains "$out" "simulated bar" "a wrong /mappings: the simulated bar named"
  run "$mpimon" plot no-costs.h5 -o sim-no-costs
  expect_eq "$rc" 0 "mpimon plot of a simulation without modelled costs: $err"
  run env MPLBACKEND=Agg "$python" "$here/check_simulated_figure.py" "$src/analysis/scripts/plot_placement_measured.py" \
    no-costs.h5
  expect_eq "$rc" 0 "a simulation without modelled costs: $out"
fi
# A simulation with a mapping that failed: no figure, one line naming the mapping and the table.
cp "$simulated/fig4a-np32-1000000-10gbit-arithmetic-compact.h5" failed-mapping.h5
"$python" -c "import h5py, sys
with h5py.File(sys.argv[1], 'r+') as f:
    f['launches']['000002'].attrs['status'] = 'exit code 1'" failed-mapping.h5
run "$mpimon" plot failed-mapping.h5 -o sim-failed
expect_eq "$rc" 1 "plot of a simulation with a failed mapping: exit code"
expect_contains "$err" "failed-mapping.h5: mapping B (pmpi) was not simulated (exit code 1): no figure; mpimon show" \
  "plot of a simulation with a failed mapping: message"
check && [ -e sim-failed/simulated.png ] && fail "a refused plot drew sim-failed/simulated.png"

# mpimon compact: bad input is refused with the file and line, and nothing is written.
printf 'launch,transport,np\n1,shared\n' >bad.csv
run "$mpimon" compact bad.csv -o bad.h5
expect_eq "$rc" 1 "compact of a bad CSV: exit code"
expect_contains "$err" "bad.csv:2: expected 3 fields, found 2" "compact of a bad CSV: message"
check && [ -e bad.h5 ] && fail "a refused compact left bad.h5"
run "$mpimon" compact "$apps/fig3-launches.csv" -o x.h5 --set novalue
expect_eq "$rc" 2 "--set without =: exit code"
expect_contains "$err" "--set expects KEY=VALUE" "--set without =: message"
run "$mpimon" compact "$apps/README.md" -o x.h5
expect_eq "$rc" 1 "compact of a text file: exit code"
check && [ -e x.h5 ] && fail "a refused compact left x.h5"

# The report of the compact files in a browser.
run "$mpimon" report "$overhead/np2-compact.h5" "$apps/table1-compact.h5" -o report.html
expect_eq "$rc" 0 "mpimon report: $err"
[ -n "$drawn" ] || finish redraw_results
timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$work/profile" \
  --enable-logging=stderr --v=0 --virtual-time-budget=15000 --dump-dom "file://$work/report.html" >dom.html 2>console.log
if check && grep -E 'CONSOLE' console.log | grep -qiE 'error|uncaught'; then
  fail "console errors: $(grep CONSOLE console.log | head -5)"
fi
run "$python" "$here/check_report.py" table1 dom.html "$apps/table1.csv"
expect_eq "$rc" 0 "Table 1 in the page vs table1.csv: $out"
finish redraw_results
