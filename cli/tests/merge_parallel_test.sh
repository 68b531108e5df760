#!/usr/bin/env bash
# mpimon-merge under mpirun at 1, 2, 3 and 4 processes writes, collectively with parallel HDF5,
# the same file as the serial merge: compared with h5dump and h5diff (every dataset and attribute,
# the created_utc time aside), on dumps of both monitoring modes with every class, histograms and
# communicator records (Open MPI's own dumps and a generated 16-rank set), in the dense and CSR
# layouts. A bad file read by another process than rank 0, and files that disagree across two
# processes' shares, fail every process with the serial merge's message, and leave nothing.
# Usage: merge_parallel_test.sh MPIEXEC MPIMON_MERGE MPIMON_SYNTH_DUMPS DATA_DIR
set -u
mpiexec=$1 merge=$2 synth=$3 data=$4
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1

# The file as h5dump prints it, without the merge's time (and its own name on the first line).
contents() { h5dump "$1" | tail -n +2 | sed '/ATTRIBUTE "created_utc"/,/^   }/d'; }
command -v h5dump >/dev/null || { echo "h5dump missing (package hdf5-tools): skipped"; exit 77; }

# One HDF5 in the executable, the parallel one (both export the same symbols).
if command -v ldd >/dev/null; then
  libs=$(ldd "$merge")
  expect_contains "$libs" "libhdf5_openmpi" "mpimon-merge links the parallel HDF5"
  check && grep -q "libhdf5_serial" <<<"$libs" && fail "mpimon-merge also links the serial HDF5: $libs"
else
  skip_part "ldd missing: the HDF5 flavour linked was not checked"
fi

mkdir -p prof
cp "$data"/real/*.prof prof/
check && "$synth" --pattern stencil --ranks 16 --mode 2 --seed 5 -o prof/stencil16 || fail "generator"
files=$(ls prof/*.prof | wc -l)

for layout in dense csr; do
  check && "$merge" -q --layout $layout -o serial.h5 prof || fail "serial merge ($layout)"
  contents serial.h5 >serial.txt
  for np in 1 2 3 4; do
    rm -f par.h5
    run "$mpiexec" -n $np --oversubscribe "$merge" --layout $layout -o par.h5 prof
    expect_eq "$rc" 0 "np $np $layout: exit code ($err)"
    suffix=""
    [ $np -gt 1 ] && suffix=", merged by $np processes"
    expect_eq "$(head -1 <<<"$out")" "wrote par.h5: 3 dumps from $files files$suffix" "np $np $layout: summary"
    if check && [ -e par.h5 ]; then
      contents par.h5 >par.txt
      check && cmp -s serial.txt par.txt || fail "np $np $layout: differs from the serial merge: $(diff serial.txt par.txt | head -5)"
      # h5diff's own verdict: no object but the created_utc attribute with a difference.
      h5diff -r serial.h5 par.h5 >diff.txt 2>&1
      differing=$(awk '/^(attribute|dataset|group): / { object = $0 }
                       /differences found/ && $1 != 0 && object !~ /created_utc/ { print object }' diff.txt)
      check && [ -z "$differing" ] || fail "np $np $layout: h5diff finds differences in: $differing"
      check && grep -q "^dataset: </stencil16/histogram/count>" diff.txt || fail "np $np $layout: h5diff compared nothing"
    else
      fail "np $np $layout: par.h5 missing"
    fi
  done
done
check && grep -q 'GROUP "histogram"' serial.txt && grep -q '"records"' serial.txt && grep -q '"internal"' serial.txt ||
  fail "the compared file lacks histograms, communicator records or internal traffic"

# Progress comes from rank 0 alone.
run "$mpiexec" -n 3 --oversubscribe "$merge" --progress -q -o progress.h5 prof
expect_eq "$(tr '\r' '\n' <<<"$err" | grep -c "merging: $files/$files files (100%)")" 1 "one progress line"

# MPI_COMM_WORLD's size changes at the first file of the last process's share (np 3: 22 files,
# stencil16.8 is file 14): only the joining of the shares sees it; the serial merge's message.
mkdir -p world
cp prof/*.prof world/
sed -i 's/MPI_COMM_WORLD\tprocs: \(.*\)15$/MPI_COMM_WORLD\tprocs: \115,16/' world/stencil16.8.prof
check && grep -q "15,16$" world/stencil16.8.prof || fail "the world-size edit did not apply"
run "$merge" -o serial_world.h5 world
expect_eq "$rc" 1 "serial merge of the inconsistent set"
world_message=$err
expect_contains "$world_message" "stencil16.8.prof" "serial message names the file"
rm -f rc.*
run "$mpiexec" -n 3 --oversubscribe bash -c '"$0" "$@"; echo $? >rc.$OMPI_COMM_WORLD_RANK' "$merge" -o world.h5 world
expect_eq "$err" "$world_message" "np 3: inconsistent world size, the serial merge's message"
for r in 0 1 2; do expect_eq "$(cat rc.$r 2>/dev/null)" 1 "inconsistent world size: exit code of process $r"; done
check && [ ! -e world.h5 ] || fail "world.h5 written"

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
check && [ ! -e bad.h5 ] || fail "bad.h5 written"
check && [ -z "$(ls | grep tmp-)" ] || fail "temporary files left: $(ls)"
finish merge_parallel
