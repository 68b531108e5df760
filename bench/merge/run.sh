#!/usr/bin/env bash
# Merge benchmark (it reports; it never fails on a missed target). On synthetic Open MPI dumps it
# times, side by side in one run:
#   (a) cat FILES > /dev/null                        the cost of just reading the per-rank files
#   (b) cat FILES > all.prof && profile2mat all.prof  Open MPI's own tool, the one mpimon replaces
#   (c) mpimon-merge -o out.h5 --quiet FILES
# each as the best wall-clock time of 3 runs on a warm page cache, with the least CPU time (user +
# system) and the peak RSS, and writes OUT.md (provenance, commands, table, targets) and OUT.csv.
# The 1-minute load average is recorded for each dump: timings taken under load are not comparable.
#
# Usage: bench/merge/run.sh [--quick] [--build DIR] [--out PREFIX]
#   --quick   only the 256-rank dense dump, for smoke use (default PREFIX: $TMPDIR/merge-performance-quick)
#   --build   a Release build directory of mpimon (default: build/ in the repository)
#   --out     report prefix (default: results/merge-performance in the repository)
# Dumps go to a scratch directory under $TMPDIR (or /tmp), removed at exit; nothing else is written.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
quick=0
build=$repo/build
out=
source "$repo/bench/common/options.sh"
bench_options=("--quick = quick=1" "--build build a directory" "--out out a prefix")
parse_options "$@"
tmp=${TMPDIR:-/tmp}
[ -n "$out" ] || { [ $quick = 1 ] && out=$tmp/merge-performance-quick || out=$repo/results/merge-performance; }
out=$(realpath -m "$out")
build=$(realpath -m "$build")

die() { echo "run.sh: $*" >&2; exit 1; }
[ -x /usr/bin/time ] || die "/usr/bin/time is missing: install the Debian package 'time' (apt-get install time) or run ci/install-deps.sh"
merge=$build/cli/mpimon-merge
mpimon=$build/cli/mpimon
synth=$build/bench/mpimon-synth-dumps
for exe in "$merge" "$mpimon" "$synth"; do
  [ -x "$exe" ] || die "$exe is missing; build it first:
  cmake -S $repo -B $build -DCMAKE_BUILD_TYPE=Release && cmake --build $build -j2 --target mpimon-merge mpimon mpimon-synth-dumps"
done
build_type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
[ "$build_type" = Release ] || echo "run.sh: warning: $build is a '${build_type:-unknown}' build; timings are meant for Release" >&2
profile2mat=$(command -v profile2mat || true)
[ -n "$profile2mat" ] || echo "run.sh: warning: profile2mat not found (Debian package openmpi-bin): column (b) is skipped" >&2

load_before=$(cut -d' ' -f1 /proc/loadavg)  # other work on the machine skews timings: recorded below
scratch=$(mktemp -d "$tmp/mpimon-merge-bench.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

# name pattern ranks: Open MPI's mode 2 (pml_monitoring_enable=2), so E, I and C lines all occur.
dumps=("dense256 dense 256")
[ $quick = 1 ] || dumps+=("dense1024 dense 1024" "stencil16384 stencil 16384")
seed=1

# measure DIR SETUP CMD: runs SETUP, then CMD, both with bash in DIR, three times. Sets $best (least
# wall seconds, taken with bash's microsecond clock: /usr/bin/time's %e has 10 ms steps), $cpu (least
# user + system seconds of all processes of CMD, from /usr/bin/time) and $rss (largest peak RSS from
# /usr/bin/time, KiB). On a failure of CMD returns 1, its output in $scratch/log.
measure() {
  local dir=$1 setup=$2 cmd=$3 t m c
  best='' cpu='' rss=0
  for _ in 1 2 3; do
    (cd "$dir" && bash -c "$setup")
    (cd "$dir" && /usr/bin/time -f '%M %U %S' -o "$scratch/rss" \
      bash -c "s=\$EPOCHREALTIME; $cmd || exit; echo \"\$s \$EPOCHREALTIME\" > '$scratch/wall'") >"$scratch/log" 2>&1 ||
      return 1
    t=$(awk '{ printf "%.3f", $2 - $1 }' "$scratch/wall")
    read -r m c < <(tail -1 "$scratch/rss" | awk '{ printf "%d %.2f\n", $1, $2 + $3 }')
    best=$(awk -v a="$best" -v b="$t" 'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }')
    cpu=$(awk -v a="$cpu" -v b="$c" 'BEGIN { print (a == "" || b + 0 < a + 0) ? b : a }')
    [ "$m" -gt "$rss" ] && rss=$m
  done
  return 0
}

mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b + 0 == 0) print ""; else printf "%.2f", a / b }'; }

