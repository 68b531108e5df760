#!/usr/bin/env bash
# Tests of ci/fuzz_triage.sh, which sets a fault found by the fuzzers aside as libhdf5's own only
# when it is tied to libhdf5 (ci/fuzz.sh fails on any other): the classifier on reports shaped like
# the ones libFuzzer wrote on this machine (addresses and build ids shortened), and the whole
# triage on pairs of a report and real bytes, where libhdf5 alone (h5dump, h5py) fails or not:
# - a crash in H5HG_read on bytes where h5dump under memcheck reads out of bounds in H5HG_read:
#   upstream; the same bytes with a crash in a libhdf5 function h5dump does not fail in: ours;
# - a buffer of mpimon overflowed inside H5Aread (its allocation stack reaches mpimon first): ours,
#   although libhdf5 alone fails on that file;
# - a hang in H5C_protect on bytes where h5py loops in H5C_protect: upstream (found without
#   valgrind, in seconds); a hang in a function the plain readers do not loop in: ours;
# - an out-of-memory in H5T__conv_vlen (past libhdf5's allocator H5FL_blk_malloc) on bytes where
#   h5dump and h5py alone ask malloc for 4 GiB there: upstream; in mpimon's own code: ours;
# - a crash, hang or out-of-memory inside libhdf5 on a valid file or on bytes that are not HDF5: ours;
# - the same verdicts under pipefail (as ci/fuzz.sh runs it) with a plain report of 20000 frames.
# Usage: fuzz_triage_test.sh REPO
set -u
repo=$1
source "$repo/cli/tests/test_lib.sh"
source "$repo/ci/fuzz_triage.sh"
# The plain readers need valgrind, h5dump, gdb and h5py (ci/install-deps.sh): decided before any assertion.
for tool in valgrind h5dump gdb; do
  command -v "$tool" >/dev/null || skip_test "$tool not installed (ci/install-deps.sh)"
done
/usr/bin/python3 -c "import h5py" 2>/dev/null || skip_test "python3-h5py not installed (ci/install-deps.sh)"

report() { printf '%s\n' "INFO: Seed: 1" "$@" >"$work/log"; crash_origin "$work/log"; }
hdf5='(/lib/x86_64-linux-gnu/libhdf5_serial.so.103+0x190f18)'
ours='analysis/src/h5.cpp:200:14'
fuzzer='(/build-fuzz/analysis/fuzz/mpimon_matrices_fuzzer+0xc2503)'

expect_eq "$(report '==1==ERROR: AddressSanitizer: heap-use-after-free on address 0x6110' \
  "    #0 0x5 in __interceptor_memcpy $fuzzer" "    #1 0x7 $hdf5" "    #2 0x7 in H5O__msg_iterate_real $hdf5" \
  "    #3 0x5 in mpimon::h5::has_attribute(long) $ours")" libhdf5 "use after free under memcpy inside libhdf5"
expect_eq "$(report '==1== ERROR: libFuzzer: timeout after 11 seconds' \
  "    #0 0x5 in __sanitizer_print_stack_trace $fuzzer" "    #1 0x5 in fuzzer::PrintStackTrace() $fuzzer" \
  "    #2 0x5 in fuzzer::Fuzzer::AlarmCallback() $fuzzer" "    #3 0x7 (/lib/x86_64-linux-gnu/libc.so.6+0x3c04f)" \
  "    #4 0x7 in H5C_protect $hdf5" "    #5 0x5 in mpimon::h5::read_vlen_strings(long) $ours")" libhdf5 \
  "a timeout in a loop of libhdf5"
expect_eq "$(report '==1==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000' \
  "    #0 0x7 in __memcpy_avx512_unaligned_erms string/../sysdeps/x86_64/multiarch/memmove-vec-unaligned-erms.S:362" \
  "    #1 0x5 in __interceptor_memcpy $fuzzer" "    #2 0x7 in H5F__accum_read $hdf5" \
  "    #3 0x5 in mpimon::h5::has_attribute(long) $ours")" libhdf5 "a null read in libc's memcpy called by libhdf5"
expect_eq "$(report '==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6' \
  "    #0 0x5 in __interceptor_memcpy $fuzzer" "    #1 0x5 in mpimon::h5::read_strings(long) $ours" \
  "    #2 0x7 in H5Aread $hdf5")" ours "an overflow in mpimon's code under memcpy"
