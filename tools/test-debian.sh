#!/usr/bin/env bash
# Runs the project's own install script and test command in a Debian root
# filesystem, the way a new user on that release would: the stack under
# test is that release's GStreamer, GLib and liburing; the kernel is this
# machine's.  Root only.
#   tools/test-debian.sh [RELEASE] [tools/test.sh arguments]
#   tools/test-debian.sh [RELEASE] --packages   the .debs, built and installed
#     RELEASE       trixie (default: Debian 13), bookworm, or any release
#                   this machine's debootstrap knows
#   RTFRAME_ROOTS   where the roots live (default /var/tmp/rtf-roots)
#   RTFRAME_DEBIAN_MIRROR  the mirror (default: the one this machine's apt
#                   uses, read from its sources)
#
# The root (RTFRAME_ROOTS/RELEASE) is made with `debootstrap --variant=minbase`
# when missing and reused otherwise.  The working tree (git's tracked and
# untracked-not-ignored files) is copied to /root/rtframe inside it.  Each
# command runs in a mount namespace and a process group of its own with
# /proc, /sys (its cgroup mounts included) and /dev (with /dev/pts and
# /dev/shm) mounted in the root, so the mounts go away with the namespace
# whatever happens.  On exit, or on INT/TERM (which stop the command first),
# the script also unmounts anything left under the root, detaches loop
# devices backed by files in it and removes stopped tests' images.  The
# test run holds /var/tmp/rtf-root-tests.lock: the root-only tests set a
# system-wide sysctl and make loop devices, so they must not overlap
# another run's; a test stopped while it had io_uring switched off gets the
# sysctl restored before the lock is let go.  GST_CHECKS and
# RTFRAME_TEST_TIME_SCALE pass through to the tests, RTFRAME_WERROR to the
# build (tools/build.sh).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)

release=trixie
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
  release=$1
  shift
fi
roots=${RTFRAME_ROOTS:-/var/tmp/rtf-roots}
root=$roots/$release
lock=/var/tmp/rtf-root-tests.lock

die() {
  echo "test-debian: $*" >&2
  exit 1
}

[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, chroot, mounts)"

# The first URI of this machine's apt sources that serves a release itself
# (not -security/-updates): deb822 stanzas first, then the one-line format.
host_mirror() {
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk 'BEGIN { RS = ""; FS = "\n" }
      {
        uris = ""; suites = ""; types = ""
        for (i = 1; i <= NF; i++) {
          if ($i ~ /^URIs:/) { uris = $i; sub(/^URIs:[ \t]*/, "", uris) }
          if ($i ~ /^Suites:/) { suites = $i; sub(/^Suites:[ \t]*/, "", suites) }
          if ($i ~ /^Types:/) types = $i
        }
        if (types !~ /[ \t]deb([ \t]|$)/) next
        n = split(suites, s, /[ \t]+/)
        for (j = 1; j <= n; j++)
          if (s[j] != "" && s[j] !~ /[-\/]/) {
            split(uris, u, /[ \t]+/); print u[1]; exit
          }
      }' "$f"
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    sed -nE 's/^deb[ \t]+(\[[^]]*\][ \t]+)?([^ \t]+)[ \t]+([^ \t/-]+)[ \t].*/\2/p' "$f"
  done
}

mirror=${RTFRAME_DEBIAN_MIRROR:-$(host_mirror | head -n 1)}
[ -n "$mirror" ] || die "no Debian mirror in /etc/apt/sources.list{,.d/} (set RTFRAME_DEBIAN_MIRROR)"

# Loop devices backed by a file inside the root, as "DEVICE FILE" lines
loops_in_root() {
  losetup -ln -O NAME,BACK-FILE 2>/dev/null |
    awk -v r="$root/" 'index($2, r) == 1 { print $1 }'
}

child=""        # the command running in the root (its process group)
locked=0        # this run holds the root tests' lock
io_uring_sysctl=/proc/sys/kernel/io_uring_disabled
saved_sysctl=$(cat "$io_uring_sysctl" 2>/dev/null || true)

# Stops the command running in the root, all of it (it runs in a process
# group of its own), and waits for it: its mount namespace, and the
# filesystems tests mounted in it, go when its last process has.
stop_child() {
  [ -n "$child" ] || return 0
  kill -TERM -- "-$child" 2>/dev/null || true
  for _ in $(seq 50); do
    kill -0 -- "-$child" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL -- "-$child" 2>/dev/null || true
  wait "$child" 2>/dev/null || true
  child=""
}

