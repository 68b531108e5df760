# Sourced by ci/ompi5.sh (Debian 13) and ci/debian-package.sh (Debian 12), after ci/common.sh: a
# Debian root made with debootstrap from the host's own Debian mirror, kept under
# /var/cache/mpimon/ outside the clone, and commands run in it inside a private mount namespace.
# The sourcing script sets, before calling these functions:
#   name        the prefix of its messages (ompi5, debian-package)
#   out         its results directory (skipped.txt goes there)
#   suite       the Debian suite of the root (trixie, bookworm)
#   chroot_dir  the root; the stamps of its stages go in $stamps

readonly exit_skipped=3
readonly stamps=$chroot_dir/.mpimon-stamps

# skip REASON: the environment cannot host the root: the reason saved for ci/test.sh, exit 3.
skip() {
  mkdir -p "$out"
  echo "$*" >"$out/skipped.txt"
  echo "$name: cannot run here: $*" >&2
  exit "$exit_skipped"
}
log() { echo "$name: $*" >&2; }

# The host's Debian mirror: the first non-security URI in its apt sources (deb822 or one-line).
host_mirror() {
  if [ -n "${MPIMON_DEBIAN_MIRROR:-}" ]; then echo "$MPIMON_DEBIAN_MIRROR"; return; fi
  local f uri
  local apt=${MPIMON_APT_DIR:-/etc/apt}
  for f in "$apt"/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    uri=$(awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }' "$f")
    [ -n "$uri" ] && [[ "$uri" == */debian ]] && { echo "$uri"; return; }
  done
  for f in "$apt"/sources.list "$apt"/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    uri=$(awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i !~ /^\[/ && $i ~ /:\/\//) { if ($i !~ /security/ && $i ~ /\/debian\/?$/) { print $i; exit } else break } }' "$f")
    [ -n "$uri" ] && { echo "${uri%/}"; return; }
  done
}

# `mirror` command of both scripts: the mirror, or a clear error.
print_mirror() {
  local m
  m=$(host_mirror)
  [ -n "$m" ] || { echo "$name: no Debian mirror in ${MPIMON_APT_DIR:-/etc/apt}" >&2; exit 1; }
  echo "$m"
}

# The mount points under DIR, deepest first.
mounts_under() {
  local dir
  dir=$(realpath -m "$1")
  awk -v d="$dir" '$2 == d || index($2, d "/") == 1 { print $2 }' /proc/self/mounts | sort -r
}

# rm -rf that refuses a directory with anything mounted in it (it would delete the host's files).
safe_remove() {
  local dir=$1
  [ -e "$dir" ] || return 0
  if [ -n "$(mounts_under "$dir")" ]; then
    echo "$name: refusing to remove $dir: still mounted there:" >&2
    mounts_under "$dir" >&2
    exit 1
  fi
  rm -rf --one-file-system "$dir"
}

# check_chroot_host SKIP_VARIABLE: root, private mount namespaces, and, when the root is still to
# be made, debootstrap (installed if missing) and the mirror's $suite; sets mirror. Exit 3 (skip)
# with the reason when any is missing, or when SKIP_VARIABLE=1.
check_chroot_host() {
  local skip_variable=$1
  [ "${!skip_variable:-0}" = 1 ] && skip "$skip_variable=1"
  [ "$(id -u)" -eq 0 ] || skip "needs root (debootstrap, chroot and mounts)"
  command -v unshare >/dev/null || skip "unshare (util-linux) not found"
  unshare --mount --propagation private true 2>/dev/null ||
    skip "private mount namespaces are not permitted here (unshare --mount failed)"
  mirror=$(host_mirror)
  [ -f "$stamps/bootstrap" ] && return
  [ -n "$mirror" ] || skip "no Debian mirror in /etc/apt (set MPIMON_DEBIAN_MIRROR)"
  if ! command -v debootstrap >/dev/null; then
    log "installing debootstrap"
    # A fresh machine's package lists may be stale: update once if the first try fails.
    { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null 2>&1 ||
      { apt-get update -qq >/dev/null 2>&1 &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null 2>&1; }; } ||
      skip "debootstrap is not installed and apt-get could not install it"
  fi
  # Only the Release file, a few kB. apt-helper is not on root's PATH: called by its full path.
  local probe
  probe=$(mktemp)
  if ! timeout 30 /usr/lib/apt/apt-helper download-file "$mirror/dists/$suite/Release" "$probe" >/dev/null 2>&1; then
    rm -f "$probe"
    skip "the archive of $suite is not reachable at $mirror/dists/$suite/"
  fi
  rm -f "$probe"
}

# lock_root: one preparation of $chroot_dir at a time on this machine (fd 9, held until exit).
lock_root() {
  mkdir -p "$(dirname "$chroot_dir")"  # the lock lives beside the root, which may not exist yet
  exec 9>"$chroot_dir.lock"
  flock 9
}

# bootstrap_root: a minbase $suite root in $chroot_dir, once (stamp bootstrap), from $mirror.
bootstrap_root() {
  [ -f "$stamps/bootstrap" ] && return
  safe_remove "$chroot_dir"  # an interrupted debootstrap leaves a root that cannot be trusted
  mkdir -p "$(dirname "$chroot_dir")"
  step "$name: debootstrap $suite into $chroot_dir (from $mirror; a few minutes, once)"
  debootstrap --variant=minbase "$suite" "$chroot_dir" "$mirror" >"$chroot_dir.debootstrap.log" 2>&1 || {
    tail -20 "$chroot_dir.debootstrap.log" >&2
    grep -q "Failed getting release\|Couldn't download\|Failure trying to run" "$chroot_dir.debootstrap.log" &&
      skip "debootstrap could not fetch or install $suite (log: $chroot_dir.debootstrap.log)"
    exit 1
  }
  # Services never start inside the root.
  printf '#!/bin/sh\nexit 101\n' >"$chroot_dir/usr/sbin/policy-rc.d"
  chmod +x "$chroot_dir/usr/sbin/policy-rc.d"
  mkdir -p "$stamps"
  touch "$stamps/bootstrap"
}

# in_chroot ROOT COMMAND [HOST_DIR INNER_DIR[:ro]]...: runs COMMAND (bash) in ROOT, inside a
# private mount namespace holding /proc, /sys, /dev, /dev/shm and each HOST_DIR bound at
# INNER_DIR (read-only with :ro); they vanish with the namespace whatever happens.
# With CHROOT_CLUSTERS=1, the root also sees the host's emulated clusters (docs/cluster.md): /run
# becomes a tmpfs holding the host's /run/netns and /run/mpimon, and the root is a mount point of
# its own (`ip netns exec`, which the cluster's launcher runs, remounts / as a slave); nothing is
# written into the root.
in_chroot() {
  local root=$1 command=$2
  shift 2
  cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
  CHROOT_CLUSTERS=${CHROOT_CLUSTERS:-0} unshare --mount --propagation private bash -c '
    set -euo pipefail
    root=$1 command=$2 jobs=$3
    shift 3
    cleanup() { for m in $(awk -v d="$root" "index(\$2, d \"/\") == 1 { print \$2 }" /proc/self/mounts | sort -r); do umount -l "$m" 2>/dev/null || true; done; }
    trap cleanup EXIT
    if [ "$CHROOT_CLUSTERS" = 1 ]; then
      mount --bind "$root" "$root"
      mount -t tmpfs -o mode=755 mpimon-run "$root/run"
      mkdir -p "$root/run/netns" "$root/run/mpimon" "$root/run/lock"
      [ -d /run/netns ] && mount --rbind /run/netns "$root/run/netns"
      [ -d /run/mpimon ] && mount --rbind /run/mpimon "$root/run/mpimon"
    fi
    mount -t proc proc "$root/proc"
    mount --rbind /sys "$root/sys"
    mount --bind /dev "$root/dev"
    mkdir -p "$root/dev/shm" "$root/dev/pts" && mount -t tmpfs -o mode=1777 shm "$root/dev/shm"
    mount -t devpts -o newinstance devpts "$root/dev/pts" 2>/dev/null || true
    while [ $# -ge 2 ]; do
      inner=${2%:ro}
      mkdir -p "$root$inner"
      mount --bind "$1" "$root$inner"
      [ "$inner" = "$2" ] || mount -o remount,bind,ro "$root$inner"
      shift 2
    done
    chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin LANG=C.UTF-8 \
      TERM="${TERM:-dumb}" CCACHE_DIR=/var/cache/ccache OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
      OMPI_MCA_rmaps_base_oversubscribe=1 PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe \
      MPIMON_JOBS="$jobs" MPIMON_CI_START="$MPIMON_CI_START" bash -c "$command"
  ' in_chroot "$root" "$command" "$jobs" "$@"
}