expect_eq "$(report 'analysis/src/csv.cpp:12:3: runtime error: signed integer overflow' \
  "    #0 0x5 in mpimon::parse_csv(std::string) analysis/src/csv.cpp:12:3")" ours "UBSan in mpimon's code"
expect_eq "$(report '==1== ERROR: libFuzzer: timeout after 11 seconds' \
  "    #0 0x5 in __sanitizer_print_stack_trace $fuzzer" "    #1 0x5 in mpimon::read_ledger(long) $ours")" ours \
  "a timeout in mpimon's code"
expect_eq "$(report '==1== ERROR: libFuzzer: deadly signal')" ours "a report without a stack"
# Frames printed before the report (a warning's own stack) do not count.
expect_eq "$(report "    #0 0x7 in H5Fopen $hdf5" '==1==ERROR: AddressSanitizer: SEGV on unknown address 0x0' \
  "    #0 0x5 in mpimon::MatrixFile::info() $ours")" ours "the first report's stack, not an earlier one"

# Whose memory: the allocation (or free) stack of the first report reaching mpimon before libhdf5.
alloc_report() {
  printf '%s\n' '==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6' "    #0 0x5 in __interceptor_memcpy $fuzzer" \
    "    #1 0x7 in H5T__conv_vlen $hdf5" "    #2 0x7 in H5Aread $hdf5" "    #3 0x5 in mpimon::h5::read_strings(long) $ours" \
    '0x6 is located 0 bytes to the right of 16-byte region' 'allocated by thread T0 here:' "$@" >"$work/alloc.log"
}
alloc_report "    #0 0x5 in operator new(unsigned long) $fuzzer" "    #1 0x5 in std::vector<char>::_M_default_append(unsigned long) $fuzzer" \
  "    #2 0x5 in mpimon::h5::read_strings(long) $ours" "    #3 0x7 in LLVMFuzzerTestOneInput $fuzzer"
expect_eq "$(mpimon_allocation "$work/alloc.log")" "#2 0x5 in mpimon::h5::read_strings(long) $ours" "a buffer of mpimon's"
alloc_report "    #0 0x5 in malloc $fuzzer" "    #1 0x7 $hdf5" "    #2 0x7 in H5FL_blk_malloc $hdf5" \
  "    #3 0x7 in H5Aread $hdf5" "    #4 0x5 in mpimon::h5::read_strings(long) $ours"
expect_eq "$(mpimon_allocation "$work/alloc.log")" "" "a buffer libhdf5 allocated, under a call of mpimon's"
expect_eq "$(first_libhdf5_function "$work/alloc.log")" H5T__conv_vlen "the first libhdf5 function of the stack"

# The whole triage: reports against real bytes. libhdf5 alone is run once per file and kind
# (plain_hdf5_report); each report is judged against it (triage_with), as triage does.
vlen=$repo/analysis/fuzz/regressions/matrices/libhdf5-vlen-length-mismatch.h5
loop=$repo/analysis/fuzz/regressions/matrices/libhdf5-global-heap-loop.h5
valid=$repo/analysis/tests/data/v1/mode2_sample.h5
huge=$repo/analysis/fuzz/regressions/matrices/libhdf5-huge-allocation.h5
vlen4g=$repo/analysis/fuzz/regressions/matrices/vlen-string-length-4gib.h5
head -c 4096 /dev/urandom >"$work/random.bin"
# A hang is a reader still running after 20 s (ci/fuzz.sh: 60 s), enough for python3 to start
# h5py on a loaded machine.
export PLAIN_HDF5_SECONDS=20
for input in vlen valid random huge; do
  plain_hdf5_report "${!input:-$work/random.bin}" >"$work/plain-$input-crash.txt"
done
for input in loop valid; do plain_hdf5_report "${!input}" hang >"$work/plain-$input-hang.txt"; done
for input in vlen4g valid; do plain_hdf5_report "${!input}" oom >"$work/plain-$input-oom.txt"; done
expect_contains "$(head -1 "$work/plain-vlen-crash.txt")" "== h5dump under memcheck: Invalid read" \
  "the vlen overflow of libhdf5 is seen by a plain h5dump under memcheck"
expect_contains "$(cat "$work/plain-loop-hang.txt")" "== h5py reading every attribute and dataset runs over 20 s" \
  "libhdf5's global-heap loop is seen by h5py alone, without valgrind"
