#!/usr/bin/env bash
# End-to-end test of `mpimon stats paired`, run as a user would run it.
# Usage: stats_test.sh MPIMON
# Expected values are R's published outputs for its documented examples (?t.test, ?wilcox.test),
# rounded to the digits mpimon prints, or derived by hand in the comments; never mpimon's output.
set -u
mpimon=$1
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"
# json_field JSON KEY: the number after "KEY": (first occurrence)
json_field() { grep -o "\"$2\": [-0-9.e+]*" <<<"$1" | head -1 | sed 's/.*: //'; }

# R's sleep data: extra hours of sleep of patients 1..10 under drug 1 and drug 2.
cat >sleep.csv <<'EOF'
# R's sleep data (Student 1908), paired by patient
drug1,drug2
0.7,1.9
-1.6,0.8
-0.2,1.1
-1.2,0.1
-0.1,-0.1
3.4,4.4
3.7,5.5
0.8,1.6
0.0,4.6
2.0,3.4
EOF

# --- help and usage ---
run "$mpimon" --help
expect_contains "$out" "  stats" "mpimon --help lists stats"
run "$mpimon" stats --help
expect_eq "$rc" 0 "mpimon stats --help exit code"
expect_contains "$out" "paired" "mpimon stats --help"
run "$mpimon" stats paired --help
expect_eq "$rc" 0 "mpimon stats paired --help exit code"
expect_contains "$out" "Usage: mpimon stats paired FILE.csv" "mpimon stats paired --help"
run "$mpimon" stats
expect_eq "$rc" 2 "mpimon stats without arguments"
run "$mpimon" stats anova x.csv
expect_eq "$rc" 2 "unknown analysis"
expect_contains "$err" "mpimon stats: error: unknown sub-command 'anova'" "unknown analysis message"
run "$mpimon" stats paired
expect_eq "$rc" 2 "no file"
expect_contains "$err" "mpimon stats paired: error: missing input argument: give the file to read" "no file message"
run "$mpimon" stats paired sleep.csv --confidence 1.5
expect_eq "$rc" 2 "bad --confidence"
expect_contains "$err" "mpimon stats paired: error: --confidence must be between 0 and 1" "bad --confidence message"
run "$mpimon" stats paired sleep.csv --processes 0
expect_eq "$rc" 2 "bad --processes"
expect_contains "$err" "mpimon stats paired: error: --processes must be at least 1" "bad --processes message"

# --- the sleep data, off = drug 1, on = drug 2 ---
# R: t.test(drug2, drug1, paired = TRUE): t = 4.0621, df = 9, p-value = 0.002833,
# 95 percent CI 0.7001142 2.4598858, mean difference 1.58 (?t.test prints the drug1 - drug2
# side: t = -4.0621, CI -2.4598858 -0.7001142). wilcox.test(drug2, drug1, paired = TRUE):
# V = 45 (all 9 non-zero differences positive: 1 + ... + 9), p-value = 0.009091.
run "$mpimon" stats paired sleep.csv --unit h --processes 4
expect_eq "$rc" 0 "sleep exit code ($err)"
expect_contains "$out" "pairs           10 (off = 'drug1', on = 'drug2')" "header names"
expect_contains "$out" "difference      +1.58 h, 95 % CI 0.700114..2.45989 h" "difference and CI"
expect_contains "$out" "t = 4.062, df = 9, p = 0.002833" "t-test line"
expect_contains "$out" "V = 45, p = 0.009091 (normal approximation, 1 zero difference dropped, ties)" "Wilcoxon line"
# Per process: 1.58 / 4 = 0.395, CI bounds / 4 = 0.175029, 0.614971.
expect_contains "$out" "+0.395 h per process (difference / 4), 95 % CI 0.175029..0.614971 h" "per process"
# Relative: mean drug1 = 7.5 / 10 = 0.75; 1.58 / 0.75 = 210.7 %, CI 0.7001142 / 0.75 = 93.35 %,
# 2.4598858 / 0.75 = 328.0 %.
expect_contains "$out" "+210.7 % of mean off, 95 % CI 93.35..328 %" "relative"
expect_contains "$out" "verdict: significant at 5 %: on is slower by 1.58 h (95 % CI 0.700114..2.45989 h)" "verdict"
if check && grep -qi nan <<<"$out"; then fail "NaN printed: $out"; fi

# Swapped columns (whitespace separated, no header): drug 2 is now off, so on is faster.
awk -F, 'NR > 2 { print $2, $1 }' sleep.csv >swapped.txt
run "$mpimon" stats paired swapped.txt --unit h
expect_contains "$out" "t = -4.062, df = 9, p = 0.002833" "swapped t-test"
expect_contains "$out" "V = 0, p = 0.009091" "swapped Wilcoxon"
expect_contains "$out" "verdict: significant at 5 %: on is faster by 1.58 h (95 % CI 0.700114..2.45989 h)" "swapped verdict"

