#!/usr/bin/env bash
# The main job: install what is missing, build, then
#   1. measure what monitoring costs on this machine: a quick overhead sweep (np 2, 4 sizes,
#      3 launch pairs per arm, about a minute) with its paired analysis, and its figures;
#   2. the same pairs on an application workload (CG-like, medium class): the columns of RR-9038's Table 1;
#   3. show a monitored run end to end: mpimon record (mpirun with monitoring on, the per-rank dumps
#      checked and merged into one HDF5 file, its summary), the matrix exported for TreeMatch, the
#      run placed on a modelled cluster (mpimon place), and one HTML report of the whole job.
# Everything goes to build/main/ (or $MPIMON_MAIN_OUT). MPIMON_MAIN_PAIRS and MPIMON_MAIN_NP change the sweep.
# With --installed, the same job with an installed mpimon (e.g. the Debian package, in
# ci/debian-package.sh): nothing installed nor built, the commands taken from PATH, the programs
# from mpimon's own libexec/mpimon, the results in $MPIMON_MAIN_OUT (default ./mpimon-main).
# Usage: bash ci/main.sh [--installed] [--help]
source "$(dirname "$0")/common.sh"

installed=no
for arg in "$@"; do
  case $arg in
    --installed) installed=yes ;;
    -h | --help) sed -n '2,/^source/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "main: unknown argument '$arg' (--installed, --help)" >&2; exit 2 ;;
  esac
done

if [ $installed = yes ]; then
  mpimon=$(command -v mpimon) || { echo "main: --installed: no mpimon on PATH" >&2; exit 1; }
  programs=$(dirname "$(dirname "$(realpath "$mpimon")")")/libexec/mpimon
  out=${MPIMON_MAIN_OUT:-$PWD/mpimon-main}
  echo "main: the installed mpimon: $mpimon, its programs in $programs"
else
  step "dependencies"
  "$repo/ci/install-deps.sh"
  step "build ($build)"
  configure_and_build "$build"
  mpimon=$build/cli/mpimon
  programs=$build/validation
  out=${MPIMON_MAIN_OUT:-$build/main}
fi
rm -rf "$out" && mkdir -p "$out"

step "overhead: mpimon bench overhead --np ${MPIMON_MAIN_NP:-2} --sizes quick --pairs ${MPIMON_MAIN_PAIRS:-3}"
"$mpimon" bench overhead --np "${MPIMON_MAIN_NP:-2}" --sizes quick --pairs "${MPIMON_MAIN_PAIRS:-3}" \
  --iterations 300 --warmup 30 -o "$out/overhead.h5"
step "figures: mpimon plot $out/overhead.h5 -o $out/figures"
"$mpimon" plot "$out/overhead.h5" -o "$out/figures"

step "application: mpimon bench app --workload cg --class medium --np 2 --pairs ${MPIMON_MAIN_PAIRS:-3} (RR-9038's Table 1 columns)"
"$mpimon" bench app --workload cg --class medium --np 2 --pairs "${MPIMON_MAIN_PAIRS:-3}" -o "$out/apps.h5"

np=${MPIMON_DEMO_NP:-4}
step "monitored run: mpimon record --np $np -o $out/ring.h5 --keep-dumps $out/prof -- mpimon-demo-ring"
# record chooses the MCA settings (monitoring mode 2), checks that every rank wrote its dump,
# merges them and prints the summary of mpimon show.
"$mpimon" record --np "$np" -o "$out/ring.h5" --keep-dumps "$out/prof" -- "$programs/mpimon-demo-ring"
step "export: mpimon export treematch $out/ring.h5 (bytes, external + internal)"
"$mpimon" export treematch "$out/ring.h5" -o "$out/ring.treematch"
cat "$out/ring.treematch"
echo
step "place: mpimon place $out/ring.h5 --topology 2x2x2 (modelled cluster: 2 nodes x 2 sockets x 2 cores)"
"$mpimon" place "$out/ring.h5" --topology 2x2x2 --json "$out/ring.placement.json" --rankfile "$out/ring.rankfile"
cat "$out/ring.rankfile"
echo
step "plot and report: mpimon plot $out/ring.h5; mpimon report ... -o $out/report.html"
"$mpimon" plot "$out/ring.h5" -o "$out/figures"
"$mpimon" report "$out/ring.h5" "$out/overhead.h5" "$out/apps.h5" "$out/ring.placement.json" -o "$out/report.html" --title "mpimon main job"
echo "main: open $out/report.html in a browser (self-contained, no network needed)"
echo "main: done; results, figures and dumps in $out"