for input in valid random huge; do
  expect_eq "$(cat "$work/plain-$input-crash.txt")" "" "libhdf5 alone reads $input or refuses it cleanly"
done
expect_eq "$(cat "$work/plain-valid-hang.txt")" "" "libhdf5 alone reads the valid file in time"
expect_contains "$(head -1 "$work/plain-vlen4g-oom.txt")" "== h5dump asks for 2048 MB or more at once" \
  "the 4 GiB string: h5dump alone asks for it (stopped before it takes it)"
expect_contains "$(cat "$work/plain-vlen4g-oom.txt")" "in H5T__conv_vlen ()" "h5dump's allocation is in H5T__conv_vlen"
expect_eq "$(cat "$work/plain-valid-oom.txt")" "" "libhdf5 alone reads the valid file without a huge allocation"
judge() {  # judge INPUT KIND REPORT-LINES...: triage_with on those lines and INPUT's plain report
  local input=$1 kind=$2
  shift 2
  printf '%s\n' "INFO: Seed: 1" "$@" >"$work/pair.log"
  triage_with "$work/pair.log" "$(cat "$work/plain-$input-$kind.txt")" "${kind/crash/}"
}
segv=('==1==ERROR: AddressSanitizer: SEGV on unknown address 0x7f' '==1==The signal is caused by a READ memory access.'
  "    #0 0x7 in __memcpy_avx512_unaligned_erms string/../sysdeps/x86_64/multiarch/memmove-vec-unaligned-erms.S:469"
  "    #1 0x7 in H5HG_read $hdf5" "    #2 0x7 $hdf5" "    #3 0x7 in H5T__conv_vlen $hdf5" "    #4 0x7 in H5Aread $hdf5"
  "    #5 0x5 in mpimon::h5::read_strings(long) $ours")
expect_contains "$(judge vlen crash "${segv[@]}")" \
  "upstream: libhdf5 alone fails in H5HG_read on the same bytes (h5dump under memcheck: Invalid read" \
  "the vlen overflow: h5dump under memcheck fails where the fuzzer crashed"
expect_contains "$(judge vlen crash "${segv[@]:0:3}" "    #1 0x7 in H5O_msg_read $hdf5" "    #2 0x5 in mpimon::h5::has_attribute(long) $ours")" \
  "ours: libhdf5 alone fails on the same bytes, but not in H5O_msg_read" \
  "the same bytes, a crash in a function where libhdf5 alone does not fail"
# As ci/fuzz.sh runs it (pipefail), with a plain report long enough that a pipeline ending early
# (grep -q) would kill its writer: the verdict must not depend on the report's length (it did: CI).
long_plain="$(cat "$work/plain-vlen-crash.txt")
$(seq 1 20000 | sed 's/.*/by 0x2: H5X_frame& (in libhdf5)/')"
printf '%s\n' "INFO: Seed: 1" "${segv[@]}" >"$work/pair.log"
expect_eq "$(set -o pipefail; crash_origin "$work/pair.log")" libhdf5 "under pipefail: the crash's origin"
expect_contains "$(set -o pipefail; triage_with "$work/pair.log" "$long_plain")" \
  "upstream: libhdf5 alone fails in H5HG_read on the same bytes" "under pipefail, a long plain report: the same verdict"
alloc_report "    #0 0x5 in operator new(unsigned long) $fuzzer" "    #1 0x5 in mpimon::h5::read_strings(long) $ours"
expect_contains "$(triage_with "$work/alloc.log" "$(cat "$work/plain-vlen-crash.txt")")" \
  "ours: the memory was allocated or freed by mpimon (#1 0x5 in mpimon::h5::read_strings(long)" \
  "an overflow of mpimon's buffer inside H5Aread, on bytes where libhdf5 alone fails too"
for input in valid random huge; do
  expect_eq "$(judge $input crash "${segv[@]}")" "ours: libhdf5 alone reads the same bytes without a crash (h5dump, h5py)" \
    "a crash in libhdf5 on bytes libhdf5 alone reads or refuses cleanly ($input)"
