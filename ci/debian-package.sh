#!/usr/bin/env bash
# The Debian package (cmake/install.cmake: cpack -G DEB) built, checked, installed with apt-get into
# a clean Debian 12 root prepared with debootstrap, and the main job run there from the package only.
source "$(dirname "$0")/common.sh"

usage() {
  cat <<EOF
Usage: ci/debian-package.sh [test|build|prepare|status|mirror] [--help]

  test     (default) build the packages, then, in a fresh copy of a clean Debian 12 ("bookworm")
           minbase root: apt-get install ./mpimon_VERSION_amd64.deb (apt fetches every dependency
           from the archive), every program and library of the package checked with ldd, the
           main job run from the installed package (ci/main.sh --installed: /usr/bin/mpimon, the
           programs of /usr/libexec/mpimon; no source nor build tree in the root), and the
           installed mpimon-merge checked against the merge of mpimon record
  build    only 'cpack -G DEB' in the build directory and the checks of the packages' control
           fields and contents (dpkg-deb), into BUILD/debian-package/packages/
  prepare  only prepare the clean root
  status   what is prepared
  mirror   the Debian mirror it would use (from \$MPIMON_APT_DIR, default /etc/apt)

The clean root is kept in \$MPIMON_DEBIAN12_DIR (default /var/cache/mpimon/debian12); nothing is
ever installed in it after debootstrap: every run installs into a new copy of it (\$MPIMON_DEBIAN12_DIR-run,
removed at the start of the next run), so nothing of an earlier run can satisfy a dependency.
The .deb files apt downloads are kept in \$MPIMON_DEBIAN12_DIR-apt between runs. The mounts live
in a private mount namespace (unshare) and vanish with the script.

Environment:
  MPIMON_BUILD_DIR       the configured build directory to package (default: the clone's build/)
  MPIMON_DEBIAN12_DIR    where the clean Debian 12 root is kept
  MPIMON_DEBIAN_MIRROR   Debian mirror URL (default: the host's, from /etc/apt)
  MPIMON_SKIP_DEBIAN_PACKAGE=1   skip (exit code 3)
  MPIMON_MAIN_PAIRS, MPIMON_MAIN_NP                  the main job's sizes (default 1, 2)

Results in BUILD/debian-package/: packages/, cpack.log, install.log, main.log, main/ (the main
job's results, report.html among them).

Exit codes: 0 done, 1 a step failed, 2 usage,
            3 the root cannot be prepared here (the reason is printed and saved in
              BUILD/debian-package/skipped.txt), which ci/test.sh reports as skipped.
EOF
}

readonly name=debian-package suite=bookworm
readonly chroot_dir=${MPIMON_DEBIAN12_DIR:-/var/cache/mpimon/debian12}
readonly run_root=$chroot_dir-run apt_cache=$chroot_dir-apt
readonly out=$build/debian-package
# Where the root sees the packages (read-only), the main job's two scripts and its results.
readonly inner_packages=/mpimon/packages inner_job=/mpimon/job inner_out=/mpimon/out
source "$repo/ci/chroot.sh"

fail() {
  echo "$name: $*" >&2
  exit 1
}

# What mpimon runs besides its own libraries (found by dpkg-shlibdeps): mpirun and ompi_info, the
# plotting and report scripts' python3 with matplotlib, numpy and h5py.
readonly runtime_depends="openmpi-bin python3 python3-matplotlib python3-numpy python3-h5py"

# cpack -G DEB into $out/packages; sets deb (mpimon) and dev_deb (mpimon-dev).
build_packages() {
  step "$name: cpack -G DEB in $build"
  cmake --build "$build" -j "$jobs" >"$out/build.log" 2>&1 || { tail -30 "$out/build.log" >&2; fail "the build failed ($out/build.log)"; }
  rm -rf "$out/packages"
  (cd "$build" && cpack -G DEB -B "$out/packages") >"$out/cpack.log" 2>&1 ||
    { tail -30 "$out/cpack.log" >&2; fail "cpack -G DEB failed ($out/cpack.log)"; }
  rm -rf "$out/packages/_CPack_Packages"
  deb=$(find "$out/packages" -maxdepth 1 -name 'mpimon_*_amd64.deb' | head -1)
  dev_deb=$(find "$out/packages" -maxdepth 1 -name 'mpimon-dev_*_amd64.deb' | head -1)
  [ -n "$deb" ] && [ -n "$dev_deb" ] || fail "cpack made no mpimon_*_amd64.deb and mpimon-dev_*_amd64.deb ($out/cpack.log)"
  log "made $(basename "$deb") ($(du -k "$deb" | cut -f1) kB) and $(basename "$dev_deb")"
}

# The control fields and contents that the installed mpimon needs (dpkg-deb -f / -c).
check_packages() {
  local version depends contents dev_contents p f problems=()
  version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
  depends=$(dpkg-deb -f "$deb" Depends)
  echo "mpimon Depends: $depends"
  [ "$(dpkg-deb -f "$deb" Package)" = mpimon ] || problems+=("Package is not mpimon")
  [ "$(dpkg-deb -f "$deb" Version)" = "$version" ] || problems+=("Version is not $version")
  for p in $runtime_depends; do
    grep -qE "(^|, )$p( |,|$)" <<<"$depends" || problems+=("Depends lacks $p")
  done
  # dpkg-shlibdeps ran: the libraries of the host's build are there (C++ runtime, HDF5, Boost).
  for p in 'libstdc\+\+6' 'libhdf5-[0-9]' libboost-program-options; do
    grep -qE "(^|, )$p" <<<"$depends" || problems+=("Depends lacks $p (dpkg-shlibdeps)")
  done
  contents=$(dpkg-deb -c "$deb" | awk '{ print $NF }')
  for f in usr/bin/mpimon usr/bin/mpimon-merge usr/libexec/mpimon/mpimon-demo-ring \
    usr/libexec/mpimon/mpimon-overhead-bench usr/libexec/mpimon/mpimon-workload usr/libexec/mpimon/mpimon-p2p-ledger \
    usr/share/mpimon/scripts/plot_heatmaps.py usr/share/mpimon/report/report.html \
    usr/share/mpimon/report/node_modules/plotly.js-dist-min/plotly.min.js usr/share/mpimon/docs/defects.md; do
    grep -qx "\./$f" <<<"$contents" || problems+=("$(basename "$deb") lacks /$f")
  done
  grep -q '^\./usr/include/\|/cmake/mpimon/' <<<"$contents" && problems+=("$(basename "$deb") holds the dev files")
  dev_contents=$(dpkg-deb -c "$dev_deb" | awk '{ print $NF }')
  grep -q '/usr/include/mpimon/matrices/matrix_file\.hpp$' <<<"$dev_contents" || problems+=("mpimon-dev lacks the headers")
  grep -q '/cmake/mpimon/mpimonConfig\.cmake$' <<<"$dev_contents" || problems+=("mpimon-dev lacks mpimonConfig.cmake")
  grep -qF "mpimon (= $version)" <<<"$(dpkg-deb -f "$dev_deb" Depends)" || problems+=("mpimon-dev does not depend on mpimon (= $version)")
  if [ ${#problems[@]} -ne 0 ]; then
    printf '%s: %s\n' "$name" "${problems[@]}" >&2
    fail "the packages are not right (cmake/install.cmake)"
  fi
  log "control fields and contents checked"
}

# The clean root, once: debootstrap, Debian 12's updates suite beside the release, the package lists.
prepare_root() {
  lock_root
  bootstrap_root
  [ -f "$stamps/sources" ] && return
  printf 'deb %s %s main\ndeb %s %s-updates main\n' "$mirror" "$suite" "$mirror" "$suite" >"$chroot_dir/etc/apt/sources.list"
  in_chroot "$chroot_dir" "apt-get update -qq" || fail "apt-get update failed in the clean root"
  touch "$stamps/sources"
}

# A new copy of the clean root (nothing installed by an earlier run), and the folders it sees.
fresh_root() {
  safe_remove "$run_root"
  cp -a "$chroot_dir" "$run_root"
  rm -rf "$run_root/.mpimon-stamps"
  mkdir -p "$apt_cache/partial"
  rm -rf "$out/job" "$out/results" && mkdir -p "$out/job/ci" "$out/results"
  cp "$repo/ci/main.sh" "$repo/ci/common.sh" "$out/job/ci/"
}

# in_run_root COMMAND: in the copy, with the packages (read-only), the job, the results and apt's cache.
in_run_root() {
  in_chroot "$run_root" "$1" "$out/packages" "$inner_packages:ro" "$out/job" "$inner_job:ro" \
    "$out/results" "$inner_out" "$apt_cache" /var/cache/apt/archives
}

install_package() {
  step "$name: apt-get install ./$(basename "$deb") in a clean Debian 12 root ($run_root)"
  in_run_root "set -e
    if dpkg -s mpimon >/dev/null 2>&1 || command -v mpirun >/dev/null; then echo 'the root is not clean'; exit 1; fi
    apt-get update -qq
    cd $inner_packages
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ./$(basename "$deb")" \
    >"$out/install.log" 2>&1 || { tail -30 "$out/install.log" >&2; fail "apt-get install failed ($out/install.log)"; }
  grep -E '^[0-9]+ upgraded, [0-9]+ newly installed' "$out/install.log" || true
  # Every program and library of the package finds its shared libraries in the root.
  in_run_root "set -e
    [ \"\$(command -v mpimon)\" = /usr/bin/mpimon ] || { echo 'mpimon is not /usr/bin/mpimon'; exit 1; }
    n=0
    for f in \$(dpkg -L mpimon); do
      [ -f \"\$f\" ] && [ \"\$(head -c 4 \"\$f\" | tr -d '\\177')\" = ELF ] || continue
      n=\$((n + 1))
      if ldd \"\$f\" | grep -q 'not found'; then echo \"\$f: \$(ldd \"\$f\" | grep 'not found' | tr -s ' \\t' ' ')\"; exit 1; fi
    done
    echo \"ldd: the \$n programs and libraries of mpimon find their libraries\"
    [ \$n -gt 10 ] || { echo 'too few ELF files in the package'; exit 1; }" ||
    fail "the installed package lacks a dependency"
}

# The main job (ci/main.sh --installed) from the package, and the installed mpimon-merge on the
# dumps mpimon record kept: the same totals as record's own merge.
run_main_job() {
  step "$name: the main job from the installed package (ci/main.sh --installed, pairs ${MPIMON_MAIN_PAIRS:-1})"
  local status=0
  in_run_root "cd $inner_out && MPIMON_MAIN_PAIRS=${MPIMON_MAIN_PAIRS:-1} MPIMON_MAIN_NP=${MPIMON_MAIN_NP:-2} \
    MPIMON_MAIN_OUT=$inner_out/main bash $inner_job/ci/main.sh --installed" \
    2>&1 | tee "$out/main.log" || status=$?
  [ $status -eq 0 ] || fail "the main job failed in the root ($out/main.log)"
  [ -s "$out/results/main/report.html" ] || fail "the main job wrote no report.html"
  step "$name: mpimon-merge of record's dumps against record's merge"
  in_run_root "set -e; cd $inner_out
    mpimon-merge -o merged.h5 main/prof/
    totals() { mpimon show \"\$1\" | sed -n '/^  processes:/p; /^  class /,/^  histograms:/p'; }
    totals main/halo.h5 >record.txt; totals merged.h5 >merge.txt
    [ -s record.txt ] && diff record.txt merge.txt && cat merge.txt" ||
    fail "mpimon-merge's file differs from mpimon record's"
}

command=test
for arg in "$@"; do
  case $arg in
    -h | --help) usage; exit 0 ;;
    test | build | prepare | status | mirror) command=$arg ;;
    *) echo "$name: unknown argument '$arg'" >&2; usage >&2; exit 2 ;;
  esac
done

case $command in
  mirror) print_mirror ;;
  status)
    echo "clean root: $chroot_dir"
    for s in bootstrap sources; do printf '  %-10s %s\n' "$s" "$([ -f "$stamps/$s" ] && echo done || echo 'not done')"; done
    echo "mirror: $(host_mirror)"
    ;;
  build | prepare | test)
    [ $command = prepare ] || [ -f "$build/CMakeCache.txt" ] ||
      fail "$build is not a configured build directory (build it first: bash ci/main.sh, or set MPIMON_BUILD_DIR)"
    mkdir -p "$out"
    rm -f "$out/skipped.txt"
    # Whether the root can be had here, before anything is built.
    [ $command = build ] || check_chroot_host MPIMON_SKIP_DEBIAN_PACKAGE
    if [ $command != prepare ]; then build_packages; check_packages; fi
    if [ $command != build ]; then prepare_root; fi
    if [ $command = test ]; then
      fresh_root
      install_package
      run_main_job
      log "done: the package installs on a clean Debian 12 and its main job runs (results in $out)"
    fi
    ;;
esac
