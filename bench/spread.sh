#!/usr/bin/env bash
# Several disks, one stream (docs/performance.md, "Several disks"): one
# stream of P010_10LE 2048x928 at 20 fps (114 MB/s, deadline 500 ms: a
# 5.7 MB frame alone takes 38-285 ms on these throttled disks) through
# rtframesink onto XFS filesystems on loop devices, each throttled below the
# stream's rate with the blkio cgroup, recorded to
#   one     one location
#   soonest locations= over two, placement=soonest (the default)
#   rr      locations= over two, placement=round-robin
#   (stall only) soonest with location-timeout=300 ms: the stalled disk
#           is left and its frame written at the other before the deadline
#   raid0   one location on md RAID0 (mdadm, 512 KiB chunks) over two more
#           loop devices throttled alike; where the kernel has no md, btrfs's
#           RAID0 over them instead (data striped in 64 KiB pieces)
# first with both disks alike (60 MB/s each), then with one slow (100 and
# 20 MB/s), then both at 150 MB/s with the second stalling (2 MB/s for 3 s,
# from 3 s into the recording: a drive's garbage collection; the one
# location is then on the stalling disk).  The loop devices are over files in RAM (tmpfs), so the throttle
# is the only limit.  Root; called by bench/scenarios.sh spread.
#
#   bench/spread.sh OUT.txt [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=$1
secs=${2:-10}
frames=$(( secs * 20 ))
export GST_PLUGIN_PATH_1_0=$root/build/gst
work=$(mktemp -d /var/tmp/rtframe-spread.XXXXXX)
loops=()
md=
cg=
stall=
one=0