# The fixed memory cost of the process (libraries, HDF5's caches), on a tiny dump: the part of the
# peak RSS that does not grow with the dump.
"$synth" --pattern dense --ranks 8 --mode 2 --seed $seed -o "$scratch/tiny/tiny"
measure "$scratch/tiny" ":" "$merge -o out.h5 --quiet tiny.*.prof" || die "mpimon-merge failed: $(cat "$scratch/log")"
baseline=$(mib $((rss * 1024)))

csv=$scratch/results.csv
echo "dump,pattern,ranks,files,input_MiB,cat_s,cat_profile2mat_s,mpimon_merge_s,speedup_vs_cat_profile2mat,ratio_to_cat,merge_peak_rss_MiB,profile2mat_peak_rss_MiB,dense_all_classes_MiB,dense_nonempty_classes_MiB,nonzeros,layout,output_MiB,status,cat_cpu_s,mpimon_merge_cpu_s,load_1min" >"$csv"
notes=()

for spec in "${dumps[@]}"; do
  read -r name pattern ranks <<<"$spec"
  dir=$scratch/$name
  echo "run.sh: generating $name" >&2
  "$synth" --pattern "$pattern" --ranks "$ranks" --mode 2 --seed $seed -o "$dir/$name"
  files=$(find "$dir" -name "$name.*.prof" | wc -l)
  input=$(find "$dir" -name "$name.*.prof" -printf '%s\n' | awk '{ s += $1 } END { print s }')
  # Every command gets the files through a bash glob: one argument list, far below ARG_MAX
  # (16384 names of ~25 bytes are ~0.5 MB; Linux allows 2 MB by default).
  glob="$name.*.prof"
  cat "$dir"/$glob >/dev/null  # warm the page cache: all three commands then read from memory

  load=$(cut -d' ' -f1 /proc/loadavg)
  echo "run.sh: $name: cat (load average $load)" >&2
  measure "$dir" ":" "cat $glob > /dev/null" || die "cat failed: $(cat "$scratch/log")"
  cat_s=$best cat_cpu=$cpu

  p2m_s='' p2m_rss=''
  if [ "$pattern" = stencil ]; then
    # Its cost is quadratic in N whatever the sparsity: 3 Perl arrays of N x N scalars per pass
    # and 3 dense text matrices written per class with traffic. Extrapolate from the largest run.
    guess=$(tail -n +2 "$csv" | awk -F, -v n="$ranks" '$7 != "" { k = (n / $3) ^ 2; t = $7 * k; m = $12 * k }
      END { if (t) printf " (N^2 extrapolation from %s: about %.0f min and %.0f GiB of RAM)", $1, t / 60, m / 1024 }')
    notes+=("$name: profile2mat skipped: it fills three Perl arrays of $ranks x $ranks scalars per pass and writes three dense $ranks x $ranks text matrices per class with traffic, whatever the sparsity$guess.")
  elif [ -n "$profile2mat" ]; then
    echo "run.sh: $name: cat + profile2mat" >&2
    measure "$dir" "rm -f all.prof all_*.mat" "cat $glob > all.prof && profile2mat all.prof > /dev/null" ||
      die "profile2mat failed: $(cat "$scratch/log")"
    p2m_s=$best p2m_rss=$(mib $((rss * 1024)))
    rm -f "$dir"/all.prof "$dir"/all_*.mat
  fi

  echo "run.sh: $name: mpimon-merge" >&2
  status=ok merge_s='' merge_cpu='' merge_rss='' layout='' nonempty=0 nonzeros='' output=''
  # out.h5 is removed first so that every run writes a new file (replacing one makes ext4 flush).
  if measure "$dir" "rm -f out.h5" "$merge -o out.h5 --quiet $glob"; then
    merge_s=$best merge_cpu=$cpu merge_rss=$(mib $((rss * 1024)))
    output=$(mib "$(stat -c %s "$dir/out.h5")")
    # The classes with any line and the non-zeros (directed pairs) of all classes, from `mpimon show`.
    "$mpimon" show "$dir/out.h5" >"$scratch/show"
    layout=$(awk '$1 == "layout:" { print $2 }' "$scratch/show")
    read -r nonempty nonzeros < <(awk '$1 ~ /^(external|internal|osc_sent|osc_recv|coll)$/ {
      if ($4 > 0) n++; z += $4 } END { print n + 0, z + 0 }' "$scratch/show")
  else
    status="failed: $(grep -v '^Command exited' "$scratch/log" | tail -1)"
    notes+=("$name: mpimon-merge failed: \`$(grep -v '^Command exited' "$scratch/log" | tail -1)\`")
  fi
  rm -f "$dir/out.h5"

  dense_all=$(mib $((5 * 2 * ranks * ranks * 8)))
  dense_nonempty=
  [ "$status" != ok ] || dense_nonempty=$(mib $((nonempty * 2 * ranks * ranks * 8)))
  echo "$name,$pattern,$ranks,$files,$(mib "$input"),$cat_s,$p2m_s,$merge_s,$(ratio "$p2m_s" "$merge_s"),$(ratio "$merge_s" "$cat_s"),$merge_rss,$p2m_rss,$dense_all,$dense_nonempty,$nonzeros,$layout,$output,${status//,/;},$cat_cpu,$merge_cpu,$load" >>"$csv"
  rm -rf "$dir"  # the largest dump is 1.4 GB: free the space before generating the next
done

# ---- report ----
mkdir -p "$(dirname "$out")"
cp "$csv" "$out.csv"
marker='<!-- Notes below this line are written by hand; run.sh keeps them when it rewrites the file. -->'
kept=
[ -f "$out.md" ] && kept=$(awk -v m="$marker" 'found || index($0, m) == 1 { found = 1; print }' "$out.md")
hdf5=$(pkg-config --modversion hdf5 2>/dev/null || h5dump --version 2>/dev/null | awk '{ print $NF }' || true)
hdf5_lib=$(ldd "$merge" | awk '/libhdf5/ { print $3; exit }')
{
  echo "# mpimon-merge performance"
  echo
  echo "Written by \`bench/merge/run.sh$([ $quick = 1 ] && echo ' --quick')\`; the same figures are in \`$(basename "$out").csv\`."
  echo
  echo "## Provenance"
  echo
  echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "- CPU: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), nproc $(nproc), $(awk '/MemTotal/ { printf "%.0f GiB RAM", $2 / 1048576 }' /proc/meminfo)"
  echo "- kernel: $(uname -sr); scratch file system: $(df -T "$tmp" | awk 'NR == 2 { print $2 }')"
  echo "- load average (1 min) before / after the run: $load_before / $(cut -d' ' -f1 /proc/loadavg)"
  echo "- mpimon-merge: $("$mpimon" --version | head -1) ($build_type build)"
  echo "- Open MPI: $(mpirun --version 2>/dev/null | head -1 || echo 'not installed')"
  echo "- profile2mat: ${profile2mat:-not installed}, $(perl -e 'print "perl $^V"')"
  echo "- HDF5: ${hdf5:-unknown} ($hdf5_lib)"
  echo
  echo "## Method"
  echo
  echo "Dumps: \`mpimon-synth-dumps --pattern PATTERN --ranks N --mode 2 --seed $seed -o DIR/NAME\` (one file per rank,"
  echo "E lines with histograms, I and C lines for the collectives' traffic, D blocks of MPI_COMM_WORLD and"
  echo "MPI_COMM_SELF). In DIR, on a warm page cache, each command is run 3 times as \`/usr/bin/time -f '%M %U %S' bash -c CMD\`;"
  echo "the table gives the least wall time (bash's \$EPOCHREALTIME around CMD), the least CPU time (user + system,"
  echo "%U + %S, all threads and processes of CMD) and the largest peak RSS (%M). \"load\" is the 1-minute load average"
  echo "just before the dump's first command: with other work on the machine (load above nproc), wall times grow and"
  echo "CPU times grow less; compare runs at similar load only. mpimon-merge reads with its default \`--threads\`"
  echo "(one thread per core, at most 4) and writes on one more."
  echo
  echo '```'
  echo "(a) cat NAME.*.prof > /dev/null"
  echo "(b) cat NAME.*.prof > all.prof && profile2mat all.prof > /dev/null"
  echo "(c) mpimon-merge -o out.h5 --quiet NAME.*.prof        # out.h5 removed before each run"
  echo '```'
  echo
  echo "Dense matrices = what a dense N x N uint64 layout takes: 5 classes x 2 metrics (count, bytes) x N^2 x 8 B,"
  echo "and the same for the classes that have traffic only (mpimon-merge allocates no storage for empty ones)."
  echo "Speed-up = (b) / (c); ratio to cat = (c) / (a). MiB = 2^20 bytes. The fixed part of mpimon-merge's peak RSS"
  echo "(shared libraries, HDF5's caches), measured on an 8-rank dump, is $baseline MiB."
  echo
  echo "## Results"
  echo
  echo "| dump | ranks | files | input MiB | load | cat s | cat+profile2mat s | mpimon-merge s | speed-up vs cat+profile2mat | ratio to cat | cat CPU s | mpimon-merge CPU s | mpimon-merge peak RSS MiB | profile2mat peak RSS MiB | dense matrices MiB (all 5 classes) | dense matrices MiB (non-empty classes) | non-zeros | layout | output MiB |"
  echo "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|--:|"
  tail -n +2 "$csv" | while IFS=, read -r d _ n f in c p m sp rc rss prss da dn nz lay o st cc mc ld; do
    [ "$st" = ok ] || m="FAILED"
    echo "| $d | $n | $f | $in | $ld | $c | ${p:-skipped} | $m | ${sp:--} | ${rc:--} | $cc | ${mc:--} | ${rss:--} | ${prss:--} | $da | ${dn:--} | ${nz:--} | ${lay:--} | ${o:--} |"
  done
  echo
  for note in "${notes[@]}"; do echo "- $note"; done
  echo
  echo "## Targets"
  echo
  tail -n +2 "$csv" | awk -F, -v cores="$(nproc)" '$21 + 0 > cores { busy = 1 } END {
    if (busy) printf "**The load average was above the %d cores during these measurements: other processes shared the CPUs, so the wall times and the verdicts below are not evidence either way. Rerun on a quiet machine.**\n\n", cores }'
  tail -n +2 "$csv" | awk -F, -v base="$baseline" '
    function verdict(ok) { return ok ? "**met**" : "**not met**" }
    $18 != "ok" { printf "- %s: mpimon-merge failed, no target can be checked\n", $1; next }
    $1 == "dense1024" { printf "- at least 25x faster than cat+profile2mat on dense1024: %.1fx, %s\n", $9, verdict($9 >= 25) }
    { printf "- %s: within 3x of cat: %.2fx (%.3f s vs %.3f s), %s\n", $1, $10, $8, $6, verdict($10 <= 3) }
    $16 == "dense" { printf "- %s: peak RSS <= 1.5x the dense matrices written: %.1f MiB = %.2fx all 5 classes (%s), %.2fx the %s non-empty classes (%s)\n",
                     $1, $11, $11 / $13, verdict($11 <= 1.5 * $13), $11 / $14, $14 / ($13 / 5), verdict($11 <= 1.5 * $14)
                   printf "  (without the fixed %.1f MiB: %.2fx and %.2fx)\n", base, ($11 - base) / $13, ($11 - base) / $14 }
    $16 == "csr" { printf "- %s: memory proportional to the non-zeros: peak RSS %.1f MiB for %d non-zeros (%.0f B per non-zero); one dense N x N uint64 matrix alone would be %.0f MiB: %s\n",
                   $1, $11, $15, $11 * 1048576 / $15, $13 / 10, verdict($11 < $13 / 10) }'
  if [ -n "$kept" ]; then echo; echo "$kept"; else echo; echo "$marker"; fi
} >"$out.md"
echo "run.sh: wrote $out.md and $out.csv" >&2
