#!/usr/bin/env bash
# results/readme_figures.py: every figure the results READMEs mark as generated equals what the
# folder's summarising script computes from the committed data; and, on a copy of the results, the
# check finds a figure typed over and a data file changed under its figure, and --write puts the
# computed figure back. Needs no build (python3 with numpy and h5py: the summarising scripts').
# Usage: readme_figures_test.sh REPO
set -u
repo=$1
source "$repo/cli/tests/test_lib.sh"
python=/usr/bin/python3

run "$python" "$repo/results/readme_figures.py" --check
expect_eq "$rc" 0 "the READMEs' figures equal the committed data's ($out $err)"
for folder in reorder placement/simulated placement/measured ompi-versions; do
  expect_contains "$out" "results/$folder/README.md:" "results/$folder is checked"
done

# A copy without the large files (no figure reads them).
mkdir -p copy/results/placement copy/analysis
cp -r "$repo/analysis/scripts" copy/analysis/
cp "$repo/results/readme_figures.py" copy/results/
for folder in reorder placement/simulated placement/measured; do
  cp -r "$repo/results/$folder" "copy/results/$folder"
  find "copy/results/$folder" \( -name '*.h5' -o -name '*.png' -o -name '*.svg' \) -delete
done
readme=copy/results/reorder/README.md
sed -i 's|<!-- figure decide-repeats -->[^<]*<!-- /figure -->|<!-- figure decide-repeats -->three<!-- /figure -->|' "$readme"
run "$python" copy/results/readme_figures.py --check reorder
expect_eq "$rc" 1 "a figure typed over fails the check"
expect_contains "$out" "figure decide-repeats shows [three], the data give [two]" "the check names the figure and both texts"

# One row more in the data than the README says.
tail -n 1 copy/results/placement/simulated/time-model.csv >>copy/results/placement/simulated/time-model.csv
run "$python" copy/results/readme_figures.py --check placement/simulated
expect_eq "$rc" 1 "a data file changed under its figure fails the check"
expect_contains "$out" "figure time-model-rows shows [342], the data give [343]" "the check names the changed figure"

# A marker no script computes, and --write.
printf '\nthe <!-- figure no-such-figure -->1<!-- /figure --> figure\n' >>"$readme"
run "$python" copy/results/readme_figures.py --check reorder
expect_contains "$out" "figure no-such-figure is computed by no script" "a marker nobody computes"
run "$python" copy/results/readme_figures.py --write reorder
expect_eq "$rc" 1 "--write reports what it cannot fill"
expect_eq "$(grep -c '<!-- figure decide-repeats -->two<!-- /figure -->' "$readme")" 1 "--write puts the computed figure back"
run "$python" copy/results/readme_figures.py --check no/such/folder
expect_eq "$rc" 1 "an unknown folder is refused"
expect_contains "$err" "no/such/folder" "the error names the folder"
finish readme_figures
