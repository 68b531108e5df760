#!/usr/bin/env bash
# mpimon-merge under mpirun at 1, 2, 3 and 4 processes writes the same file as the serial merge:
# compared with h5dump (every dataset and attribute, the created_utc time aside), on dumps of both
# monitoring modes with every class, histograms and communicator records (Open MPI's own dumps and
# a generated 16-rank set), in the dense and CSR layouts. A bad file read by another process than
# rank 0 fails every process with the serial merge's message (file and line), and leaves nothing.
# Usage: merge_parallel_test.sh MPIEXEC MPIMON_MERGE MPIMON_SYNTH_DUMPS DATA_DIR
set -u
mpiexec=$1 merge=$2 synth=$3 data=$4
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

# The file as h5dump prints it, without the merge's time (and its own name on the first line).
contents() { h5dump "$1" | tail -n +2 | sed '/ATTRIBUTE "created_utc"/,/^   }/d'; }
command -v h5dump >/dev/null || { echo "h5dump missing (package hdf5-tools): skipped"; exit 77; }

mkdir -p prof
cp "$data"/real/*.prof prof/
"$synth" --pattern stencil --ranks 16 --mode 2 --seed 5 -o prof/stencil16 || fail "generator"
files=$(ls prof/*.prof | wc -l)

for layout in dense csr; do
  "$merge" -q --layout $layout -o serial.h5 prof || fail "serial merge ($layout)"
  contents serial.h5 >serial.txt
  for np in 1 2 3 4; do
    rm -f par.h5
    run "$mpiexec" -n $np --oversubscribe "$merge" --layout $layout -o par.h5 prof
    expect_eq "$rc" 0 "np $np $layout: exit code ($err)"
    suffix=""
    [ $np -gt 1 ] && suffix=", merged by $np processes"
    expect_eq "$(head -1 <<<"$out")" "wrote par.h5: 3 dumps from $files files$suffix" "np $np $layout: summary"
    if [ -e par.h5 ]; then
      contents par.h5 >par.txt
      cmp -s serial.txt par.txt || fail "np $np $layout: differs from the serial merge: $(diff serial.txt par.txt | head -5)"
    else
      fail "np $np $layout: par.h5 missing"
    fi
  done
done
grep -q 'GROUP "histogram"' serial.txt && grep -q '"records"' serial.txt && grep -q '"internal"' serial.txt ||
  fail "the compared file lacks histograms, communicator records or internal traffic"

# Progress comes from rank 0 alone.
run "$mpiexec" -n 3 --oversubscribe "$merge" --progress -q -o progress.h5 prof
expect_eq "$(tr '\r' '\n' <<<"$err" | grep -c "merging: $files/$files files (100%)")" 1 "one progress line"

# A truncated file in the last process's share: every process exits 1, the message is the serial one.
head -c 300 prof/stencil16.14.prof >cut.txt && mv cut.txt prof/stencil16.14.prof
run "$merge" -o serial_bad.h5 prof
expect_eq "$rc" 1 "serial merge of the bad set"
serial_message=$err
rm -f rc.*
run "$mpiexec" -n 3 --oversubscribe bash -c '"$0" "$@"; echo $? >rc.$OMPI_COMM_WORLD_RANK' "$merge" -o bad.h5 prof
expect_eq "$err" "$serial_message" "np 3: the serial merge's message"
expect_contains "$err" "stencil16.14.prof:" "message names the file and line"
for r in 0 1 2; do expect_eq "$(cat rc.$r 2>/dev/null)" 1 "exit code of process $r"; done
[ ! -e bad.h5 ] || fail "bad.h5 written"
[ -z "$(ls | grep tmp-)" ] || fail "temporary files left: $(ls)"
finish merge_parallel
