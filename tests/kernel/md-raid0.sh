#!/bin/sh
# kernel-disk-mb: 4096
# In a guest of tools/test-kernel.sh: the user's setup, two disks in md
# RAID0 with XFS on it (stripe unit and width from md), one stream and
# three streams of the user's frames (P010 2048x928, 5.7 MB) recorded
# byte-exact against filesink; then the same two disks as `locations`
# (an XFS each), played back through the manifest byte-exact; then one
# disk made slow with dm-delay under each: the misses and failovers each
# way, printed as "table: ..." lines (the guest's CPU is emulated: read
# them as relative).
# Disks of 4 GB or more (tools/test-kernel.sh --disk-mb 4096; mkfs.xfs
# ignores md's stripe on a smaller volume).
# Args: <build dir>.  Prints "ok: ..." / "FAIL: ..."; exit 1 on a failure.
build=$1
export GST_PLUGIN_PATH_1_0=$build/gst
tools=$build/tools
fail=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fail=1; }
caps="video/x-raw,format=P010_10LE,width=2048,height=928,framerate=20/1"
frames=10
patterns="ball snow smpte"

refs() {
  for p in $patterns; do
    gst-launch-1.0 -q videotestsrc num-buffers=$frames pattern=$p ! "$caps" ! \
      filesink location=/tmp/ref-$p.raw || bad "filesink $p"
  done
}

# ---- md RAID0 -------------------------------------------------------------
mdadm --create /dev/md0 --level=0 --raid-devices=2 --chunk=512 --run \
  --force /dev/vda /dev/vdb >/dev/null 2>&1 || { bad "mdadm --create"; exit 1; }
mkfs.xfs -q -f /dev/md0 || { bad "mkfs.xfs on md0"; exit 1; }
mkdir -p /tmp/md && mount /dev/md0 /tmp/md
geometry=$(xfs_info /tmp/md | grep -o "sunit=[0-9]* *swidth=[0-9]* blks" | tail -1)
echo "$geometry" | grep -q "sunit=128 *swidth=256" \
  && ok "XFS on md RAID0 aligned to its stripe: $geometry" \
  || bad "XFS on md RAID0 not aligned to 512 KiB x 2: $geometry"
refs
gst-launch-1.0 -q videotestsrc num-buffers=$frames pattern=ball ! "$caps" ! \
  rtframesink location=/tmp/md/one.raw && cmp -s /tmp/md/one.raw /tmp/ref-ball.raw \
  && ok "one stream on md RAID0 byte-exact" || bad "one stream on md RAID0"
gst-launch-1.0 -q \
  videotestsrc num-buffers=$frames pattern=ball ! "$caps" ! rtframesink location=/tmp/md/cam-ball.raw \
  videotestsrc num-buffers=$frames pattern=snow ! "$caps" ! rtframesink location=/tmp/md/cam-snow.raw \
  videotestsrc num-buffers=$frames pattern=smpte ! "$caps" ! rtframesink location=/tmp/md/cam-smpte.raw \
  || bad "three streams on md RAID0"
same=0
for p in $patterns; do
  cmp -s /tmp/md/cam-$p.raw /tmp/ref-$p.raw && same=$((same + 1)) \
    || bad "three streams: $p differs"
done
[ $same -eq 3 ] && ok "three streams on md RAID0 byte-exact"
umount /tmp/md
mdadm --stop /dev/md0 >/dev/null 2>&1
mdadm --zero-superblock /dev/vda /dev/vdb >/dev/null 2>&1

# ---- the two disks as locations ----------------------------------------
for i in 1 2; do
  dev=/dev/vda; [ $i = 2 ] && dev=/dev/vdb
  mkfs.xfs -q -f $dev && mkdir -p /tmp/d$i && mount $dev /tmp/d$i || bad "mkfs/mount $dev"
done
gst-launch-1.0 -q videotestsrc num-buffers=$frames pattern=ball ! "$caps" ! \
  rtframesink location=/tmp/d1/cam-%05d.raw \
  locations='<"/tmp/d1/cam-%05d.raw","/tmp/d2/cam-%05d.raw">' \
  max-file-size=$((3 * 5701632)) || bad "locations over the two disks"
gst-launch-1.0 -q rtframesrc location=/tmp/d1/cam-.raw.rtfspread ! filesink location=/tmp/spread.raw \
  && cmp -s /tmp/spread.raw /tmp/ref-ball.raw \
  && ok "the two disks as locations: played back through the manifest byte-exact ($(ls /tmp/d1/*.raw /tmp/d2/*.raw | wc -l) files)" \
  || bad "locations: playback differs"
for i in 1 2; do umount /tmp/d$i; done

# ---- one disk slow (dm-delay): misses and failovers, each way -----------
delay_ms=${RTFRAME_KERNEL_DELAY_MS:-300}
slow_table() {
  echo "0 $(blockdev --getsz /dev/vdb) delay /dev/vdb 0 $delay_ms"
}
live() {  # seconds, sink props...: a live 20 Hz stream; prints misses failovers
  secs=$1; shift
  gst-launch-1.0 -m videotestsrc is-live=true num-buffers=$((secs * 20)) \
    pattern=ball ! "$caps" ! rtframesink "$@" > /tmp/live.out 2>&1
  misses=$(grep -c "rtframesink-deadline-missed" /tmp/live.out)
  left=$(grep -c "rtframesink-location-left" /tmp/live.out)
  written=$(grep -o "frames-written=(guint64)[0-9]*" /tmp/live.out | tail -1 | cut -d')' -f2)
  echo "$misses $left ${written:-?}"
}
# (no udev in the guest: the node made by dmsetup itself)
dmsetup create slow --noudevsync --table "$(slow_table)" && dmsetup mknodes slow \
  || bad "dmsetup delay"
mdadm --create /dev/md1 --level=0 --raid-devices=2 --chunk=512 --run \
  --force /dev/vda /dev/mapper/slow >/dev/null 2>&1 || bad "md over a slow disk"
mkfs.xfs -q -f /dev/md1 && mount /dev/md1 /tmp/md || bad "mkfs/mount md1"
set -- $(live 5 location=/tmp/md/slow.raw stats-interval=1000000000)
echo "table: md RAID0, one disk +${delay_ms} ms: misses $1, failovers -, frames written $3 of 100"
umount /tmp/md; mdadm --stop /dev/md1 >/dev/null 2>&1
mdadm --zero-superblock /dev/vda /dev/mapper/slow >/dev/null 2>&1
mkfs.xfs -q -f /dev/vda && mount /dev/vda /tmp/d1
mkfs.xfs -q -f /dev/mapper/slow && mount /dev/mapper/slow /tmp/d2
set -- $(live 5 location=/tmp/d1/l-%05d.raw \
  locations='<"/tmp/d1/l-%05d.raw","/tmp/d2/l-%05d.raw">' \
  max-file-size=$((20 * 5701632)) stats-interval=1000000000)
echo "table: locations, one disk +${delay_ms} ms: misses $1, failovers $2, frames written $3 of 100"
"$tools/rtframe-verify" -q /tmp/d1/l-.raw.rtfspread > /tmp/v.out 2>&1 \
  && ok "the locations recording with a slow disk verifies" \
  || { bad "verify after the slow disk"; tail -3 /tmp/v.out; }
umount /tmp/d1 /tmp/d2
dmsetup remove --noudevsync slow
exit $fail
