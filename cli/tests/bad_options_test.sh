#!/usr/bin/env bash
# Every bad option gets a clear answer (docs/cli.md, "Exit codes"). Two tables:
#  1. generated: every option of every command (read from its --help) that takes a number gets a
#     non-numeric, a negative and an empty value; every option that takes a value gets an empty
#     one where a value is needed. Each answer must name the option, exit 2 (usage), come within
#     a few seconds (nothing was launched) and leave the directory empty;
#  2. by hand: zero where it is refused, unknown names, missing files and folders, out-of-range
#     values: the exit code (2 usage, 1 bad input) and the words of the answer;
#  3. the table of every number and list an option takes (below), each swept with what its kind
#     refuses: x, -3, 0 (where refused), empty, too large, and a bad item inside a list; nothing
#     may be launched (a launcher in PATH that would leave a mark) and the answer names the option;
#  4. sweeps whose launches fail (a launcher that exits 2): the exit code 9, how many failed and
#     where their logs are, with and without --keep-going.
# Usage: bad_options_test.sh MPIMON MPIMON_MERGE DATA_DIR
set -u
mpimon=$1
merge=$2
data=$3
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"

# Under the sanitizers (MPIMON_SANITIZED) every option gets one bad value and every kind of value
# (below) all of its own once: the values are parsed by one function per kind
# (cli/option_values.cpp), and a sanitized mpimon started for every value of every option took ten
# minutes of the CI's sanitizer stage; the main build sweeps every value of every option.
sampled=${MPIMON_SANITIZED:+yes}

# Inputs each command accepts, so that only the option under test is wrong.
fixtures=$work/fixtures
mkdir -p "$fixtures"
cp "$data/v1/mode2_sample.h5" "$fixtures/m.h5"
prof=$data/real/mode1_sample.0.prof
printf 'off,on\n1,2\n2,3\n3,5\n' >"$fixtures/pairs.csv"

# expect_answer EXPECTED_CODE WORDS... -- ARGS...: runs mpimon ARGS (mpimon-merge when ARGS starts with
# "merge:") in an empty directory; the exit code, each of WORDS in stderr, nothing left behind.
expect_answer() {
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
  check && [ "$rc" -eq "$code" ] || fail "$what: exit code $rc, expected $code: $(head -c 300 "$work/err")"
  for w in "${words[@]}"; do
    check && grep -qF -- "$w" "$work/err" || fail "$what: [$w] not in the answer: $(head -c 300 "$work/err")"
  done
  check && [ -z "$(ls -A "$dir")" ] || fail "$what: left behind: $(ls -A "$dir" | tr '\n' ' ')"
  rm -rf "$dir"
}

# The positional input each command needs (from its synopsis), or nothing.
input_of() {
  case $1 in
    show | export* | report | place) echo "$fixtures/m.h5" ;;
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

# --- 1. Generated from every command's --help; the commands are read from mpimon --help itself (a
# command added to its table is swept). Left out, with the reason: cluster up, run and down build,
# use or remove network namespaces as root (cli.cluster_options checks their options).
mapfile -t commands < <("$mpimon" --help | awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { sub(/^  /, ""); split($0, a, /  +/); print a[1] }' |
  grep -vx -e "cluster up" -e "cluster run" -e "cluster down")
check && [ "${#commands[@]}" -ge 20 ] || fail "mpimon --help lists only ${#commands[@]} commands: ${commands[*]}"
swept=0
for c in "${commands[@]}"; do
  read -r -a words <<<"$c"
  input=$(input_of "$c")
  # "--name arg (=default)": options that take a value, with their default if any.
  while read -r option default; do
    [ "$option" = "--input" ] && continue
    [ "$c $option" = "stats paired --unit" ] && continue  # "" is documented: no unit
    if [[ $default =~ ^-?[0-9]+(\.[0-9]+)?$ ]]; then
      # (sampled: none here, every such option is a row of the numbers table below, swept there)
      bad_numbers=(x -1 "")
      [ -n "$sampled" ] && bad_numbers=()
      for bad in "${bad_numbers[@]}"; do
        expect_answer 2 "$option" -- "${words[@]}" ${input:+"$input"} "$option" "$bad"
        swept=$((swept + 1))
      done
    elif [ "$option" != "--mca" ] && [ "$option" != "--env" ] && [ "$option" != "--on-env" ]; then
      # An empty value: never accepted silently.
      expect_answer 2 "$option" -- "${words[@]}" ${input:+"$input"} "$option" ""
      swept=$((swept + 1))
    fi
  done < <("$mpimon" "${words[@]}" --help | help_options)
