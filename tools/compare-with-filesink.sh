#!/usr/bin/env bash
# Records N seconds of the user's workload (3 live streams, P010_10LE
# 2048x928 at 20 fps) with rtframesink onto XFS made on a loop device, while
# a tee sends the same frames to filesink, whose bytes are checksummed on the
# fly (through a FIFO, so they need no second 20 GB; cksum: CRC-32 and
# length, the one hash fast enough to leave the 2-core machine's CPU to the
# sources).  Each stream is a scrolling SMPTE pattern (7, 9, 11 pixels a
# frame: no two frames of a 60 s stream are alike, and a cheap pattern, so
# the sources keep 20 fps).  Prints how long the 60 s took, then per stream
# the frames written, rtframesink's deadline figures and whether its file
# equals filesink's output.
#   tools/compare-with-filesink.sh [seconds=60] [image-dir=/var/tmp]
# Needs root (loop device, mount).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
imgdir=${2:-/var/tmp}
frames=$((seconds * 20))
frame=5701632
[ "$(id -u)" -eq 0 ] || { echo "needs root" >&2; exit 1; }
tools/build.sh >/dev/null
export GST_PLUGIN_PATH_1_0="$PWD/build/gst"

work=$(mktemp -d)
img="$imgdir/rtframe-xfs-$$.img"
mnt="$work/mnt"
mkdir -p "$mnt"
size_gb=$(( (3 * frames * frame / 1000000000) + 4 ))
# as bench/scenarios.sh's disk setup: a preallocated image, the loop device
# in direct I/O mode (no second page cache), written through once so that
# no write pays for the host filesystem converting unwritten extents
fallocate -l "${size_gb}G" "$img"
loop=$(losetup -f --show --direct-io=on "$img")
cleanup() {
  umount "$mnt" 2>/dev/null || true
  losetup -d "$loop" 2>/dev/null || true
  rm -rf "$img" "$work"
}
trap cleanup EXIT
mkfs.xfs -q -f "$loop"
mount "$loop" "$mnt"
dd if=/dev/zero of="$mnt/warm" bs=16M oflag=direct status=none 2>/dev/null || true
rm -f "$mnt/warm"
sync
echo "XFS on $loop (${size_gb} GB image in $imgdir), $seconds s x 3 streams"

caps="video/x-raw,format=P010_10LE,width=2048,height=928,framerate=20/1"
pipeline=()
for s in 0 1 2; do
  mkfifo "$work/fifo$s"
  cksum < "$work/fifo$s" > "$work/filesink$s.sum" &
  pipeline+=(videotestsrc is-live=true num-buffers=$frames pattern=smpte horizontal-speed=$((7 + 2 * s))
    "!" "$caps" "!" tee name=t$s
    t$s. "!" queue "!" rtframesink name=cam$s location="$mnt/cam$s.raw"
    t$s. "!" queue max-size-buffers=0 max-size-time=0 max-size-bytes=0 "!" filesink location="$work/fifo$s")
done
start=$(date +%s.%N)
gst-launch-1.0 -m -e "${pipeline[@]}" > "$work/log" 2>&1 || { tail -20 "$work/log"; exit 1; }
end=$(date +%s.%N)
wait
status=0
awk -v a="$start" -v b="$end" -v s="$seconds" 'BEGIN {
  printf "pipeline ran %.2f s for %d s of frames\n", b - a, s
  if (b - a > s * 1.05) { print "the sources did not keep 20 fps"; exit 1 } }' || status=1
for s in 0 1 2; do
  line=$(grep "rtframesink-stats" "$work/log" | grep "cam$s.raw" | tail -1)
  written=$(sed -n 's/.*frames-written=(guint64)\([0-9]*\).*/\1/p' <<<"$line")
  field() { sed -n "s/.*[ ,]$1=([a-z0-9]*)\([0-9.e+]*\).*/\1/p" <<<"$line"; }
  zc=$(field frames-zero-copy)
  ours=$(cksum < "$mnt/cam$s.raw")
  theirs=$(cat "$work/filesink$s.sum")
  size=$(stat -c %s "$mnt/cam$s.raw")
  verdict=identical; [ "$ours" = "$theirs" ] || { verdict=DIFFERENT; status=1; }
  [ "$written" = "$frames" ] || status=1
  echo "cam$s: $written/$frames frames written ($zc zero-copy), $(field frames-dropped) dropped," \
    "$(field frames-missed) missed, latency p99 $(( $(field latency-p99) / 1000 )) us" \
    "max $(( $(field latency-max) / 1000 )) us; $size bytes, cksum $ours, filesink's $theirs: $verdict"
done
exit $status
