#!/usr/bin/env bash
# rtframe-bench --preflight on a device of known speed: XFS on a loop
# device over a file in RAM, its writes throttled to 20 MB/s through the
# cgroup v1 blkio controller.  One stream of 320x240 P010_10LE frames
# (230400 bytes): at 174 fps (40.1 MB/s, twice the throttle) the verdict
# must be "will fall behind"; at 35 fps (8.1 MB/s, 0.4x the throttle)
# "holds"; unthrottled (the RAM device, hundreds of MB/s) "holds", and
# with a take longer than the free space lasts "holds with warnings".
# With --pre-record-on-disk the ring's standing space counts with the
# take's: a ring and a take that each fit alone but not together must say
# so, and a smaller ring must hold.
# The rates are 2x away from the throttle on either side, so the verdict
# does not depend on this machine's speed.  After each run the filesystem
# must be empty.  Root only (exit 77 with the reason otherwise); never in
# parallel: a loop device, mounts and a cgroup, all removed on exit.
#
# The runs that must hold have a deadline of 500 ms: the verdict's
# latency rule (a late frame, or p99.9 over half the deadline) turns on
# this machine's scheduling while other tests run beside this one
# (measured at 8.1 MB/s on the RAM device: p99.9 63 and 99 ms with the
# load average at 4.8, 4-8 ms idle).  This test is of the throughput side
# of the rule; the device is in RAM, written through once, so that no disk
# stall or first touch of the VM's memory makes a frame late either.
# Args: <rtframe-bench binary>
set -u
bench=$1
skip() { echo "skipped: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (loop device, mount, blkio cgroup)"
[ -f /sys/fs/cgroup/blkio/cgroup.procs ] \
  || skip "no cgroup v1 blkio controller at /sys/fs/cgroup/blkio"
command -v mkfs.xfs >/dev/null || skip "no mkfs.xfs (apt-get install xfsprogs)"

work=$(mktemp -d /var/tmp/rtframe-preflight.XXXXXX)
ram=$work/ram mnt=$work/mnt loop='' cg=''
cleanup() {
  set +e
  [ -n "$cg" ] && [ -d "$cg" ] && rmdir "$cg"
  # a process's io_uring ring lets go of the files it wrote (and so of
  # the filesystem) a few ms after the process has ended
  for _ in $(seq 50); do
    mountpoint -q "$mnt" || break
    umount "$mnt" 2>/dev/null || sleep 0.1
  done
  mountpoint -q "$mnt" && umount -l "$mnt"
  [ -n "$loop" ] && losetup -d "$loop"
  mountpoint -q "$ram" && umount "$ram"
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
fail=0
say_fail() { echo "FAIL: $*"; fail=1; }

mkdir "$ram" "$mnt"
mount -t tmpfs -o size=1100m rtframe-preflight "$ram" || exit 1
truncate -s 1G "$ram/xfs.img"
loop=$(losetup --find --show "$ram/xfs.img") || exit 1
mkfs.xfs -q -f "$loop" && mount "$loop" "$mnt" || exit 1
# every page of the RAM file touched once (as bench/scenarios.sh does)
dd if=/dev/zero of="$mnt/warm" bs=16M oflag=direct status=none 2>/dev/null
rm -f "$mnt/warm"
cg=/sys/fs/cgroup/blkio/rtframe-preflight-$$
mkdir "$cg"
echo "$(lsblk -no MAJ:MIN "$loop" | tr -d ' ') 20000000" \
  > "$cg/blkio.throttle.write_bps_device" || exit 1

# preflight NAME EXPECTED-VERDICT EXPECTED-EXIT THROTTLED ARGS...
# (its output stays in $out)
preflight() {
  local name=$1 verdict=$2 want=$3 throttled=$4 status t0
  shift 4
  t0=$(date +%s%N)
  if [ "$throttled" = yes ]; then
    out=$(sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$cg" \
      "$bench" --preflight --dir "$mnt" --quiet "$@" 2>&1)
  else
    out=$("$bench" --preflight --dir "$mnt" --quiet "$@" 2>&1)
  fi
  status=$?
  echo "== $name ($(( ($(date +%s%N) - t0) / 1000000 )) ms):" \
    "rtframe-bench --preflight --dir <mnt> $*"
  echo "$out"
  grep -qx "verdict: $verdict\(: .*\)\?" <<<"$out" \
    || say_fail "$name: the verdict is not \"$verdict\""
  [ $status = "$want" ] || say_fail "$name: exit $status, not $want"
  [ -z "$(ls -A "$mnt")" ] || say_fail "$name left $(ls -A "$mnt") in --dir"
}

small=(--streams 1 --width 320 --height 240 --duration 3)
preflight "throttled to 20 MB/s, 40.1 MB/s asked" "will fall behind" 4 yes \
  "${small[@]}" --fps 174 --size 60M
below=("${small[@]}" --fps 35 --deadline-ms 500)
preflight "throttled to 20 MB/s, 8.1 MB/s asked" "holds" 0 yes \
  "${below[@]}" --size 60M --take 60s --plot "$work/throughput.svg"
grep -q "<svg" "$work/throughput.svg" 2>/dev/null || say_fail "no SVG plot"
for phase in at-rate flat-out; do
  grep -q "^$phase," "$work/throughput.svg.csv" 2>/dev/null \
    || say_fail "no $phase rows in the throughput CSV"
done
preflight "unthrottled, 8.1 MB/s asked" "holds" 0 no "${below[@]}" --size 200M
# a take longer than the free space lasts (about 2 min at 8.1 MB/s) is a
# warning, and the only one
preflight "unthrottled, 8.1 MB/s asked, a take of 1 h" "holds with warnings" \
  3 no "${below[@]}" --size 200M --take 1h
grep -qx "verdict: holds with warnings: the free space lasts .*, less than the 1 h 00 min take" \
  <<<"$out" || say_fail "the take's warning is not the only one"

# pre-record on disk: about 915 MB free above min-free-space (5% of the
# 1 GiB filesystem).  A ring of 80 s at 8.06 MB/s holds 661.2 MB standing
# (82 s: a file more, and the one being written), a 60 s take 483.8 MB:
# each fits alone, together they do not - the verdict must name the ring
# and be the only warning.  A ring of 10 s (96.8 MB) with that take holds.
ring_line="pre-record on disk, 10.0 s in files of 1.0 s: the ring holds"
preflight "unthrottled, 8.1 MB/s, a ring of 10 s and a take of 60 s" "holds" \
  0 no "${below[@]}" --size 60M --take 60s --pre-record-on-disk 10
grep -q "^$ring_line .*, with the take .*, of the .* free above min-free-space" \
  <<<"$out" || say_fail "no line of the ring's standing space"
grep -q "rtframesink as a ring, pre-record-time 3.0 s in files of 1.0 s" \
  <<<"$out" || say_fail "the phase at the rate did not record as the ring"
preflight "unthrottled, 8.1 MB/s, a ring of 80 s and a take of 60 s" \
  "holds with warnings" 3 no "${below[@]}" --size 60M --take 60s \
  --pre-record-on-disk 80
# (g_format_size puts a no-break space before the unit)
nb=$'\xc2\xa0'
grep -qx "verdict: holds with warnings: the ring needs 661.2${nb}MB standing and the 1 min 00 s take 483.8${nb}MB, more than the [0-9.]*${nb}MB free above min-free-space" \
  <<<"$out" || say_fail "the ring's shortfall is not the only warning"

[ $fail -eq 0 ] && echo "preflight: ok"
exit $fail
