#!/usr/bin/env bash
# The checks of docs/architecture.md's claims find what they are for, on crafted trees and pages
# (the real tree is checked by docs.architecture_json, docs.architecture_formats and docs.source_links):
# - json: a file outside the json folder that includes nlohmann-json, a file that prints JSON
#   with printf or streams it with <<, and a file the page names as an exception that no longer
#   writes JSON by hand; a help text that shows a JSON line is not writing one;
# - formats: a writer defined outside its row's owner, a name defined nowhere (a declaration is no
#   definition), a row whose writer and reader stand under two folders without "two places";
# - arrows: an arrow from layer 0 to layer 1 runs back up, MPI code reaching the harness through
#   another target, an arrow within a layer is allowed;
# - the sources' citations of docs/: a missing page, a missing anchor, none inside a string.
# Usage: architecture_checks_test.sh REPO
set -u
repo=$1
source "$repo/cli/tests/test_lib.sh"
python=/usr/bin/python3
[ -x "$python" ] || skip_test "no python3"

# ---- json ----
mkdir -p j/docs j/analysis/base/json j/lib/src j/bench j/tool
cat >j/docs/architecture.md <<'EOF'
## The libraries and what they depend on

```
layer 0  analysis/base/json         mpimon::json: the project's JSON
```

## Formats

JSON through it only, except the ones named here, written by hand, not through it:
`bench/probe.cpp` (printf) and `tool/gone.cpp`.
EOF
printf '#include <nlohmann/json.hpp>\n' >j/analysis/base/json/json.hpp
printf '#include <nlohmann/json.hpp>\nint f();\n' >j/lib/src/own.cpp
printf 'void p() { printf("{\\"rate\\": %%g}\\n", 1.0); }\n' >j/bench/probe.cpp
printf 'void s(std::ostream& o) { o << "{\\"name\\": " << 1 << "}"; }\n' >j/lib/src/stream.cpp
printf 'const char* help = "prints {\\"seconds\\":...,\\"passed\\":true}";\nint gone();\n' >j/tool/gone.cpp
run "$python" "$repo/ci/check_architecture.py" json "$work/j"
expect_eq "$rc" 1 "json: exit code"
expect_contains "$out" "lib/src/own.cpp: includes nlohmann-json itself (only analysis/base/json/ may" "json: own include"
expect_contains "$out" "lib/src/stream.cpp: writes JSON by hand" "json: streamed by hand"
expect_contains "$out" "tool/gone.cpp: the page says it writes JSON by hand; it does not" "json: stale exception"
expect_eq "$(grep -c . <<<"$out")" 3 "json: nothing else (the exception, the json folder, the help text): $out"

# ---- formats ----
mkdir -p f/docs f/lib/src f/other/src f/lib/include
cat >f/docs/architecture.md <<'EOF'
## Formats

| format | owner | writer | reader |
|---|---|---|---|
| good | `lib` | `write_good` | `read_good`, `Good` |
| moved | `lib` | `write_moved` | `read_moved` |
| declared | `lib` | `write_declared` | people |
| split | `lib`, `other` | `write_split` | `read_split` |
| admitted | `lib`, `other` | `write_admitted` | `read_admitted` (two places) |
EOF
cat >f/lib/src/good.cpp <<'EOF'
void write_good(std::ostream& out) {
}
std::vector<int> read_good(const std::string& path,
                           int n) {
  return {};
}
void write_moved(int);
void write_declared(int);
void write_split() {}
void write_admitted() {}
EOF
printf 'class Good {\n public:\n  int x;\n};\n' >f/lib/include/good.hpp
printf 'void write_moved(int) {}\nvoid read_moved() {}\nvoid read_split() {}\nvoid read_admitted() {}\n' >f/other/src/m.cpp
run "$python" "$repo/ci/check_architecture.py" formats "$work/f"
expect_eq "$rc" 1 "formats: exit code"
expect_contains "$out" "moved: writer write_moved is defined in other/src/m.cpp, not under lib/" "formats: writer elsewhere"
expect_contains "$out" "moved: reader read_moved is defined in other/src/m.cpp, not under lib/" "formats: reader elsewhere"
expect_contains "$out" "declared: writer write_declared is defined nowhere" "formats: a declaration only"
expect_contains "$out" "split: writer and reader under lib and other" "formats: two places unsaid"
expect_eq "$(grep -c . <<<"$out")" 4 "formats: nothing else (good, admitted): $out"

# ---- arrows and layers ----
cat >layers.md <<'EOF'
## The libraries and what they depend on

```
layer 1  analysis/matrices          mpimon::matrices: the matrices
layer 0  analysis/base              mpimon::base: errors,
                                    mpimon::ignored: a continuation line
         analysis/base/json         mpimon::json: JSON
MPI      mpi/                       mpimon::mpi: MPI
layer 3  harness/                   mpimon::harness: launching
```

## Every arrow

| target | links |
|---|---|
| `mpimon::base` | `mpimon::matrices` |
| `mpimon::json` | `mpimon::base` |
| `mpimon::matrices` | `mpimon::harness` |
| `mpimon::mpi` | `mpimon::matrices` |
| `mpimon::harness` | none |
EOF
node() { printf '"node%s" [ label = "mpimon_%s\n(mpimon::%s)", shape = octagon ];\n' "$1" "$2" "$2"; }
{
  echo 'digraph "mpimon" {'
  node 0 base; node 1 matrices; node 2 json; node 3 mpi; node 4 harness
  printf '"node0" -> "node1"\n"node2" -> "node0"\n"node3" -> "node1"\n"node1" -> "node4"\n}\n'
} >up.dot
run "$python" "$repo/ci/check_arrows.py" layers.md --dot up.dot
expect_eq "$rc" 1 "layers: exit code"
expect_contains "$out" "mpimon::base -> mpimon::matrices: runs back up (layer 0 to layer 1)" "layers: up"
expect_contains "$out" "mpimon::matrices -> mpimon::harness: runs back up (layer 1 to layer 3)" "layers: up to harness"
expect_contains "$out" "mpimon::mpi: MPI code that reaches mpimon::harness" "layers: MPI to the harness, not directly"
expect_eq "$(grep -c . <<<"$out")" 3 "layers: nothing else (json over base, a continuation line): $out"

# ---- the sources' citations of docs/ ----
mkdir -p s/docs s/src
printf '# Title\n\n## A part\n' >s/docs/page.md
cat >s/src/a.cpp <<'EOF'
// docs/page.md and docs/page.md#a-part hold,
// docs/missing.md does not, nor docs/page.md#no-part
/* a block: docs/page.md#a-part
   docs/block.md */
const char* s = "docs/string.md";  // docs/page.md
EOF
printf '# docs/hash.md\necho "#1 docs/quoted.md"\n' >s/src/run.sh
run "$python" "$repo/ci/check_doc_links.py" --sources "$work/s"
expect_eq "$rc" 1 "sources: exit code"
for bad in "src/a.cpp:2: docs/missing.md" "src/a.cpp:2: docs/page.md#no-part" "src/a.cpp:4: docs/block.md" \
  "src/run.sh:1: docs/hash.md"; do
  expect_contains "$out" "$bad" "sources: $bad"
done
expect_contains "$out" "8 citations of docs/ in the sources' comments checked, 4 broken" "sources: the count"
finish architecture_checks