done
least=100
[ -n "$sampled" ] && least=40
check && [ "$swept" -gt "$least" ] || fail "only $swept bad values swept: the --help parsing is broken"

# --- 2. By hand.
expect_answer 2 "--np" "'x' is not a whole number from 1" -- bench overhead --np x
expect_answer 2 "--np" "'0' is not a whole number from 1" -- bench overhead --np 2,0
expect_answer 2 "--sizes" "'x' is not a whole number from 0 to 2147483647" -- bench overhead --sizes 1,x -o o.h5
expect_answer 2 "--np" -- bench app --np 2,,4 -- true
expect_answer 2 "--pairs" -- bench overhead --pairs 0
expect_answer 2 "--pairs" -- bench app --pairs 0 -- true
expect_answer 2 "--iterations" -- bench overhead --iterations 0
expect_answer 2 "--runs" -- gate --runs 0
expect_answer 2 "--count" -- gate --count 0
expect_answer 2 "--ops" "unknown operation 'nope'" -- bench overhead --ops send,nope
expect_answer 2 "--arms" -- bench overhead --arms nope
expect_answer 2 "--transport" -- bench overhead --transport nope
expect_answer 2 "--measure" "instructions, timing or both" -- gate --measure nothing
expect_answer 2 "--accept" "rerecord, missing and unstable" -- gate --accept everything
expect_answer 2 "--layout" "auto, dense or csr" -- merge: --layout diagonal x.0.prof
expect_answer 2 "no input" -- merge:
expect_answer 2 "--classes" -- export treematch "$fixtures/m.h5" --classes nope
expect_answer 2 "--metric" -- export treematch "$fixtures/m.h5" --metric nope
expect_answer 2 "--compat" -- export mat "$fixtures/m.h5" --compat nope
expect_answer 2 "--confidence" -- stats paired "$fixtures/pairs.csv" --confidence 1.5
expect_answer 2 "--processes" -- stats paired "$fixtures/pairs.csv" --processes 0
expect_answer 2 "--op" -- model collective --op nope --algorithm linear --np 2 --count 1
expect_answer 2 "--algorithm" -- model collective --op bcast --algorithm nope --np 2 --count 1
expect_answer 2 "--np" -- model collective --op bcast --algorithm linear --np 0 --count 1
expect_answer 2 "--root" -- model collective --op bcast --algorithm binomial --np 4 --root 4 --count 1
expect_answer 2 "--mode" -- model collective --op bcast --algorithm binomial --np 4 --count 1 --mode 3
expect_answer 2 "--open-mpi" "4.1, 5.0" -- model collective --op bcast --algorithm binomial --np 4 --count 1 --open-mpi 6.0
expect_answer 2 "--algorithm" "sparbit is not in Open MPI 4.1" -- model collective --op allgather --algorithm sparbit --np 4 --count 1
expect_answer 2 "--case" -- validate --case no_such_case
expect_answer 2 "missing input argument" -- show
expect_answer 2 "missing input argument" -- stats paired
expect_answer 2 "unrecognised option" -- show "$fixtures/m.h5" --frobnicate
# Missing files and folders: exit 1, the path named.
expect_answer 1 "missing.h5" -- show missing.h5
expect_answer 1 "missing.h5" -- export mat missing.h5
expect_answer 1 "missing.csv" -- stats paired missing.csv
expect_answer 1 "missing.0.prof" -- merge: missing.0.prof
expect_answer 1 "no/such/dir" "does not exist" -- export mat "$fixtures/m.h5" -o no/such/dir
expect_answer 1 "no/such/dir" "does not exist" -- export treematch "$fixtures/m.h5" -o no/such/dir/t.txt
expect_answer 1 "no/such/dir" "does not exist" -- merge: -o no/such/dir/m.h5 "$prof"
expect_answer 1 "missing.json" "--update-baseline" -- gate --baseline missing.json --measure instructions --probe /bin/true

