# Sourced by ci/fuzz.sh (and its test, ci/tests/fuzz_triage_test.sh): where a sanitizer report
# says a crash happened.
#
# crash_origin LOG: prints "libhdf5" when the first frame of the first report in LOG, once the
# frames of the sanitizers (interceptors such as memcpy: names in __), of libFuzzer (a timeout's
# alarm) and of libc (its memcpy, a signal's trampoline) are skipped, is inside libhdf5; "ours"
# otherwise, including when LOG holds no stack at all (a crash that cannot be placed is ours).
# Raw HDF5 bytes reach libhdf5's parser before any code of mpimon: Debian 12's libhdf5 1.10.8 has
# memory errors on corrupted files that no caller can guard against (docs/fuzzing.md).
crash_origin() {
  awk '
    /ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:/ { report = 1 }
    report && /^ *#[0-9]+ 0x/ {
      if ($0 ~ / in (__|fuzzer::|operator new|malloc|calloc|realloc|free)/) next
      if ($0 ~ /[(\/]libc\.so|sysdeps\//) next
      if ($0 ~ /[(\/]libhdf5[^\/ ]*\.so/) { print "libhdf5" } else { print "ours" }
      found = 1
      exit
    }
    END { if (!found) print "ours" }
  ' "$1"
}

# plain_hdf5_fails INPUT: libhdf5 alone, without any code of mpimon, on the same bytes: prints why
# when h5dump of the whole file under valgrind's memcheck makes an invalid access (exit 99), is
# killed by a signal, or runs over 120 s; or when h5py reading every attribute and dataset it can
# (ci/h5_read_everything.py: h5dump stops at the first broken object, mpimon's reader may go on to
# another) is killed by a signal or runs over $PLAIN_HDF5_SECONDS s (default 60, six times the
# fuzzers' timeout); nothing when both read the file or refuse it cleanly.
# ci/fuzz.sh sets a crash or hang inside libhdf5 aside only when this prints something.
plain_hdf5_fails() {
  local rc log
  log=$(mktemp)
  timeout 120 valgrind -q --error-exitcode=99 h5dump "$1" >/dev/null 2>"$log"
  rc=$?
  case $rc in
    99) echo "h5dump under memcheck: $(grep -m1 -E 'Invalid|uninitialised|Jump' "$log" | sed 's/^==[0-9]*== //')" ;;
    124) echo "h5dump runs over 120 s" ;;
    *) ((rc > 128)) && echo "h5dump killed by signal $((rc - 128))" ;;
  esac
  rm -f "$log"
  ((rc == 99 || rc == 124 || rc > 128)) && return 0
  local seconds=${PLAIN_HDF5_SECONDS:-60}
  timeout "$seconds" /usr/bin/python3 "$(dirname "${BASH_SOURCE[0]}")/h5_read_everything.py" "$1" >/dev/null 2>&1
  rc=$?
  case $rc in
    124) echo "h5py reading every attribute and dataset runs over $seconds s" ;;
    *) ((rc > 128)) && echo "h5py reading every attribute and dataset killed by signal $((rc - 128))" ;;
  esac
  return 0
}
