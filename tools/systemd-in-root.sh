#!/usr/bin/env bash
# Boots systemd as PID 1 of a Debian root filesystem and runs a command
# there, for what only a real service manager shows: a unit started with
# its sandbox (tools/test-debian.sh --packages starts rtframe-record.service
# so).  systemd runs in PID, mount, network and cgroup namespaces of its
# own, with a cgroup2 hierarchy of its own (a child of this machine's,
# removed afterwards), its own loopback, and /dev/null for a console; it
# boots to basic.target (journald, sysusers, tmpfiles: no getty, no
# network).  The command runs in the root as root, inside those
# namespaces; its exit status is this script's.  systemd is stopped when
# it ends, or on INT/TERM.  Root only; the root needs systemd installed.
#   tools/systemd-in-root.sh ROOT COMMAND...
set -euo pipefail
root=$(cd "$1" && pwd)
shift
die() {
  echo "systemd-in-root: $*" >&2
  exit 1
}
[ "$(id -u)" -eq 0 ] || die "needs root (namespaces, mounts, cgroups)"
[ -x "$root/lib/systemd/systemd" ] || die "no systemd in $root (apt-get install systemd)"
[ $# -gt 0 ] || die "no command"
cg2=$(findmnt -n -t cgroup2 -o TARGET | head -1)
[ -n "$cg2" ] || die "no cgroup2 hierarchy mounted here"

cg=$cg2/rtf-systemd-$$
boot=""         # unshare, whose child is systemd
pid1=""         # systemd, as this machine sees it
# (killing a PID namespace's init kills all of it; then its cgroups are
# empty and go, deepest first)
stop() {
  local _
  [ -z "$pid1" ] || kill -KILL "$pid1" 2>/dev/null || true
  [ -z "$boot" ] || wait "$boot" 2>/dev/null || true
  for _ in $(seq 50); do
    [ -d "$cg" ] || break
    find "$cg" -depth -type d -exec rmdir {} + 2>/dev/null || sleep 0.1
  done
  [ ! -d "$cg" ] || echo "systemd-in-root: $cg left behind (still in use)" >&2
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

mkdir "$cg"
(
  echo "$BASHPID" >"$cg/cgroup.procs"
  exec unshare --cgroup --pid --fork --mount --net --propagation private -- \
    /bin/bash -c '
    set -e
    r=$1
    mount --rbind "$r" "$r"
    mount --rbind /dev "$r/dev"
    mount --bind /dev/null "$r/dev/console"
    mount --rbind /sys "$r/sys"
    mount -t cgroup2 cgroup2 "$r/sys/fs/cgroup"
    mount -t proc proc "$r/proc"
    mount -t tmpfs tmpfs "$r/run"
    mkdir -p "$r/.oldroot"
    cd "$r"
    pivot_root . .oldroot
    umount -l /.oldroot
    exec env -i container=rtframe-test /lib/systemd/systemd --system \
      --log-target=journal --show-status=false systemd.unit=basic.target
  ' boot "$root"
) </dev/null >/dev/null 2>&1 &
boot=$!
for _ in $(seq 100); do
  pid1=$(pgrep -P "$boot" || true)
  [ -z "$pid1" ] || break
  sleep 0.1
done
[ -n "$pid1" ] || die "systemd did not start in $root"

inside() {
  nsenter -t "$pid1" -m -p -n -C -r -w -- /usr/bin/env -i HOME=/root \
    LANG=C.UTF-8 PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    "$@"
}
# (is-system-running --wait: until the boot's jobs are done; degraded is
# a unit that failed, said and not fatal here)
for _ in $(seq 100); do
  inside test -S /run/systemd/private 2>/dev/null && break
  sleep 0.1
done
state=$(inside timeout 60 systemctl is-system-running --wait 2>&1 || true)
echo "systemd-in-root: $(inside systemctl --version | head -1) booted in $root: $state"
if [ "$state" != running ]; then
  inside systemctl --failed --no-pager --no-legend >&2 || true
fi
status=0
inside "$@" || status=$?
exit $status
