#!/usr/bin/env bash
# docs/quickstart.md, run as written: every ```sh block of the page, in order, in one bash shell
# with `set -e` (a failing command fails the test), in a scratch directory, with the mpimon under
# test first on PATH (what the page's `sh setup` block arranges with its export). The `sh setup`
# block (install, build) and the `sh cluster` block (your nodes) are not run: the first is the
# build under test, whose commands are checked to exist; the second needs a cluster.
# Usage: quickstart_test.sh SOURCE_DIR MPIMON_DIR
set -u
source_dir=$1 mpimon_dir=$2
page=$source_dir/docs/quickstart.md
# Prerequisites, decided before anything is checked.
for tool in mpicc mpirun lstopo python3; do
  command -v "$tool" >/dev/null || { echo "SKIP: $tool missing (ci/install-deps.sh installs it)"; exit 77; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# The page's blocks: "sh" (run), "sh setup", "sh cluster" (not run); no other shell block.
python3 - "$page" <<'PY' || exit 1
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
blocks = re.findall(r"^```([^\n]*)\n(.*?)^```$", text, re.M | re.S)
kinds = {"sh": "run.sh", "sh setup": "setup.sh", "sh cluster": "cluster.sh"}
out = {name: [] for name in kinds.values()}
for info, body in blocks:
    if info.strip() not in kinds:
        sys.exit(f"FAIL: {sys.argv[1]}: a block of kind '{info.strip()}': only sh, sh setup, sh cluster")
    out[kinds[info.strip()]].append(body)
if len(out["run.sh"]) < 6 or len(out["setup.sh"]) != 1:
    sys.exit(f"FAIL: {sys.argv[1]}: {len(out['run.sh'])} sh blocks and {len(out['setup.sh'])} setup blocks")
for name, bodies in out.items():
    open(name, "w", encoding="utf-8").write("\n".join(bodies))
print(f"{len(out['run.sh'])} sh blocks to run")
PY

# The setup block names what the repository has, and puts build/cli on PATH as the test does.
grep -q '^bash ci/install-deps.sh$' setup.sh && [ -x "$source_dir/ci/install-deps.sh" ] ||
  fail "the setup block's ci/install-deps.sh"
grep -qF 'export PATH="$PWD/build/cli:$PATH"' setup.sh || fail "the setup block does not put build/cli on PATH"
bash -n setup.sh && bash -n cluster.sh || fail "the setup or cluster block is not valid shell"

# The page's commands, as written, in one shell.
PATH="$mpimon_dir:$PATH" bash -e -x run.sh >run.log 2>&1
rc=$?
[ "$rc" -eq 0 ] || fail "the page's commands stopped (exit $rc): $(tail -15 run.log)"
# What the page says each step leaves, read back with tools other than the command that wrote it.
for f in myapp/myapp myapp/myapp.h5 myapp/machine.xml myapp/myapp.html myapp/myapp.rankfile myapp/random.rankfile \
  myapp/placement.h5; do
  [ -s "$f" ] || fail "the page's commands did not leave $f"
done
grep -q "myapp: $(nproc) ranks, checksum 0" run.log || fail "the program's own line, run with the rankfile"
grep -qE '^rank 0=\S+ slot=' myapp/myapp.rankfile || fail "myapp.rankfile is not an Open MPI rankfile"
grep -q "format" <(h5dump -a /format myapp/myapp.h5 2>/dev/null) || fail "myapp.h5 is not HDF5 with a format"
if [ "$failures" -ne 0 ]; then
  echo "quickstart: $failures failure(s)"
  exit 1
fi
echo "quickstart: ok: $(grep -c '^+ mpimon\|^+ mpirun\|^+ mpicc' run.log) commands of docs/quickstart.md ran as written"