# --- 3. Every number and list an option takes: COMMAND | OPTION | KIND | ARGS the command needs.
# KIND says what is refused besides x, -3, empty and too large: pos (0 too), nat (0 accepted),
# mode (0 and 3: pml_monitoring_enable 1 or 2), pos-list and nat-list (comma lists; a bad item
# inside them too), pos-real and nat-real (floating point; "too large" is 1e999).
# Every option of every --help with a numeric default must be a row: a new one cannot escape.
numbers_table='
merge | --csr-above | nat | PROF
merge | --threads | nat | PROF
show | --top | nat | M5
validate | --np | pos |
validate | --mode | mode |
validate | --timeout | pos |
validate collective | --np | pos | --op bcast --algorithm binomial --count 1
validate collective | --root | nat | --op bcast --algorithm binomial --np 4 --count 1
validate collective | --count | nat | --op bcast --algorithm binomial --np 4
validate collective | --type-size | pos | COLL
validate collective | --segsize | nat | COLL
validate collective | --tree-fanout | pos | COLL
validate collective | --chain-fanout | nat | COLL
validate collective | --radix | pos | --op bcast --algorithm knomial --np 4 --count 1
validate collective | --mode | mode | COLL
validate collective | --timeout | pos | COLL
model collective | --np | pos | --op bcast --algorithm binomial --count 1
model collective | --root | nat | --op bcast --algorithm binomial --np 4 --count 1
model collective | --count | nat | --op bcast --algorithm binomial --np 4
model collective | --type-size | pos | COLL
model collective | --segsize | nat | COLL
model collective | --tree-fanout | pos | COLL
model collective | --chain-fanout | nat | COLL
model collective | --radix | pos | --op bcast --algorithm knomial --np 4 --count 1
model collective | --mode | mode | COLL
plot collective | --np | pos | --op bcast --algorithm binomial --count 1 --table
plot collective | --root | nat | --op bcast --algorithm binomial --np 4 --count 1 --table
plot collective | --count | nat | --op bcast --algorithm binomial --np 4 --table
plot collective | --type-size | pos | COLL --table
plot collective | --segsize | nat | COLL --table
plot collective | --tree-fanout | pos | COLL --table
plot collective | --chain-fanout | nat | COLL --table
plot collective | --radix | pos | --op bcast --algorithm knomial --np 4 --count 1 --table
plot collective | --mode | mode | COLL --table
bench overhead | --sizes | nat-list |
bench overhead | --np | pos-list |
bench overhead | --pairs | pos |
bench overhead | --monitoring-mode | mode |
bench overhead | --iterations | pos |
bench overhead | --warmup | nat |
bench overhead | --seed | nat |
bench overhead | --timeout | pos |
bench overhead | --block | pos | --design interleaved
bench overhead | --calibrate | nat |
bench overhead | --calibrate-loops | nat |
bench app | --np | pos-list | --workload stencil
bench app | --pairs | pos | --workload stencil
bench app | --seed | nat | --workload stencil
bench app | --timeout | pos | --workload stencil
bench app | --monitoring-mode | mode | --workload stencil
bench app | --iterations | pos | --workload stencil
bench app | --grid | pos-list | --workload stencil
bench app | --vars | pos | --workload stencil
bench app | --points | pos | --workload stencil
bench app | --compute | nat-real | --workload stencil
bench app | --compute-sweep | nat-real | --workload stencil
bench app | --fail-above | pos-real | --workload stencil
bench placement | --np | pos | RF
bench placement | --pairs | pos | RF
bench placement | --seed | nat | RF
bench placement | --timeout | pos | RF
bench placement | --iterations | pos | RF
gate | --monitoring-mode | mode |
gate | --timeout | pos |
gate | --count | pos |
gate | --size | pos |
gate | --runs | pos |
gate | --tolerance | nat-real |
gate | --sizes | nat-list |
gate | --pairs | pos |
gate | --iterations | pos |
gate | --warmup | nat |
gate | --seed | nat |
gate | --alpha | pos-real |
gate | --margin-ns | nat-real |
gate | --margin-relative | nat-real |
pvars | --mode | nat |
stats paired | --processes | pos | PAIRS
stats paired | --confidence | pos-real | PAIRS
place | --seed | nat | M5 --topology 2x1x2
place | --slots-per-leaf | pos | M5 --topology 2x1x2
record | --np | pos | -- true
record | --mode | mode | -- true
collect | --np | pos | -o c.h5 -- true
collect | --mode | mode | -o c.h5 -- true
probe | --repetitions | pos | --topology 2x1x1 -o l.json
probe | --size | pos | --topology 2x1x1 -o l.json
probe | --messages | pos | --topology 2x1x1 -o l.json
probe | --rounds | pos | --topology 2x1x1 -o l.json
run | --time-limit | pos-real | --reorder -- true
simulate | --timeout | pos | --topology 2x1x1 --np 2 RF -- true
simulate | --jobs | pos | --topology 2x1x1 --np 2 RF -- true
plot placement | --columns | pos | -o p M5
'
# A launcher in PATH that leaves a mark if anything is launched (its --version answers, for provenance).
mkdir -p "$work/bin"
printf '#!/bin/sh\ncase "$*" in *--version*) echo "mpirun (Open MPI) 4.1.4"; exit 0 ;; esac\ntouch "%s"\necho failing launcher\nexit 2\n' \
  "$work/launched" >"$work/bin/mpirun"
