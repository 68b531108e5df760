# shellcheck shell=bash disable=SC2154  # bench_options is the calling script's
# Sourced by the benchmark scripts (bench/collect/run.sh, bench/merge/run.sh, bench/merge/parallel.sh):
# their one argument loop. The script lists its options in the array `bench_options`, one entry each:
#   "--NAME VARIABLE WHAT"      takes a value, stored in VARIABLE ("--NAME needs WHAT" when missing)
#   "--NAME = ASSIGNMENTS..."   a flag: makes its assignments (VARIABLE=VALUE, space-separated)
# then calls parse_options "$@". -h and --help print the script's header comment (line 2 up to
# `set -euo pipefail`) and exit 0; an unknown argument or a missing value is an error (exit 2).
parse_options() {
  local script=${BASH_SOURCE[1]} entry flag variable what assignment found
  while [ $# -gt 0 ]; do
    if [ "$1" = -h ] || [ "$1" = --help ]; then
      sed -n '2,/^set -euo/{/^set/d;s/^# \{0,1\}//;p}' "$script"
      exit 0
    fi
    found=0
    for entry in "${bench_options[@]}"; do
      read -r flag variable what <<<"$entry"
      [ "$flag" = "$1" ] || continue
      found=1
      if [ "$variable" = = ]; then
        for assignment in $what; do printf -v "${assignment%%=*}" '%s' "${assignment#*=}"; done
      else
        [ -n "${2:-}" ] || { echo "$(basename "$script"): $1 needs $what" >&2; exit 2; }
        printf -v "$variable" '%s' "$2"
        shift
      fi
      break
    done
    [ $found = 1 ] || { echo "$(basename "$script"): unknown argument '$1' (see --help)" >&2; exit 2; }
    shift
  done
}