# --- JSON, checked against R's values at their printed precision ---
run "$mpimon" stats paired sleep.csv --json
expect_eq "$rc" 0 "json exit code"
expect_near "$(json_field "$out" t)" 4.0621 5e-5 "json t"
expect_near "$(json_field "$out" df)" 9 0 "json df"
expect_near "$(json_field "$out" p_value)" 0.002833 5e-7 "json p"
expect_near "$(grep -o '"ci": \[[^]]*\]' <<<"$out" | head -1 | sed 's/.*\[\([^,]*\),.*/\1/')" 0.7001142 5e-8 "json CI low"
expect_near "$(grep -o '"ci": \[[^]]*\]' <<<"$out" | head -1 | sed 's/.*, \([^]]*\)\]/\1/')" 2.4598858 5e-8 "json CI high"
expect_near "$(json_field "$out" v)" 45 0 "json V"
expect_contains "$out" '"significant": true' "json significant"

# --- R's ?wilcox.test depression data, off = second visit (y), on = first visit (x) ---
# t.test(x, y, paired = TRUE): t = 3.0354, df = 8, p-value = 0.01618; wilcox.test exact V = 40,
# one-sided p 0.01953 = 10/512, so two-sided 20/512 = 0.0390625, printed 0.03906.
paste -d' ' <(printf '%s\n' 0.878 0.647 0.598 2.05 1.06 1.29 1.06 3.14 1.29) \
  <(printf '%s\n' 1.83 0.50 1.62 2.48 1.68 1.88 1.55 3.06 1.30) >depression.txt
run "$mpimon" stats paired depression.txt --unit ""
expect_contains "$out" "t = 3.035, df = 8, p = 0.01618" "depression t-test"
expect_contains "$out" "difference      +0.431889, 95 % CI 0.103779..0.759999" "depression CI"
expect_contains "$out" "V = 40, p = 0.03906 (exact)" "depression Wilcoxon"
# At 99 % the same p = 0.01618 is not significant.
run "$mpimon" stats paired depression.txt --confidence 0.99
expect_contains "$out" "verdict: not significant at 1 % (p = 0.01618)" "99 % verdict"

# --- the Wilcoxon note ---
# d = 5 5 5 5 5 5 -1 -1 -1 -1: t = 2.6536, df = 9, p = 0.02632 (closed-form Student CDF,
# Abramowitz & Stegun 26.7.3). Wilcoxon: the -1 share ranks 1-4 (2.5), the 5 ranks 5-10 (7.5),
# V = 45, σ² = 10·11·21/24 - (4³-4 + 6³-6)/48 = 90.625, z = (45 - 27.5 - 0.5) / √90.625 = 1.7858,
# p = 0.07414: the two tests disagree at 5 %.
printf '0 5\n0 5\n0 5\n0 5\n0 5\n0 5\n2 1\n2 1\n2 1\n2 1\n' >skewed.txt
run "$mpimon" stats paired skewed.txt
expect_contains "$out" "t = 2.654, df = 9, p = 0.02632" "skewed t-test"
expect_contains "$out" "V = 45, p = 0.07414 (normal approximation, ties)" "skewed Wilcoxon"
expect_contains "$out" "note: the Wilcoxon test disagrees (p = 0.07414)" "disagreement note"
# 4 pairs, d = 10 11 9 12, all on slower: t = 10.5 / (1.290994 / 2) = 16.27, df = 3,
# p = 0.0005055 (A&S 26.7.3); Wilcoxon V = 10, exact p = 2/2⁴ = 0.125, the smallest possible.
printf '100 110\n101 112\n102 111\n103 115\n' >four.txt
run "$mpimon" stats paired four.txt
expect_contains "$out" "t = 16.27, df = 3, p = 0.0005055" "four pairs t-test"
expect_contains "$out" "V = 10, p = 0.125 (exact)" "four pairs Wilcoxon"
expect_contains "$out" "note: the Wilcoxon test cannot reach p < 5 % with 4 non-zero differences (all of one sign give p = 0.125)" "too few pairs note"

# --- degenerate input: what is defined is reported, never NaN ---
printf 'off on\n10 12\n' >one.csv
run "$mpimon" stats paired one.csv
expect_eq "$rc" 0 "one pair exit code"
expect_contains "$out" "verdict: no t-test: 1 pair: the t-test needs at least 2" "one pair verdict"
printf '1 2\n2 3\n3 4\n' >constant.csv
run "$mpimon" stats paired constant.csv --json
expect_contains "$out" '"t_test": null' "constant differences: no t-test"
expect_contains "$out" '"t_test_unavailable": "the differences are constant (sd 0): the t-test is undefined"' "constant reason"
if check && grep -qi nan <<<"$out"; then fail "NaN printed for constant differences: $out"; fi

# --- bad input: one line on stderr naming file:line, exit 1 ---
check_rejected() {  # check_rejected FILE EXPECTED_MESSAGE
  run "$mpimon" stats paired "$1"
  expect_eq "$rc" 1 "exit code for $1"
  expect_eq "$err" "mpimon stats paired: error: $2" "message for $1"
  expect_eq "$out" "" "no report for $1"
}
{ head -6 sleep.csv; echo "3.4,4.4,5.0"; tail -4 sleep.csv; } >three.csv
check_rejected three.csv "three.csv:7: expected 2 numbers, found 3"
printf 'off,on\n1,2\n3,fast\n' >word.csv
check_rejected word.csv "word.csv:3: 'fast' is not a number"
printf 'off,on\n# none yet\n\n' >empty.csv
check_rejected empty.csv "empty.csv: no pairs of numbers"
check_rejected missing.csv "missing.csv: cannot open: No such file or directory"

finish stats