cp "$work/bin/mpirun" "$work/bin/valgrind"
chmod +x "$work/bin/mpirun" "$work/bin/valgrind"
printf 'rank 0=localhost slot=0\nrank 1=localhost slot=1\n' >"$fixtures/a.rf"
printf 'rank 0=localhost slot=1\nrank 1=localhost slot=0\n' >"$fixtures/b.rf"
too_large=99999999999999999999
# bad_values KIND: "VALUE<TAB>WORD" lines, WORD the words the answer must hold besides the option.
bad_values() {
  local k=$1
  printf "x\t'x'\n-3\t'-3'\n\tempty\n"
  case $k in
    pos | pos-list | pos-real | mode) printf "0\t\n" ;;
  esac
  case $k in
    *-real) printf "1e999\t'1e999'\n" ;;
    *) printf "%s\t'%s'\n" "$too_large" "$too_large" ;;
  esac
  case $k in
    mode) printf "3\t\n" ;;
    *-list) printf "1,x\t'x'\n2,,4\tempty\n" ;;
  esac
}
rows=0
declare -A in_table kind_swept
while IFS='|' read -r c option kind extra; do
  c=$(xargs <<<"$c") option=$(xargs <<<"$option") kind=$(xargs <<<"$kind")
  [ -z "$c" ] && continue
  in_table["$c $option"]=1
  extra=${extra//PROF/$prof}
  extra=${extra//M5/$fixtures/m.h5}
  extra=${extra//PAIRS/$fixtures/pairs.csv}
  extra=${extra//COLL/--op bcast --algorithm binomial --np 4 --count 1}
  extra=${extra//RF/--rankfile $fixtures/a.rf --rankfile $fixtures/b.rf}
  read -r -a words <<<"$c"
  read -r -a more <<<"$extra"
  program=()
  [ "$c" = merge ] && program=("merge:") && words=()
  while IFS=$'\t' read -r bad word; do
    rm -f "$work/launched"
    PATH=$work/bin:$PATH expect_answer 2 "$option" ${word:+"$word"} -- "${program[@]}" "${words[@]}" "$option" "$bad" "${more[@]}"
    check && [ ! -e "$work/launched" ] || fail "$c $option '$bad': something was launched"
    rows=$((rows + 1))
  done < <(if [ -n "$sampled" ] && [ -n "${kind_swept[$kind]:-}" ]; then bad_values "$kind" | head -1; else bad_values "$kind"; fi)
  kind_swept[$kind]=1
done <<<"$numbers_table"
least=400
[ -n "$sampled" ] && least=100
check && [ "$rows" -gt "$least" ] || fail "only $rows rows of the numbers table ran"
# Every option with a numeric default is in the table.
for c in "${commands[@]}"; do
  read -r -a words <<<"$c"
  while read -r option default; do
    [[ $default =~ ^-?[0-9]+(\.[0-9]+)?$ ]] || continue
    check && [ -n "${in_table["$c $option"]:-}" ] || fail "$c $option takes a number but is not in the numbers table"
  done < <("$mpimon" "${words[@]}" --help | help_options)
done

# --- 4. Sweeps whose launches fail: exit code 9, how many failed, where their logs are.
failing=$work/bin/mpirun
sweep_dir=$(mktemp -d "$work/sweep.XXXX")
cd "$sweep_dir" || exit 1
# --program: any file; the launcher fails before it would run (a build without MPI has no benchmark).
benchmark=(--program /bin/true)
run "$mpimon" bench overhead --launcher "$failing" --sizes 1 --pairs 2 -o o.h5 "${benchmark[@]}"
expect_eq "$rc" 9 "bench overhead with failing launches: exit code"
expect_contains "$err" "1 of 1 launches run failed (the sweep stopped at it; --keep-going runs the rest), the first: shared np 2 pair 1" "bench overhead stops at the first failure"
expect_contains "$err" "exit code 2: failing launcher; their logs: o.h5.logs; --resume retries them" "bench overhead: the status and the logs"
check && [ "$(ls o.h5.logs | wc -l)" -eq 1 ] || fail "bench overhead: one log expected in o.h5.logs: $(ls o.h5.logs)"
check && grep -q "status: exit code 2" o.h5.logs/*.log || fail "bench overhead: the log does not hold the status"
rm -rf o.h5 o.h5.logs
run "$mpimon" bench overhead --launcher "$failing" --sizes 1 --pairs 2 -o o.h5 --keep-going "${benchmark[@]}"
expect_eq "$rc" 9 "bench overhead --keep-going with failing launches: exit code"
expect_contains "$err" "6 of 6 launches run failed, the first: shared np 2 pair 1" "bench overhead --keep-going counts every failure"
expect_contains "$err" "their logs: o.h5.logs" "bench overhead --keep-going: the logs"
check && [ "$(ls o.h5.logs | wc -l)" -eq 6 ] || fail "bench overhead --keep-going: six logs expected: $(ls o.h5.logs)"
run "$mpimon" bench app --launcher "$failing" --pairs 2 -o a.h5 --keep-going -- true
expect_eq "$rc" 9 "bench app --keep-going with failing launches: exit code"
expect_contains "$err" "4 of 4 launches run failed, the first: true np 2 pair 1" "bench app"
expect_contains "$err" "their logs: a.h5.logs; no launch succeeded: no results file" "bench app: the logs"
check && [ ! -e a.h5 ] || fail "bench app: a results file without a successful launch was left"
run "$mpimon" bench placement --launcher "$failing" --rankfile "$fixtures/a.rf" --rankfile "$fixtures/b.rf" -o p.h5 -- true
expect_eq "$rc" 9 "bench placement with failing launches: exit code"
expect_contains "$err" "1 of 1 launches run failed (the sweep stopped at it" "bench placement"
run "$mpimon" gate --measure timing --update-baseline --baseline b.json --launcher "$failing" --pairs 2 "${benchmark[@]}"
expect_eq "$rc" 9 "gate: failing timing launches: exit code"
expect_contains "$err" "1 of 1 launches run failed (the sweep stopped at it; --keep-going runs the rest)" "gate"
expect_contains "$err" "their logs: gate-report.json.logs" "gate: the logs"
check && [ ! -e b.json ] || fail "gate: a baseline was recorded from failed launches"
run "$mpimon" validate --case p2p --np 2 --mode 1 --launcher "$failing"
expect_eq "$rc" 1 "validate with a failing launcher: exit code"
expect_contains "$out" "1 of 1 runs could not run or be read (ERROR, counted as failing)" "validate"
cd "$work" || exit 1

finish "bad options"