# Whatever is still mounted under the root (deepest first), then loop
# devices a test left attached to its images there, and, while this run
# holds the root tests' lock, the io_uring sysctl a stopped root test may
# have left switched off (it restores it itself when it ends normally)
cleanup() {
  local m d
  stop_child
  for m in $(findmnt -rn -o TARGET | awk -v r="$root/" 'index($0, r) == 1' | sort -r); do
    umount "$m" 2>/dev/null || umount -l "$m" || true
  done
  for d in $(loops_in_root); do
    losetup -d "$d" || true
  done
  # the images and mount points of tests that were stopped
  rm -rf --one-file-system "$root"/tmp/rtframe-* 2>/dev/null || true
  if [ $locked = 1 ] && [ -n "$saved_sysctl" ] &&
    [ "$(cat "$io_uring_sysctl")" != "$saved_sysctl" ]; then
    echo "test-debian: restoring kernel.io_uring_disabled=$saved_sysctl" >&2
    echo "$saved_sysctl" >"$io_uring_sysctl" || true
  fi
}

# Serialises runs on this root (one copy of the tree, one package database)
mkdir -p "$roots"
exec 8>"$root.lock"
flock 8
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# debootstrap removes its own directory debootstrap/ from the root when it
# finished: a root that still has it, or no apt, is half made
root_complete() {
  [ -x "$root/usr/bin/apt-get" ] && [ ! -e "$root/debootstrap" ]
}

make_root() {
  command -v debootstrap >/dev/null || {
    echo "test-debian: installing debootstrap"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      debootstrap >/dev/null
  }
  cleanup
  rm -rf --one-file-system "$root.new"
  echo "test-debian: debootstrap --variant=minbase $release $root $mirror"
  debootstrap --variant=minbase "$release" "$root.new" "$mirror" \
    >"$roots/$release.debootstrap.log" 2>&1 || {
    tail -n 20 "$roots/$release.debootstrap.log" >&2
    die "debootstrap failed (log: $roots/$release.debootstrap.log)"
  }
  rm -rf --one-file-system "$root"
  mv "$root.new" "$root"
}

if root_complete; then
  echo "test-debian: reusing $root"
else
  start=$SECONDS
  make_root
  echo "test-debian: made $root in $((SECONDS - start)) s"
fi
# apt inside needs a resolver; no service may start from a package's scripts
cp -L /etc/resolv.conf "$root/etc/resolv.conf"
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"

# The working tree as git sees it (tracked, and untracked unless ignored),
# in place of the previous copy; its build directories are kept, so a
# second run builds only what changed.  Only
# for a copy of the same tree: after another tree's run (another worktree,
# a CI clone) the build holds objects newer than this tree's files but
# made from the other's, which ninja would keep (seen: a test linked
# against the other tree's helper library, "undefined reference").
#
# A file whose content changed since the previous copy gets this moment as
# its time: tar keeps the source's times, and a file edited while an
# earlier run was building from its old content is older than the objects
# made from that, which ninja would keep (seen: a header given a field at
# 05:27, objects of the old layout built at 05:29 kept by the next run,
# counts read as garbage through the old layout).
copy_tree() {
  local dest=$root/root/rtframe prev=$root/root/.rtframe-prev f
  mkdir -p "$dest"
  if [ "$(cat "$dest/.rtf-source" 2>/dev/null)" != "$src" ]; then
    rm -rf --one-file-system "$dest"/build*
  fi
  rm -rf --one-file-system "$prev"
  mkdir -p "$prev"
  find "$dest" -mindepth 1 -maxdepth 1 ! -name 'build*' -exec mv -t "$prev" {} +
  if git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    (cd "$src" && git ls-files -z --cached --others --exclude-standard |
      tar --null --no-recursion --ignore-failed-read -T - -cf - 2>/dev/null) |
      tar -xf - -C "$dest"
  else
    tar -C "$src" --exclude='./build*' -cf - . | tar -xf - -C "$dest"
  fi
  (cd "$dest" && find . -path './build*' -prune -o -type f -print0) |
    while IFS= read -r -d '' f; do
      cmp -s "$dest/$f" "$prev/$f" || touch "$dest/$f"
    done
  rm -rf --one-file-system "$prev"
  echo "$src" >"$dest/.rtf-source"
}

# Runs a command (bash -c) in the root, in a mount namespace and a process
# group of its own, and waits for it (a signal to this script stops it:
# see stop_child)
in_root() {
  setsid unshare --mount --propagation private -- /bin/bash -c '
    set -e
    root=$1; shift
    mount -t proc proc "$root/proc"
    mount --rbind /sys "$root/sys"
    mount --rbind /dev "$root/dev"
    exec chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
      PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      DEBIAN_FRONTEND=noninteractive TERM="${TERM:-dumb}" \
      RTFRAME_IN_DEBIAN_ROOT=1 \
      ${RTFRAME_TEST_TIME_SCALE:+RTFRAME_TEST_TIME_SCALE=$RTFRAME_TEST_TIME_SCALE} \
      ${RTFRAME_WERROR:+RTFRAME_WERROR=$RTFRAME_WERROR} \
      ${GST_CHECKS:+GST_CHECKS=$GST_CHECKS} \
      /bin/bash -c "$1"
  ' in_root "$root" "$1" &
  child=$!
  local status=0
  wait "$child" || status=$?
  child=""
  return $status
}

