#!/usr/bin/env bash
# Installs, from Debian's archive, every package mpimon needs to build and test.
# Only missing packages are installed; a machine that has them all is left untouched.
# Usage: ci/install-deps.sh        (as root, or with sudo available)
#        ci/install-deps.sh --list (print the package names, one a line; ci/ompi5.sh uses it)
set -euo pipefail

packages=(
  cmake g++ make pkg-config
  openmpi-bin libopenmpi-dev          # Open MPI with the monitoring components, profile2mat
  libhdf5-dev hdf5-tools             # HDF5 C library, h5dump, h5diff
  libhdf5-openmpi-dev                # parallel HDF5 (openmpi flavour, beside the serial one): mpimon-merge under mpirun
  scotch metis libmetis-dev          # peer tools that read mpimon export scotch / metis in the tests
  libboost-program-options-dev libboost-math-dev
  libbenchmark-dev libgtest-dev googletest
  nlohmann-json3-dev                 # JSON, written and read by the libraries that need it (analysis/base/json)
  clang libclang-rt-14-dev           # libFuzzer and sanitizer runtimes
  clang-format                       # ci/format.sh --check (a stage of ci/test.sh)
  python3-matplotlib python3-h5py python3-numpy  # mpimon plot (analysis/scripts/*.py)
  time                               # peak memory in bench/merge/run.sh
  valgrind                           # callgrind: mpimon gate's instruction counts (callgrind.h)
  gdb                                # the fuzz triage's stacks of libhdf5 alone (ci/fuzz_triage.sh)
  hpcc                               # a real third-party MPI application for mpimon bench app
  chromium                           # headless browser: the report tests open REPORT.html (docs/report.md)
  libscotch-dev scotch               # Scotch: mpimon place --method scotch (library), scotch_gmap/gmtst cross-checks
  hwloc                              # lstopo/hwloc-calc: synthetic node topologies for the rankfile test
  dpkg-dev file                      # cpack -G DEB (ci/debian-package.sh): dpkg-shlibdeps, and file, with which CPack finds the ELF files
  iproute2 util-linux libcap2-bin    # ip, tc, unshare, setpriv, capsh: mpimon cluster (docs/cluster.md) and its tests
  slurmctld slurmd slurm-client munge  # mpimon cluster up --slurm: Slurm on the emulated nodes, and its tests
  python3-scipy                      # Delaunay meshes of results/placement/instances.py (scale.sh, kahip.sh)
  debootstrap                        # the Debian roots of ci/ompi5.sh and ci/debian-package.sh (ci/test.sh prepares both at once)
  libsimgrid-dev                     # SimGrid's SMPI (smpicxx, smpirun, libsimgrid): mpimon simulate (docs/simulate.md) and its tests
  gromacs lammps                     # real applications that ask for reorder=1 (gmx_mpi, lmp): docs/reorder.md and its tests
)
if [ "${1:-}" = "--list" ]; then
  printf '%s\n' "${packages[@]}"
  exit 0
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

# The charting library mpimon report inlines (plotly.js, docs/report.md): from npm, at the version
# and checksum of the committed package-lock.json, into analysis/report/node_modules.
sudo_cmd=()
install_report_library() {
  local dir
  dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/analysis/report"
  if [ -f "$dir/node_modules/plotly.js-dist-min/plotly.min.js" ]; then return; fi
  # Debian's npm, unless the machine already has one (a Node.js from elsewhere conflicts with it).
  command -v npm >/dev/null || "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends npm >/dev/null
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error)
  echo "install-deps: plotly.js installed into analysis/report/node_modules"
}

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  install_report_library
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root (or sudo) to install: ${missing[*]}" >&2; exit 1; }
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
install_report_library
