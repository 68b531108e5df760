#!/usr/bin/env bash
# End-to-end test of `mpimon bench app` with tiny settings: what is recorded and reported (launch
# counts, arms, columns, messages against what the programs send, errors), never the timings.
# Usage: bench_app_test.sh MPIMON DEMO_RING [WORKLOAD_PROGRAM]
set -u
mpimon=$1
ring=$2
workload=${3:-}
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"
have_h5py() { /usr/bin/python3 -c "import h5py" 2>/dev/null; }
# Column NAME of the CSV FILE's data line LINE (1 = first data line).
column() { awk -F, -v name="$2" -v line="${3:-1}" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i }
                                                    NR == line + 1 { print $(c[name]) }' "$1"; }

# --- Any command after --: the demo ring, 2 pairs at np 2, then a third pair with --resume.
check && "$mpimon" bench app --np 2 --pairs 2 -o ring.h5 -- "$ring" >out1 2>err1 || fail "ring sweep: $(tail -3 err1)"
check && grep -q "4 launches planned, 0 already in ring.h5" err1 || fail "plan: $(head -1 err1)"
check && [ "$(grep -c '^\[[1-4]/4\] mpimon-demo-ring np 2 pair [12] o[nf]f* *ok' err1)" -eq 4 ] || fail "progress lines: $(cat err1)"
check && [ -f ring.csv ] || fail "no CSV next to the results file"
header=$(head -1 ring.csv)
for c in app np pairs time_source off_mean_s off_median_s on_mean_s on_median_s messages_per_process \
         external_messages_per_process messages_per_second difference_s difference_ci_low_s difference_ci_high_s \
         relative relative_ci_low relative_ci_high t df p wilcoxon_v wilcoxon_p significant comm_share; do
  check && [[ ",$header," == *",$c,"* ]] || fail "CSV column $c missing: $header"
done
check && [ "$(wc -l <ring.csv)" -eq 2 ] || fail "expected one row: $(cat ring.csv)"
check && [ "$(column ring.csv app)" == mpimon-demo-ring ] || fail "app label: $(column ring.csv app)"
check && [ "$(column ring.csv pairs)" == 2 ] || fail "pairs: $(column ring.csv pairs)"
check && [ "$(column ring.csv time_source)" == wall ] || fail "a command is timed by the wall time of its launch"
# The demo ring (validation/programs/demo_ring.cpp) sends one MPI_Sendrecv message per rank in each
# of its 10 steps: 10 external messages per process; its bcast and allreduce add internal ones.
check && [ "$(column ring.csv external_messages_per_process)" == 10 ] ||
  fail "external messages per process: $(column ring.csv external_messages_per_process), the ring sends 10"
check && awk -F, 'NR == 2 { exit !($9 > $10) }' ring.csv || fail "no internal (collective) messages counted: $(cat ring.csv)"
# Every number of the row parses; the t-test needs 2 pairs, so t and p are there.
for c in off_mean_s on_mean_s messages_per_second difference_s t p; do
  check && [[ "$(column ring.csv $c)" =~ ^-?[0-9.]+(e[-+]?[0-9]+)?$ ]] || fail "column $c not a number: $(column ring.csv $c)"
done
check && grep -q "^mpimon-demo-ring .* 2 " out1 || fail "no table on screen: $(cat out1)"

check && "$mpimon" bench app --np 2 --pairs 2 -o ring.h5 -- "$ring" >/dev/null 2>err2 && fail "an existing file was overwritten"
check && grep -q "exists: use --resume" err2 || fail "no advice on an existing file: $(cat err2)"
check && "$mpimon" bench app --np 2 --pairs 3 --resume -o ring.h5 -- "$ring" >/dev/null 2>err3 || fail "resume: $(cat err3)"
check && grep -q "6 launches planned, 4 already" err3 || fail "resume did not skip the done launches: $(head -1 err3)"
check && "$mpimon" show ring.h5 --csv shown.csv >show.txt || fail "show"
check && grep -q "launches: 6, 6 ok" show.txt || fail "launch count: $(grep launches: show.txt)"
check && [ "$(column shown.csv pairs)" == 3 ] || fail "show: pairs $(column shown.csv pairs)"
if have_h5py; then
  check && /usr/bin/python3 - ring.h5 <<'PY' || fail "HDF5 layout"
import sys, h5py
f = h5py.File(sys.argv[1], "r")
assert f.attrs["format"] in ("mpimon-apps", b"mpimon-apps"), f.attrs["format"]
launches = [f["launches"][k].attrs for k in f["launches"]]
assert len(launches) == 6, len(launches)
arms = sorted((int(a["pair"]), a["arm"] if isinstance(a["arm"], str) else a["arm"].decode()) for a in launches)
assert arms == [(p, arm) for p in (1, 2, 3) for arm in ("off", "on")], arms
for a in launches:
    arm = a["arm"] if isinstance(a["arm"], str) else a["arm"].decode()
    assert ("messages_external" in a) == (arm == "on"), dict(a)  # only on launches carry dump totals
    assert "pml_monitoring_enable" in str(a["command"]) or arm == "off"
