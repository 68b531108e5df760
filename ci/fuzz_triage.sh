# Sourced by ci/fuzz.sh (and its test, ci/tests/fuzz_triage_test.sh): whether a crash, hang or
# out-of-memory the fuzzers found is libhdf5's own fault on the input (set aside as upstream) or
# ours (a failure).
# Raw HDF5 bytes reach libhdf5's parser before any code of mpimon: Debian 12's libhdf5 1.10.8 has
# memory errors and endless loops on corrupted files that no caller can guard against
# (docs/fuzzing.md). The excuse is tied to the fault: triage says "upstream" only when
#   1. the first frame of the sanitizer's report (past the sanitizers, libFuzzer and libc) is
#      inside libhdf5 (crash_origin),
#   2. the memory it names was not allocated (or freed) by mpimon: its allocation stack reaches no
#      frame of mpimon before a frame of libhdf5 (mpimon_allocation), and
#   3. libhdf5 alone, without any code of mpimon, fails on the same bytes in the same place: the
#      first libhdf5 function of the report's stack is in the stack of a plain reader's failure
#      (plain_hdf5_report): h5dump under valgrind's memcheck (an invalid access), h5dump or h5py
#      reading every attribute and dataset (ci/h5_read_everything.py; h5dump stops at the first
#      broken object) killed by a signal or, for a hang, still running after $PLAIN_HDF5_SECONDS
#      s (default 60, the fuzzers' timeout; no valgrind there, whose slowdown would look like a
#      hang), or, for an out-of-memory, asking malloc, calloc or realloc for
#      $PLAIN_HDF5_ALLOCATION_MB MB or more at once (default 2048, the fuzzers' limit; stopped
#      there, before it takes the memory). The stacks come from gdb (ci/install-deps.sh installs it).
# Anything else is ours, including a report without a stack, a libhdf5 frame without a function
# name, and a plain reader failing somewhere else on the file.

# No pipeline here ends early (grep -q, head): under ci/fuzz.sh's pipefail the writer killed by
# SIGPIPE would fail the test, and the verdict would depend on how long the report is. Each stage is
# kept in a variable and tested on its own.

# Frames to look past: the sanitizers' interceptors and runtime (names in __), libFuzzer, the
# allocators, the C and C++ runtime libraries.
readonly fuzz_runtime_frame=' in (__|fuzzer::|operator new|operator delete|malloc|calloc|realloc|free|std::)|[(/]lib(c|stdc\+\+|m|gcc_s)\.so|sysdeps/'
readonly fuzz_libhdf5_frame='[(/]libhdf5[^/ ]*\.so'

# first_report_stack LOG: the frames of the first report's first stack in LOG (libFuzzer,
# AddressSanitizer, LeakSanitizer or UndefinedBehaviorSanitizer).
first_report_stack() {
  awk '/ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:/ { report = 1 }
       report && /^ *#[0-9]+ 0x/ { print; seen = 1; next }
       seen { exit }' "$1"
}

# crash_origin LOG: "libhdf5" when the first frame of the first report's stack, past the runtime
# frames, is inside libhdf5; "ours" otherwise, including when LOG holds no stack at all.
crash_origin() {
  local first
  first=$(first_report_stack "$1" | awk -v runtime="$fuzz_runtime_frame" '$0 !~ runtime && !found { print; found = 1 }')
  grep -qE "$fuzz_libhdf5_frame" <<<"$first" && echo libhdf5 || echo ours
}

