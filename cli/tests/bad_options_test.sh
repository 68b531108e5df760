#!/usr/bin/env bash
# Every bad option gets a clear answer (docs/cli.md, "Exit codes"). Two tables:
#  1. generated: every option of every command (read from its --help) that takes a number gets a
#     non-numeric, a negative and an empty value; every option that takes a value gets an empty
#     one where a value is needed. Each answer must name the option, exit 2 (usage), come within
#     a few seconds (nothing was launched) and leave the directory empty;
#  2. by hand: zero where it is refused, unknown names, missing files and folders, out-of-range
#     values: the exit code (2 usage, 1 bad input) and the words of the answer.
# Usage: bad_options_test.sh MPIMON MPIMON_MERGE DATA_DIR
set -u
mpimon=$1
merge=$2
data=$3
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"

# Inputs each command accepts, so that only the option under test is wrong.
fixtures=$work/fixtures
mkdir -p "$fixtures"
cp "$data/v1/mode2_sample.h5" "$fixtures/m.h5"
prof=$data/real/mode1_sample.0.prof
printf 'off,on\n1,2\n2,3\n3,5\n' >"$fixtures/pairs.csv"

# check EXPECTED_CODE WORDS... -- ARGS...: runs mpimon ARGS (mpimon-merge when ARGS starts with
# "merge:") in an empty directory; the exit code, each of WORDS in stderr, nothing left behind.
check() {
  local code=$1 words=() dir
  shift
  while [ "$1" != "--" ]; do words+=("$1"); shift; done
  shift
  local program=$mpimon
  if [ "$1" = "merge:" ]; then program=$merge; shift; fi
  dir=$(mktemp -d "$work/run.XXXX")
  (cd "$dir" && timeout 20 "$program" "$@" >"$work/out" 2>"$work/err")
  local rc=$?
  local what="$(basename "$program") $*"
  [ "$rc" -eq "$code" ] || fail "$what: exit code $rc, expected $code: $(head -c 300 "$work/err")"
  for w in "${words[@]}"; do
    grep -qF -- "$w" "$work/err" || fail "$what: [$w] not in the answer: $(head -c 300 "$work/err")"
  done
  [ -z "$(ls -A "$dir")" ] || fail "$what: left behind: $(ls -A "$dir" | tr '\n' ' ')"
  rm -rf "$dir"
}

# The positional input each command needs (from its synopsis), or nothing.
input_of() {
  case $1 in
    show | "export treematch" | "export mat") echo "$fixtures/m.h5" ;;
    "stats paired") echo "$fixtures/pairs.csv" ;;
    merge) echo "$prof" ;;
    plot) echo "$fixtures/m.h5" ;;
    *) echo "" ;;
  esac
}

# "--name default" for each option of a --help text that takes a value ("--name arg (=default)").
help_options() {
  local line re='^  (-[a-zA-Z] \[ )?(--[a-z-]+)( \])? arg( \(=([^)]*)\))?'
  while IFS= read -r line; do
    [[ $line =~ $re ]] && echo "${BASH_REMATCH[2]} ${BASH_REMATCH[5]}"
  done
}

# --- 1. Generated from every command's --help.
commands=("merge" "show" "export treematch" "export mat" "validate" "validate collective" "bench overhead"
          "bench app" "bench placement" "gate" "pvars" "model collective" "plot" "plot collective" "stats paired")
listed=$("$mpimon" --help | awk '/^Commands:/ { on = 1; next } on && NF { print $1 " " $2 }')
for c in "${commands[@]}"; do
  grep -q "^$c\b" <<<"$listed" || [ "$c" = merge ] || [ "$c" = show ] || [ "$c" = gate ] ||
    [ "$c" = pvars ] || [ "$c" = plot ] || fail "the sweep lists '$c', mpimon --help does not"