for key in ("np", "pairs", "mpi_library", "launcher", "monitoring_mode", "time_source", "messages", "host"):
    assert key in f["configuration"].attrs, key
assert len(f["analysis"]["app"]) == 1 and len(f["pairs"]["relative"]) == 3
PY
else
  skip_part "h5py missing for /usr/bin/python3: the HDF5 layout"
fi

# --- --preload LIB: monitoring on in both arms (monitored, preloaded), LIB in the second's ranks
# only (here the MPI library the ring already loads: harmless, and its path is in the command).
lib=$(ldd "$ring" | awk '/libmpi\.so/ { print $3; exit }')
check && "$mpimon" bench app --np 2 --pairs 1 --preload "$lib" -o pre.h5 -- "$ring" >outp 2>errp || fail "--preload: $(tail -3 errp)"
check && grep -q "^\[[12]/2\] mpimon-demo-ring np 2 pair 1 preloaded *ok" errp || fail "--preload progress: $(cat errp)"
check && grep -q "^(off: the monitored arm, monitoring on, nothing preloaded; on: the preloaded arm" outp ||
  fail "--preload: the arms are not said: $(cat outp)"
check && [ -n "$(column pre.csv preloaded_mean_s)" ] || fail "--preload: no preloaded column: $(head -1 pre.csv)"
if have_h5py; then
  check && /usr/bin/python3 - pre.h5 "$lib" <<'PY' || fail "--preload: the launches"
import sys, h5py
f = h5py.File(sys.argv[1], "r")
text = lambda v: v if isinstance(v, str) else v.decode()
for g in f["launches"].values():
    arm, command = text(g.attrs["arm"]), text(g.attrs["command"])
    assert "pml_monitoring_enable" in command, command  # monitoring on in both arms
    assert (sys.argv[2] in command) == (arm == "preloaded"), (arm, command)
assert text(f["configuration"].attrs["arms"]) == "monitored,preloaded"
PY
fi
"$mpimon" bench app --np 2 --pairs 1 --preload nowhere.so -o nope.h5 -- "$ring" >/dev/null 2>errn
rc=$?
check && [ $rc -eq 1 ] && grep -q "nowhere.so: no such library (--preload)" errn || fail "--preload of a missing file: $(cat errn)"
check && [ ! -e nope.h5 ] || fail "--preload of a missing file left a results file"

# --- Errors: a failing command; monitoring silently disabled; usage.
"$mpimon" bench app --np 2 --pairs 2 -o false.h5 -- false >/dev/null 2>errf
rc=$?
check && [ $rc -eq 9 ] || fail "a failing command is not a failed launch (exit 9)"
check && grep -q "1 of 1 launches run failed (the sweep stopped at it; --keep-going runs the rest), the first: false np 2 pair 1 o[nf]f*: exit code" errf ||
  fail "failure message: $(cat errf)"
