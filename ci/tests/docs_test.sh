#!/usr/bin/env bash
# A documentation page run as written (docs.quickstart, docs.cluster, docs.readme): its `sh`
# blocks in order, in one bash shell with `set -e` (a failing command fails the test), in a scratch
# directory, with the mpimon under test first on PATH. The `sh setup` blocks (installing, building)
# are what the build under test stands for: the scripts they name must exist (the test command runs
# the README's as written: ci/readme_setup.sh); an `sh install` block
# runs with the build under test as ./build, in a private mount namespace whose /opt is a tmpfs (it
# installs into /opt, which the machine never sees); `sh ompi5` blocks (the Debian 13 root) are
# only checked to be valid shell (cli.cluster_ompi5 runs their like). Pages that say `./app` (your
# MPI program) get the quickstart's myapp, built from the quickstart's own source, as ./app.
# A page that makes an emulated cluster runs with MPIMON_CLUSTER_NAME set to a name of its own,
# taken down whatever happens. What a page needs (root and namespaces for `mpimon cluster`, Slurm
# for --slurm) is decided before anything runs: a skip with the reason, a failure under CI=true.
# Usage: docs_test.sh SOURCE_DIR MPIMON_DIR BUILD_DIR PAGE
set -u
source_dir=$1 mpimon_dir=$2 build_dir=$3 page=$1/$4
work=$(mktemp -d)
cluster_name=docs$$
cleanup() {
  "$mpimon_dir/mpimon" cluster down --name "$cluster_name" >/dev/null 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
cannot_run() {
  [ "${CI:-}" == true ] && { echo "FAIL: $page cannot run here, and CI=true requires it: $1"; exit 1; }
  echo "SKIP: $1"
  exit 77
}

python3 "$source_dir/ci/tests/doc_blocks.py" "$page" . || exit 1

# --- Prerequisites, decided before anything is checked.
for tool in mpicc mpirun lstopo; do command -v "$tool" >/dev/null || cannot_run "$tool missing (ci/install-deps.sh installs it)"; done
if grep -q 'mpimon cluster up' run.sh; then
  for tool in ip tc unshare; do command -v "$tool" >/dev/null || cannot_run "$tool missing (ci/install-deps.sh installs it)"; done
  unshare --net --uts true 2>/dev/null || cannot_run "the page makes an emulated cluster: needs root (CAP_SYS_ADMIN)"
  ip netns add "mpimon-probe-$$" 2>/dev/null || cannot_run "ip netns add fails here (needs CAP_NET_ADMIN and /run/netns)"
  ip netns del "mpimon-probe-$$"
fi
if grep -q 'smpicc\|mpimon simulate' run.sh; then
  command -v smpicc >/dev/null || cannot_run "smpicc missing: the page simulates with SimGrid's SMPI (ci/install-deps.sh installs libsimgrid-dev)"
fi
if grep -q -- '--slurm' run.sh; then
  for tool in munged slurmctld slurmd srun; do
    command -v "$tool" >/dev/null || cannot_run "$tool missing: the page runs Slurm (ci/install-deps.sh installs it)"
  done
fi
if [ -s install.sh ] && ! unshare --mount true 2>/dev/null; then
  cannot_run "the page's install block needs a private /opt (unshare --mount: root)"
fi

# --- The setup blocks name scripts the repository has; every block is valid shell.
for script in $(grep -oE 'ci/[a-z0-9_-]+\.sh' setup.sh); do
  [ -x "$source_dir/$script" ] || fail "a setup block names $script, which the repository lacks"
done
for kind in run setup install ompi5; do bash -n "$kind.sh" || fail "the page's $kind blocks are not valid shell"; done

# --- ./app: the quickstart's program, from the quickstart's own source.
if grep -q '\./app\b' run.sh install.sh; then
  sed -n "/^cat >myapp.c <<'EOF'$/,/^EOF$/p" "$source_dir/docs/quickstart.md" | sed '1d;$d' >app.c
  mpicc -O2 -o app app.c || fail "the quickstart's myapp.c does not build as ./app"
fi

# --- The page's commands, as written, in one shell.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
start=$SECONDS
MPIMON_CLUSTER_NAME=$cluster_name PATH="$mpimon_dir:$PATH" bash -e -x run.sh >run.log 2>&1
rc=$?
if [ "$rc" -ne 0 ]; then
  fail "the page's commands stopped (exit $rc): $(tail -25 run.log)"
  # The evidence outlives the scratch directory: the failed launches' logs (mpimon's FILE.h5.logs)
  # printed, since CI keeps only the output, and everything kept beside the build.
  # A page may cd (the quickstart works in myapp/): the logs are looked for in every directory.
  launch_logs=$(find . -path '*.h5.logs/*.log' -type f | sort)
  for log in $launch_logs; do
    printf '%s\n' "--- the end of $log:" && tail -n 40 "$log"
  done
  kept=$build_dir/docs-failures/$(basename "$page" .md)
  rm -rf "$kept" && mkdir -p "$kept" && cp run.log "$kept"
  for log in $launch_logs; do mkdir -p "$kept/$(dirname "$log")" && cp "$log" "$kept/$log"; done
  echo "the page's run log and launch logs: $kept"
fi
echo "$(basename "$page"): the sh blocks took $((SECONDS - start)) s"
if [ -s install.sh ]; then
  ln -s "$build_dir" build
  unshare --mount bash -c 'mount -t tmpfs mpimon-docs-opt /opt && bash -e -x install.sh' >install.log 2>&1 ||
    fail "the page's install block stopped: $(tail -15 install.log)"
fi
# Whatever a page makes of a cluster, it takes down.
[ -z "$(ip netns list 2>/dev/null | grep "^mpimon[.]$cluster_name[.]")" ] || fail "the page left its cluster up"

# --- What the quickstart says each step leaves, read back with tools other than the command that wrote it.
if [ "$(basename "$page")" == quickstart.md ]; then
  for f in myapp/myapp myapp/myapp.h5 myapp/machine.xml myapp/myapp.html myapp/myapp.rankfile myapp/random.rankfile \
    myapp/placement.h5; do
    [ -s "$f" ] || fail "the page's commands did not leave $f"
  done
  grep -q "myapp: $(nproc) ranks, checksum 0" run.log || fail "the program's own line, run with the rankfile"
  grep -q "myapp-graph: $(nproc) ranks" run.log || fail "the program's own line, run with mpimon run --reorder"
  grep -q "^mpimon-reorder: MPI_Dist_graph_create_adjacent (declared graph): $(nproc) processes on 1 node" run.log ||
    fail "the library's line for the no-rankfile step"
  grep -qE "^mpimon-reorder: MPI_Dist_graph_create_adjacent \(declared graph\): 8 processes on 2 node\(s\).*between nodes [1-9][0-9]* -> 0; reordered" run.log ||
    fail "on the emulated cluster, mpimon run --reorder puts every pair on one node"
  grep -qE '^rank 0=\S+ slot=' myapp/myapp.rankfile || fail "myapp.rankfile is not an Open MPI rankfile"
  grep -q "format" <(h5dump -a /format myapp/myapp.h5 2>/dev/null) || fail "myapp.h5 is not HDF5 with a format"
  grep -q 'bash ci/install-deps.sh' setup.sh || fail "the setup block's ci/install-deps.sh"
  grep -qF 'export PATH="$PWD/build/cli:$PATH"' setup.sh || fail "the setup block does not put build/cli on PATH"
fi
if [ "$failures" -ne 0 ]; then
  echo "$(basename "$page"): $failures failure(s)"
  exit 1
fi
echo "$(basename "$page"): ok: $(grep -c '^+ mpimon\|^+ mpirun\|^+ mpicc\|^+ lstopo\|^+ SLURM' run.log) commands ran as written"