done
timeout_in() {  # the stack of a libFuzzer timeout inside FUNCTION
  printf '%s\n' '==1== ERROR: libFuzzer: timeout after 11 seconds' "    #0 0x5 in __sanitizer_print_stack_trace $fuzzer" \
    "    #1 0x5 in fuzzer::Fuzzer::AlarmCallback() $fuzzer" "    #2 0x7 (/lib/x86_64-linux-gnu/libc.so.6+0x3c04f)" \
    "    #3 0x7 $hdf5" "    #4 0x7 in $1 $hdf5" "    #5 0x7 in H5HG_read $hdf5" "    #6 0x5 in mpimon::h5::read_strings(long) $ours"
}
mapfile -t hang <<<"$(timeout_in H5C_protect)"
expect_contains "$(judge loop hang "${hang[@]}")" \
  "upstream: libhdf5 alone fails in H5C_protect on the same bytes (h5py reading every attribute and dataset runs over 20 s)" \
  "libhdf5's global-heap loop: h5py alone loops where the fuzzer hung"
mapfile -t hang <<<"$(timeout_in H5D__chunk_lookup)"
expect_contains "$(judge loop hang "${hang[@]}")" "ours: libhdf5 alone fails on the same bytes, but not in H5D__chunk_lookup" \
  "the same bytes, a hang in a function where libhdf5 alone does not loop"
mapfile -t hang <<<"$(timeout_in H5C_protect)"
expect_eq "$(judge valid hang "${hang[@]}")" "ours: libhdf5 alone reads the same bytes without hang (h5dump, h5py)" \
  "a hang in libhdf5 on a valid file"
oom_in() {  # the stack of a libFuzzer out-of-memory (its malloc limit) under FRAMES...
  printf '%s\n' '==1== ERROR: libFuzzer: out-of-memory (malloc(4294967304))' \
    '   To change the out-of-memory limit use -rss_limit_mb=<N>' '' "    #0 0x5 in __sanitizer_print_stack_trace $fuzzer" \
    "    #1 0x5 in fuzzer::PrintStackTrace() $fuzzer" "    #2 0x5 in fuzzer::Fuzzer::HandleMalloc(unsigned long) $fuzzer" \
    "    #3 0x5 in fuzzer::MallocHook(void const volatile*, unsigned long) $fuzzer" \
    "    #4 0x5 in __sanitizer::RunMallocHooks(void const*, unsigned long) $fuzzer" \
    "    #5 0x5 in __asan::Allocator::Allocate(unsigned long, unsigned long) $fuzzer" "    #6 0x5 in malloc $fuzzer" "$@"
}
mapfile -t oom <<<"$(oom_in "    #7 0x7 $hdf5" "    #8 0x7 in H5FL_blk_malloc $hdf5" "    #9 0x7 in H5T__conv_vlen $hdf5" \
  "    #10 0x7 in H5Aread $hdf5" "    #11 0x5 in mpimon::h5::read_strings(long) $ours")"
printf '%s\n' "${oom[@]}" >"$work/oom.log"
expect_eq "$(fault_kind "$work/oom.log")" oom "libFuzzer's out-of-memory is its own kind"
expect_eq "$(first_libhdf5_function "$work/oom.log")" H5T__conv_vlen "past libhdf5's allocator, the function that asked"
expect_contains "$(judge vlen4g oom "${oom[@]}")" \
  "upstream: libhdf5 alone fails in H5T__conv_vlen on the same bytes (h5dump asks for 2048 MB or more at once)" \
  "the 4 GiB string: h5dump alone asks for it where the fuzzer ran out of memory"
expect_eq "$(judge valid oom "${oom[@]}")" \
  "ours: libhdf5 alone reads the same bytes without such an allocation (h5dump, h5py)" \
  "an out-of-memory in libhdf5 on a valid file"
mapfile -t oom <<<"$(oom_in "    #7 0x5 in operator new(unsigned long) $fuzzer" \
  "    #8 0x5 in std::vector<unsigned long>::vector(unsigned long) $fuzzer" \
  "    #9 0x5 in mpimon::h5::read_uint64(long) $ours")"
expect_eq "$(judge vlen4g oom "${oom[@]}")" "ours: the report's first frame is not inside libhdf5" \
  "an out-of-memory in mpimon's own allocation, on bytes where libhdf5 alone asks for 4 GiB too"
# triage itself, on one pair: the report and the bytes.
printf '%s\n' "INFO: Seed: 1" "${segv[@]}" >"$work/pair.log"
expect_contains "$(triage "$work/pair.log" "$vlen")" "upstream: libhdf5 alone fails in H5HG_read" "triage: report and bytes"
finish fuzz_triage
