#!/usr/bin/env bash
# `mpimon simulate` refuses, before any simulation starts, bad platforms (SimGrid's own reader says
# why, naming the file and line), rankfiles naming hosts the platform lacks or slots its nodes lack,
# and bad options: a non-zero exit, a message naming the file or option, no output file, and
# smpirun never started (--smpirun points at a script that leaves a mark when run).
# Usage: simulate_errors_test.sh MPIMON DEMO_RING_SMPI
source "$(dirname "$0")/test_lib.sh"
mpimon=$1 ring=$2

printf '#!/bin/sh\ntouch "%s/smpirun-ran"\nexit 0\n' "$work" >fake-smpirun
chmod +x fake-smpirun
for r in 0 1 2 3; do echo "rank $r=node$r slot=0:0"; done >four.rf
cat >good.xml <<'EOF'
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="c" prefix="node" suffix="" radical="0-3" speed="1Gf" bw="125MBps" lat="1us"/>
</platform>
EOF
# refused EXIT WHAT MESSAGE ARGS...: the command exits EXIT with MESSAGE and leaves nothing behind.
refused() {
  local code=$1 what=$2 message=$3
  shift 3
  rm -f out.h5 out.json out.platform.xml out.A.hosts smpirun-ran
  run "$mpimon" simulate "$@" -o out.h5 --json out.json --smpirun ./fake-smpirun
  expect_eq "$rc" "$code" "$what: exit code ($err)"
  expect_contains "$err" "$message" "$what: the message"
  expect_eq "$(ls out.* smpirun-ran 2>/dev/null)" "" "$what: no output and no simulation"
}

# The good platform is accepted by the same path (the fake smpirun runs; its run then fails).
rm -f smpirun-ran
run "$mpimon" simulate --platform good.xml --rankfile four.rf --np 4 -o good.h5 --smpirun ./fake-smpirun -- "$ring"
expect_eq "$([ -e smpirun-ran ] && echo ran)" ran "a good platform reaches smpirun"
expect_eq "$rc" 9 "a run without SMPI's output is a failed simulation"

printf '<platform version="4.1">\n  <zone id="z" routing="Full">\n    <host id="a" speed="1Gf"/>\n' >truncated.xml
refused 1 "a truncated platform" "truncated.xml: SimGrid refuses this platform (--platform): Parse error at truncated.xml:" \
  --platform truncated.xml --rankfile four.rf --np 4 -- "$ring"
echo "not xml" >text.xml
refused 1 "a file that is not XML" "text.xml: SimGrid refuses this platform" --platform text.xml --rankfile four.rf --np 4 -- "$ring"
sed 's/speed="1Gf"/speed="fast"/' good.xml >speed.xml
refused 1 "a bad value" "Parse error at speed.xml:4" --platform speed.xml --rankfile four.rf --np 4 -- "$ring"
refused 1 "a missing platform" "missing.xml: SimGrid refuses this platform" --platform missing.xml --rankfile four.rf --np 4 -- "$ring"
sed 's/node3 /node7 /; s/rank 3=node3/rank 3=node7/' four.rf >unknown.rf
refused 1 "a host the given platform lacks" "the platform has no host named 'node7'" \
  --platform good.xml --rankfile four.rf --rankfile unknown.rf --np 4 -- "$ring"
refused 1 "a host the built platform lacks" "unknown.rf:4: host 'node7' is not one of the platform's 4 nodes" \
  --topology 4x1x2 --rankfile unknown.rf --np 4 -- "$ring"
echo "rank 0=node0 slot=0:5" >slot.rf
refused 1 "a core the nodes lack" "slot.rf:1: slot 0:5 is beyond a node of 1 sockets x 2 cores" \
  --topology 4x1x2 --rankfile slot.rf --np 1 -- "$ring"
echo "rank 0 node0" >syntax.rf
refused 1 "a rankfile line" "syntax.rf:1: expected 'rank R=HOST slot=SOCKET:CORE'" --topology 4x1x2 --rankfile syntax.rf --np 1 -- "$ring"
refused 1 "a rank without a line" "no 'rank 4=' line" --topology 4x1x2 --rankfile four.rf --np 5 -- "$ring"

refused 2 "platform and topology" "give either --platform or --topology" --platform good.xml --topology 4x1x1 --rankfile four.rf --np 4 -- "$ring"
refused 2 "--rate with --platform" "--rate describes the platform --topology builds" --platform good.xml --rate 1gbit --rankfile four.rf --np 4 -- "$ring"
refused 2 "a bad rate" "--rate takes a rate in tc's units" --topology 4x1x1 --rate fast --rankfile four.rf --np 4 -- "$ring"
refused 2 "a bad latency" "--latency takes a duration" --topology 4x1x1 --latency 5 --rankfile four.rf --np 4 -- "$ring"
refused 2 "a bad network" "--network takes fat-tree or flat" --topology 4x1x1 --network torus --rankfile four.rf --np 4 -- "$ring"
refused 2 "a bad topology" "--topology" --topology 4xx1 --rankfile four.rf --np 4 -- "$ring"
refused 2 "no rankfile" "give at least one --rankfile" --topology 4x1x1 --np 4 -- "$ring"
refused 2 "no --np" "--np is required" --topology 4x1x1 --rankfile four.rf -- "$ring"
refused 2 "no program" "give either --replay TRACE or the program" --topology 4x1x1 --rankfile four.rf --np 4
refused 2 "a missing program" "PROGRAM 'no-such-program' is not a file" --topology 4x1x1 --rankfile four.rf --np 4 -- no-such-program
refused 2 "a bad --smpi" "--smpi takes KEY=VALUE" --topology 4x1x1 --rankfile four.rf --np 4 --smpi smpi/reduce -- "$ring"
refused 2 "--dump alone" "--dump selects a dump of --matrices" --topology 4x1x1 --rankfile four.rf --np 4 --dump x -- "$ring"
finish simulate_errors