# first_libhdf5_function LOG: the name of the first function inside libhdf5 in the first report's
# stack ("H5HG_read"), past libhdf5's memory helpers (H5MM_*, H5FL_*: every allocation and copy
# passes there, an out-of-memory's stack starts with them); nothing when libhdf5's frames there
# have no name.
first_libhdf5_function() {
  first_report_stack "$1" | awk -v hdf5="$fuzz_libhdf5_frame" '
    $0 ~ hdf5 && !found && match($0, /^ *#[0-9]+ 0x[0-9a-f]+ in [A-Za-z0-9_]+ /) && !/ in H5(MM|FL)_/ {
      found = 1; sub(/^ *#[0-9]+ 0x[0-9a-f]+ in /, ""); sub(/ .*/, ""); print }'
}

# mpimon_allocation LOG: the frame of mpimon that allocated (or freed) the memory the first report
# names, when its allocation or free stack reaches one before any frame of libhdf5: that buffer is
# ours, whoever overflowed it. Nothing otherwise.
mpimon_allocation() {
  awk -v runtime="$fuzz_runtime_frame" -v hdf5="$fuzz_libhdf5_frame" '
    /ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:/ { report++ }
    report == 1 && /(allocated|freed) by thread/ { stack = 1; decided = 0; next }
    stack && /^ *#[0-9]+ 0x/ {
      if (decided || $0 ~ runtime) next
      decided = 1
      if ($0 !~ hdf5) { sub(/^ */, ""); print; exit }
      next
    }
    stack && !/^ *#/ { stack = 0 }
  ' "$1"
}

# plain_hdf5_report INPUT [hang|oom]: libhdf5 alone on INPUT. Prints one block per reader that
# failed, "== WHAT" and the stack of the failure; nothing when every reader read the file or refused
# it cleanly. Without a kind: h5dump under memcheck (invalid accesses, even without a crash), then
# h5dump and h5py under gdb (killed by a signal); with "hang": h5dump and h5py under gdb, each
# stopped after $PLAIN_HDF5_SECONDS s, the stack where it was then; with "oom": h5dump and h5py under
# gdb, stopped at their first allocation of $PLAIN_HDF5_ALLOCATION_MB MB or more, its stack.
plain_hdf5_report() {
  local input=$1 kind=${2:-} seconds=${PLAIN_HDF5_SECONDS:-60} log
  local bytes=$((${PLAIN_HDF5_ALLOCATION_MB:-2048} << 20)) stops=(-ex run)
  log=$(mktemp)
  # The allocators' breakpoints set once libc is loaded, at their first instruction, where the
  # sizes are still in the first two argument registers (x86-64): `break malloc` would also stop in
  # the program's PLT and ld.so's own malloc, past a prologue that may have moved them.
  [ "$kind" = oom ] && stops=(-ex 'set breakpoint pending on' -ex 'tbreak __libc_start_main' -ex run
    -ex "break *__libc_malloc if \$rdi >= $bytes" -ex "break *__libc_calloc if \$rdi * \$rsi >= $bytes"
    -ex "break *__libc_realloc if \$rsi >= $bytes" -ex continue)
  if [ -z "$kind" ]; then
    timeout 120 valgrind -q --error-exitcode=99 h5dump "$input" >/dev/null 2>"$log"
    if grep -qE '^==[0-9]+== (Invalid|Conditional|Use of uninit|Process terminating)' "$log"; then
      echo "== h5dump under memcheck: $(grep -m1 -E '^==[0-9]+== (Invalid|Conditional|Use of uninit|Process terminating)' "$log" | sed 's/^==[0-9]*== //')"
      sed -n 's/^==[0-9]*== *//p' "$log"
    fi
  fi
  local reader
  for reader in "h5dump:h5dump $input" "h5py reading every attribute and dataset:/usr/bin/python3 $(dirname "${BASH_SOURCE[0]}")/h5_read_everything.py $input"; do
    # shellcheck disable=SC2086 # the reader's command line, split on purpose
    timeout -s INT "$seconds" gdb -q -batch "${stops[@]}" -ex bt --args ${reader#*:} >"$log" 2>&1 </dev/null
    if grep -q '^Program received signal SIGINT' "$log"; then
      [ "$kind" = hang ] && { echo "== ${reader%%:*} runs over $seconds s"; grep '^#' "$log"; }
    elif [ "$kind" = oom ] && grep -qE '^Breakpoint [0-9]+, ' "$log"; then
      echo "== ${reader%%:*} asks for ${PLAIN_HDF5_ALLOCATION_MB:-2048} MB or more at once"
      grep '^#' "$log"
    elif grep -q '^Program received signal' "$log"; then
      echo "== ${reader%%:*} killed by $(grep -m1 '^Program received signal' "$log" | sed 's/^Program received signal \([A-Z]*\).*/\1/')"
      grep '^#' "$log"
    fi
  done
  rm -f "$log"
}

# fault_kind LOG: "hang" for a libFuzzer timeout, "oom" for its out-of-memory, "" for a crash.
fault_kind() {
  if grep -q 'ERROR: libFuzzer: timeout' "$1"; then
    echo hang
  elif grep -q 'ERROR: libFuzzer: out-of-memory' "$1"; then
    echo oom
  fi
}

# triage LOG INPUT: "upstream: WHY" when the crash, hang or out-of-memory LOG reports on INPUT is
# libhdf5's own fault (the three conditions above), else "ours: WHY".
triage() {
  local kind
  kind=$(fault_kind "$1")
  triage_with "$1" "$(plain_hdf5_report "$2" $kind)" "$kind"
}

# triage_with LOG PLAIN_REPORT [hang|oom]: triage's verdict on LOG given plain_hdf5_report's of its input.
triage_with() {
  local log=$1 plain=$2 kind=${3:-} function allocation frames
  if [ "$(crash_origin "$log")" != libhdf5 ]; then
    echo "ours: the report's first frame is not inside libhdf5"
    return
  fi
  allocation=$(mpimon_allocation "$log")
  if [ -n "$allocation" ]; then
    echo "ours: the memory was allocated or freed by mpimon ($allocation)"
    return
  fi
  function=$(first_libhdf5_function "$log")
  if [ -z "$function" ]; then
    echo "ours: no libhdf5 function named in the report's stack to find in a plain reader's"
  elif [ -z "$plain" ]; then
    local what=${kind:-a crash}
    [ "$what" = oom ] && what="such an allocation"
    echo "ours: libhdf5 alone reads the same bytes without $what (h5dump, h5py)"
  elif frames=$(grep -E '^#|^(at|by) 0x' <<<"$plain") && grep -qw -- "$function" <<<"$frames"; then
    echo "upstream: libhdf5 alone fails in $function on the same bytes ($(grep -m1 '^== ' <<<"$plain" | cut -c4-))"
  else
    echo "ours: libhdf5 alone fails on the same bytes, but not in $function ($(grep -m1 '^== ' <<<"$plain" | cut -c4-))"
  fi
}