cleanup() {
  set +e
  for m in "$work"/m*; do mountpoint -q "$m" && umount "$m"; done
  [ -n "$md" ] && mdadm --stop "$md" >/dev/null 2>&1
  for l in "${loops[@]}"; do losetup -d "$l"; done
  [ -n "$cg" ] && { echo $$ > /sys/fs/cgroup/blkio/cgroup.procs; rmdir "$cg"; }
  mountpoint -q "$work/ram" && umount "$work/ram"
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$work/ram"
mount -t tmpfs -o size=9g rtframe-spread "$work/ram"
for i in 0 1 2 3; do
  truncate -s 2G "$work/ram/d$i.img"
  loops+=("$(losetup --find --show "$work/ram/d$i.img")")
done
for i in 0 1; do
  mkdir -p "$work/m$i"
  mkfs.xfs -q -f "${loops[$i]}"
  mount "${loops[$i]}" "$work/m$i"
done
no_md="mdadm is not installed"
if command -v mdadm >/dev/null; then
  md=/dev/md/rtframe-spread-$$
  if no_md=$(mdadm --create "$md" --run --level=0 --chunk=512 \
      --raid-devices=2 "${loops[2]}" "${loops[3]}" 2>&1); then
    no_md=
    mkdir -p "$work/m2"
    mkfs.xfs -q -f "$md"
    mount "$md" "$work/m2"
  else
    md=
    [ -e /proc/mdstat ] || no_md="$no_md (this kernel has no md driver)"
  fi
fi
# Without md, btrfs's own RAID0 over the same two devices (data striped in
# 64 KiB pieces over both, metadata mirrored): striping all the same, each
# frame written over both disks.  (apt-get install mdadm btrfs-progs)
striped=
if [ -z "$md" ] && command -v mkfs.btrfs >/dev/null \
    && grep -qw btrfs /proc/filesystems; then
  mkdir -p "$work/m2"
  if mkfs.btrfs -q -f -d raid0 -m raid1 "${loops[2]}" "${loops[3]}" \
      >/dev/null 2>&1 && mount "${loops[2]}" "$work/m2"; then
    striped="btrfs RAID0 (64K stripes)"
  fi
fi

cg=/sys/fs/cgroup/blkio/rtframe-spread-$$
mkdir -p "$cg"
echo $$ > "$cg/cgroup.procs"
# throttle A B: the first disk of each pair (m0, the RAID's first) at A
# bytes/s, the second at B
throttle() {
  local i bps
  for i in 0 1 2 3; do
    bps=$1; [ $(( i % 2 )) = 1 ] && bps=$2
    echo "$(lsblk -no MAJ:MIN "${loops[$i]}" | tr -d ' ') $bps" \
      > "$cg/blkio.throttle.write_bps_device"
  done
}

field() { grep -o "$1=(guint64)[0-9]*" <<<"$2" | head -1 | sed 's/.*)//'; }
# one recording: prints a row of the table
record() {
  local name=$1 sink=$2 log stats per staller=
  if [ -n "$stall" ]; then
    ( sleep 3; throttle 150000000 2000000; sleep 3
      throttle 150000000 150000000 ) &
    staller=$!
  fi
  log=$(gst-launch-1.0 -m videotestsrc is-live=true pattern=black \
      num-buffers=$frames ! \
      video/x-raw,format=P010_10LE,width=2048,height=928,framerate=20/1 ! \
      rtframesink deadline=500000000 $sink 2>&1)
  [ -n "$staller" ] && wait "$staller"
  stats=$(grep 'rtframesink-stats' <<<"$log" | tail -1)
  per=$( { grep -o 'frames-written\\=\\(guint64\\)[0-9]*' <<<"$stats" || true; } \
    | sed 's/.*)//' | paste -sd+ -)
  printf "%-28s %8s %8s %8s %10.1f %10.1f  %s\n" "$name" \
    "$(field frames-written "$stats")" "$(field frames-missed "$stats")" \
    "$(field frames-dropped "$stats")" \
    "$(echo "$(field latency-p99 "$stats") / 1000000" | bc -l)" \
    "$(echo "$(field latency-max "$stats") / 1000000" | bc -l)" \
    "${per:--}"
  rm -rf "$work"/m0/* "$work"/m1/* "$work"/m2/* 2>/dev/null || true
  # the next run starts from the same state: XFS frees the deleted
  # extents in the background and the throttle carries a debt after a
  # run that fell behind (run right after "one location", either policy
  # had a p99 of 22-142 ms instead of 3-4 ms)
  sync
  sleep 3
}

runs() {
  local label=$1
  echo "## $label"
  printf "%-28s %8s %8s %8s %10s %10s  %s\n" "recording" "written" "missed" \
    "dropped" "p99 ms" "max ms" "frames per location"
  # one location last: the recording after one that fell behind on a disk
  # ran slower (p99 22-140 ms instead of 3-5 ms, either policy, even after
  # a sync and 3 s), so the two policies are not run after it
  record "locations, soonest" \
    "locations=<\"$work/m0/s.raw\",\"$work/m1/s.raw\">"
  record "locations, round-robin" \
    "locations=<\"$work/m0/r.raw\",\"$work/m1/r.raw\"> placement=round-robin"
  if [ -n "$stall" ]; then
    # left (and its frames written at the other) before the deadline
    record "soonest, timeout 0.3 s" \
      "locations=<\"$work/m0/t.raw\",\"$work/m1/t.raw\"> location-timeout=300000000"
  fi
  if [ -z "$no_md" ]; then
    record "md RAID0 (512K chunks)" "location=$work/m2/raid.raw"
  else
    echo "md RAID0: not made here: $no_md"
    [ -n "$striped" ] && record "$striped" "location=$work/m2/raid.raw"
  fi
  record "one location (disk $one)" "location=$work/m$one/one.raw"
  sleep 10
}

{
  echo "# spread  $(date -u +%FT%TZ)  $(uname -r)  $(nproc) CPUs"
  echo "# P010_10LE 2048x928 at 20 fps (114 MB/s), $frames frames, deadline 500 ms; XFS on loop devices over tmpfs, blkio-throttled"
  one=0
  throttle 60000000 60000000
  runs "two disks of 60 MB/s each"
  throttle 100000000 20000000
  runs "a 100 MB/s disk (0) and a 20 MB/s disk (1)"
  throttle 150000000 150000000
  stall=1 one=1
  runs "two disks of 150 MB/s, the second (1) at 2 MB/s for 3 s (a stall)"
} | tee "$out"