done
swept=0
for c in "${commands[@]}"; do
  read -r -a words <<<"$c"
  input=$(input_of "$c")
  # "--name arg (=default)": options that take a value, with their default if any.
  while read -r option default; do
    [ "$option" = "--input" ] && continue
    [ "$c $option" = "stats paired --unit" ] && continue  # "" is documented: no unit
    if [[ $default =~ ^-?[0-9]+(\.[0-9]+)?$ ]]; then
      for bad in x -1 ""; do
        check 2 "$option" -- "${words[@]}" ${input:+"$input"} "$option" "$bad"
        swept=$((swept + 1))
      done
    elif [ "$option" != "--mca" ] && [ "$option" != "--env" ] && [ "$option" != "--on-env" ]; then
      # An empty value: never accepted silently.
      check 2 "$option" -- "${words[@]}" ${input:+"$input"} "$option" ""
      swept=$((swept + 1))
    fi
  done < <("$mpimon" "${words[@]}" --help | help_options)
done
[ "$swept" -gt 100 ] || fail "only $swept bad values swept: the --help parsing is broken"

# --- 2. By hand.
check 2 "--np" "'x' is not a positive integer" -- bench overhead --np x
check 2 "--np" "'0' is not a positive integer" -- bench overhead --np 2,0
check 2 "--np" -- bench app --np 2,,4 -- true
check 2 "--pairs" -- bench overhead --pairs 0
check 2 "--pairs" -- bench app --pairs 0 -- true
check 2 "--iterations" -- bench overhead --iterations 0
check 2 "--runs" -- gate --runs 0
check 2 "--count" -- gate --count 0
check 2 "--ops" "unknown operation 'nope'" -- bench overhead --ops send,nope
check 2 "--arms" -- bench overhead --arms nope
check 2 "--transport" -- bench overhead --transport nope
check 2 "--measure" "instructions, timing or both" -- gate --measure nothing
check 2 "--accept" "rerecord, missing and unstable" -- gate --accept everything
check 2 "--layout" "auto, dense or csr" -- merge: --layout diagonal x.0.prof
check 2 "no input" -- merge:
check 2 "--classes" -- export treematch "$fixtures/m.h5" --classes nope
check 2 "--metric" -- export treematch "$fixtures/m.h5" --metric nope
check 2 "--compat" -- export mat "$fixtures/m.h5" --compat nope
check 2 "--confidence" -- stats paired "$fixtures/pairs.csv" --confidence 1.5
check 2 "--processes" -- stats paired "$fixtures/pairs.csv" --processes 0
check 2 "--op" -- model collective --op nope --algorithm linear --np 2 --count 1
check 2 "--algorithm" -- model collective --op bcast --algorithm nope --np 2 --count 1
check 2 "--np" -- model collective --op bcast --algorithm linear --np 0 --count 1
check 2 "--root" -- model collective --op bcast --algorithm binomial --np 4 --root 4 --count 1
check 2 "--mode" -- model collective --op bcast --algorithm binomial --np 4 --count 1 --mode 3
check 2 "--open-mpi" "4.1, 5.0" -- model collective --op bcast --algorithm binomial --np 4 --count 1 --open-mpi 6.0
check 2 "--algorithm" "sparbit is not in Open MPI 4.1" -- model collective --op allgather --algorithm sparbit --np 4 --count 1
check 2 "--case" -- validate --case no_such_case
check 2 "missing input argument" -- show
check 2 "missing input argument" -- stats paired
check 2 "unrecognised option" -- show "$fixtures/m.h5" --frobnicate
# Missing files and folders: exit 1, the path named.
check 1 "missing.h5" -- show missing.h5
check 1 "missing.h5" -- export mat missing.h5
check 1 "missing.csv" -- stats paired missing.csv
check 1 "missing.0.prof" -- merge: missing.0.prof
check 1 "no/such/dir" "does not exist" -- export mat "$fixtures/m.h5" -o no/such/dir
check 1 "no/such/dir" "does not exist" -- export treematch "$fixtures/m.h5" -o no/such/dir/t.txt
check 1 "no/such/dir" "does not exist" -- merge: -o no/such/dir/m.h5 "$prof"
check 1 "missing.json" "--update-baseline" -- gate --baseline missing.json --measure instructions --probe /bin/true

finish "bad options"