copy_tree
echo "test-debian: $release: tools/install-deps.sh, tools/build.sh"
in_root 'cd /root/rtframe && tools/install-deps.sh && tools/build.sh build &&
  echo "test-debian: Debian $(cat /etc/debian_version), GStreamer $(pkg-config --modversion gstreamer-1.0), GLib $(pkg-config --modversion glib-2.0), liburing $(pkg-config --modversion liburing), kernel $(uname -r)"'
# --packages: the Debian packages instead of the tests - built in this root
# (tools/build-deb.sh: lintian errors fail), then installed with apt into
# a clean one (debootstrap minbase, kept as $root-clean, copied for each
# run), where GStreamer must find the plugin with no GST_PLUGIN_PATH, the
# tools and the recorder answer, and a recording made there verifies; the
# rig the package ships records as the user rtframe, then as its unit
# under systemd booted in the root (tests/packages/)
if [ "${1:-}" = --packages ]; then
  in_root 'cd /root/rtframe && tools/install-deps.sh --deb >/dev/null &&
    tools/build-deb.sh /root/debs' || die "$release: the packages did not build"
  build_root=$root
  root=$roots/$release-clean
  if ! root_complete; then
    make_root
  fi
  rm -rf --one-file-system "$roots/$release-pkgtest"
  cp -a "$root" "$roots/$release-pkgtest"
  root=$roots/$release-pkgtest
  cp -L /etc/resolv.conf "$root/etc/resolv.conf"
  printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
  chmod 755 "$root/usr/sbin/policy-rc.d"
  mkdir -p "$root/root/debs"
  cp "$build_root"/root/debs/*.deb "$root/root/debs/"
  status=0
  # (each command said as it runs: a failure names itself)
  in_root 'set -ex
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends \
      ./root/debs/gstreamer1.0-rtframe_*.deb ./root/debs/rtframe-tools_*.deb \
      ./root/debs/rtframe-record_*.deb gstreamer1.0-tools \
      gstreamer1.0-plugins-base systemd curl iproute2 >/dev/null
    unset GST_PLUGIN_PATH GST_PLUGIN_PATH_1_0
    gst-inspect-1.0 rtframesink | grep -q "Filename .*/lib/.*/gstreamer-1.0/libgstrtframe.so"
    gst-inspect-1.0 rtframesrc >/dev/null
    echo "test-debian: packages: gst-inspect-1.0 finds rtframesink in the system plugin directory"
    gst-launch-1.0 -q videotestsrc num-buffers=20 ! \
      video/x-raw,format=P010_10LE,width=64,height=32,framerate=20/1 ! \
      rtframesink location=/tmp/pkg-%03d.raw max-file-size=40960
    rtframe-verify /tmp/pkg-%03d.raw | tail -1
    rtframe-verify --version
    rtframe-recover --version
    rtframe-dump --version
    rtframe-export --version
    rtframe-export --format raw -o /tmp/pkg.raw /tmp/pkg-%03d.raw >/dev/null
    rtframe-record --version
    test -f /usr/share/man/man1/rtframe-verify.1.gz
    test -f /usr/share/man/man1/rtframe-export.1.gz
    test -f /usr/lib/systemd/system/rtframe-record@.service
    test -f /usr/share/doc/rtframe/reference.md' || status=$?
  mkdir -p "$root/root/pkgtest"
  cp "$src"/tests/packages/*.sh "$root/root/pkgtest/"
  # (the recorder's own network namespace: the config's port is free)
  [ $status -ne 0 ] || in_root '/root/pkgtest/installed.sh &&
    unshare --net /root/pkgtest/record.sh setpriv' || status=$?
  [ $status -ne 0 ] ||
    "$src/tools/systemd-in-root.sh" "$root" /root/pkgtest/record.sh unit ||
    status=$?
  cleanup
  rm -rf --one-file-system "$roots/$release-pkgtest"
  echo "test-debian: $release: packages exit $status"
  exit $status
fi
echo "test-debian: $release: tools/test.sh $*"
args=""
[ $# -eq 0 ] || args=$(printf ' %q' "$@")
status=0
exec 9>"$lock"
flock 9
locked=1
saved_sysctl=$(cat "$io_uring_sysctl" 2>/dev/null || true)
in_root "cd /root/rtframe && tools/test.sh$args" || status=$?
cleanup
locked=0
flock -u 9
echo "test-debian: $release: tools/test.sh exit $status"
exit $status
