#!/usr/bin/env bash
# Records N seconds of the user's workload (3 live streams, P010_10LE
# 2048x928 at 20 fps) with rtframesink onto XFS made on a loop device, while
# a tee sends the same frames to filesink, whose bytes are hashed on the fly
# (through a FIFO, so they need no second 20 GB).  Prints, per stream, the
# frames written and whether rtframesink's file equals filesink's output.
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
truncate -s "${size_gb}G" "$img"
loop=$(losetup -f --show "$img")
cleanup() {
  umount "$mnt" 2>/dev/null || true
  losetup -d "$loop" 2>/dev/null || true
  rm -rf "$img" "$work"
}
trap cleanup EXIT
mkfs.xfs -q -f "$loop"
mount "$loop" "$mnt"
echo "XFS on $loop (${size_gb} GB image in $imgdir), $seconds s x 3 streams"

caps="video/x-raw,format=P010_10LE,width=2048,height=928,framerate=20/1"
pipeline=()
for s in 0 1 2; do
  mkfifo "$work/fifo$s"
  md5sum < "$work/fifo$s" | cut -d' ' -f1 > "$work/filesink$s.md5" &
  pipeline+=(videotestsrc is-live=true num-buffers=$frames pattern=ball foreground-color=$((0xff000000 + (0xff << (8 * s))))
    "!" "$caps" "!" tee name=t$s
    t$s. "!" queue "!" rtframesink name=cam$s location="$mnt/cam$s.raw"
    t$s. "!" queue max-size-buffers=0 max-size-time=0 max-size-bytes=0 "!" filesink location="$work/fifo$s")
done
start=$(date +%s.%N)
gst-launch-1.0 -m -e "${pipeline[@]}" > "$work/log" 2>&1 || { tail -20 "$work/log"; exit 1; }
end=$(date +%s.%N)
wait
awk -v a="$start" -v b="$end" 'BEGIN { printf "pipeline ran %.2f s\n", b - a }'
status=0
for s in 0 1 2; do
  line=$(grep "rtframesink-stats" "$work/log" | grep "cam$s.raw" | tail -1)
  written=$(sed -n 's/.*frames-written=(guint64)\([0-9]*\).*/\1/p' <<<"$line")
  zc=$(sed -n 's/.*frames-zero-copy=(guint64)\([0-9]*\).*/\1/p' <<<"$line")
  ours=$(md5sum < "$mnt/cam$s.raw" | cut -d' ' -f1)
  theirs=$(cat "$work/filesink$s.md5")
  size=$(stat -c %s "$mnt/cam$s.raw")
  verdict=identical; [ "$ours" = "$theirs" ] || { verdict=DIFFERENT; status=1; }
  [ "$written" = "$frames" ] || status=1
  echo "cam$s: $written/$frames frames written ($zc zero-copy), $size bytes, md5 $ours, filesink md5 $theirs: $verdict"
done
exit $status