check && grep -q "their logs: false.h5.logs" errf || fail "no logs named: $(cat errf)"
check && grep -q "^status: exit code" false.h5.logs/*.log || fail "the log has no status: $(cat false.h5.logs/*.log)"
check && [ -e false.h5 ] && fail "a sweep that recorded nothing left its results file"
"$mpimon" bench app --np 2 --pairs 1 --mca pml=ob1 -o ob1.h5 -- "$ring" >/dev/null 2>errm
rc=$?
check && [ $rc -eq 9 ] || fail "monitoring disabled by --mca pml=ob1 is not a failed launch (exit 9)"
check && grep -q "monitoring did not run: no dump written" errm || fail "no-dump message: $(cat errm)"
check && [ -e ob1.h5 ] && fail "a sweep that recorded nothing left its results file"
"$mpimon" bench app --np 2 -o u.h5 >/dev/null 2>erru
rc=$?
check && [ $rc -eq 2 ] || fail "no application is not a usage error"
check && grep -q "name either built-in workloads (--workload) or a command" erru || fail "usage message: $(cat erru)"
"$mpimon" bench app --workload fft -o u.h5 >/dev/null 2>erru
rc=$?
check && [ $rc -eq 2 ] && grep -q "not 'fft'" erru || fail "unknown workload: $(cat erru)"
# Every --class value is checked against the workloads table before anything runs: a launcher that
# logs every call must never have been called.
printf '#!/bin/sh\necho "$*" >>launched.txt\n' >logging-launcher && chmod +x logging-launcher
"$mpimon" bench app --workload cg --class small,huge --launcher "$PWD/logging-launcher" -o u.h5 >/dev/null 2>erru
rc=$?
check && [ $rc -eq 2 ] && grep -q "class takes small, medium and large, not 'huge'" erru || fail "unknown class: $(cat erru)"
check && [ -e launched.txt ] && fail "an unknown class after a launch: $(cat launched.txt)"
"$mpimon" bench app --workload cg --compute 3 -o u.h5 >/dev/null 2>erru
rc=$?
check && [ $rc -eq 2 ] && grep -q "are options of stencil: add it to --workload" erru || fail "--compute without the stencil: $(cat erru)"
"$mpimon" bench app --workload cg -o u.h5 -- "$ring" >/dev/null 2>erru
rc=$?
check && [ $rc -eq 2 ] || fail "a workload and a command at once is not a usage error"
check && [ -e u.h5 ] && fail "a usage error left a results file"
# Fig. 3 without stencil runs: one message, exit 1, whether or not matplotlib is installed.
"$mpimon" plot ring.h5 -o fig >plot.txt 2>&1
rc=$?
check && [ $rc -eq 1 ] || fail "Fig. 3 without stencil runs is not an input error"
check && grep -q "no pairs of stencil launches" plot.txt || fail "plot message: $(cat plot.txt)"
check && [ "$(grep -c . plot.txt)" -eq 1 ] || fail "plot without stencil runs: more than one message: $(cat plot.txt)"

# --- The built-in workloads, when their program is built.
if [ -n "$workload" ]; then
  check && "$mpimon" bench app --workload cg --np 2 --pairs 2 --workload-program "$workload" -o cg.h5 >outw 2>errw ||
    fail "workload sweep: $(tail -3 errw)"
  check && [ "$(column cg.csv app)" == cg.small ] || fail "workload label: $(column cg.csv app)"
  check && [ "$(column cg.csv time_source)" == workload ] || fail "a workload is timed by its own report"
  check && [[ "$(column cg.csv comm_share)" =~ ^0?\.[0-9]+|^[01]$ ]] || fail "comm share: $(column cg.csv comm_share)"
  # The same run with its ledger (every message each rank sent, setup and report gathering
  # included): the monitoring's external messages and bytes must equal the ledger's E lines.
  mkdir ledger
  check && OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 \
    mpirun -np 2 "$workload" --workload cg --class small --ledger ledger/cg >/dev/null 2>&1 || fail "ledger run"
  read -r sent sent_bytes < <(cat ledger/cg.*.ledger | awk '$1 == "E" { n++; b += $3 } END { print n, b }')
  check && [ "$(awk -F, -v s="$sent" 'NR == 2 { print ($10 * 2 == s) }' cg.csv)" == 1 ] ||
    fail "external messages per process $(column cg.csv external_messages_per_process), the ledger says $sent / 2"
  if have_h5py; then
    check && /usr/bin/python3 - cg.h5 "$sent" "$sent_bytes" <<'PY' || fail "each on launch against the ledger and the report"
import json, sys, h5py
f = h5py.File(sys.argv[1], "r")
sent, sent_bytes = int(sys.argv[2]), int(sys.argv[3])
on = [f["launches"][k].attrs for k in f["launches"] if f["launches"][k].attrs["arm"] in ("on", b"on")]
assert len(on) == 2
for a in on:
    report = json.loads(a["report"])
    assert report["passed"] is True and report["np"] == 2, report
    assert int(a["messages_external"]) == sent and int(a["bytes_external"]) == sent_bytes, dict(a)
    # the report counts the timed loop only: at most what the whole run sent
    assert report["messages_sent"] <= sent and report["bytes_sent"] <= sent_bytes, report
PY
  else
    skip_part "h5py missing for /usr/bin/python3: the workload launches in the HDF5 file"
  fi
  check && "$mpimon" bench app --workload stencil --compute-sweep 0,8 --np 2 --pairs 2 --workload-program "$workload" \
      -o st.h5 >/dev/null 2>errs || fail "stencil sweep: $(tail -3 errs)"
  check && [ "$(tail -n +2 st.csv | cut -d, -f1 | tr '\n' ' ')" == "stencil.small.compute=0 stencil.small.compute=8 " ] ||
    fail "one row per compute value: $(cat st.csv)"
  if /usr/bin/python3 -c "import matplotlib, h5py" 2>/dev/null; then
    check && "$mpimon" plot st.h5 -o fig >plot.txt 2>&1 || fail "plot: $(cat plot.txt)"
    check && [ "$(head -c 8 fig/fig3.png | od -An -tx1 | tr -d ' ')" == "89504e470d0a1a0a" ] || fail "fig3.png is not a PNG"
    check && grep -q "<svg" fig/fig3.svg || fail "fig3.svg is not an SVG"
  else
    skip_part "matplotlib or h5py missing for /usr/bin/python3: Fig. 3"
  fi
else
  skip_part "mpimon-workload not built: the built-in workloads"
fi

finish "bench app"
