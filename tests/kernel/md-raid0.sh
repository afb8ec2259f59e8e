#!/bin/sh
# kernel-disk-mb: 4096
# kernel-releases: bookworm
# In a guest of tools/test-kernel.sh: the user's setup, two disks in md
# RAID0 with XFS on it (stripe unit and width from md), one stream and
# three streams of the user's frames (P010 2048x928, 5.7 MB) recorded
# byte-exact against filesink; then the same two disks as `locations`
# (an XFS each), played back through the manifest byte-exact; then one
# disk made slow with dm-delay, and in another run stalled for 2 s
# (dmsetup suspend), under each: the misses and failovers each way,
# printed as "table: ..." lines (the guest's CPU is emulated: read them as
# relative), with every frame written both ways and locations missing
# fewer deadlines than md RAID0 asserted.
# Disks of 4 GB or more (tools/test-kernel.sh --disk-mb 4096; mkfs.xfs
# ignores md's stripe on a smaller volume).
# Args: <build dir>.  Prints "ok: ..." / "FAIL: ..."; exit 1 on a failure.
. "$(dirname "$0")/lib/suite.sh"
caps="video/x-raw,format=P010_10LE,width=2048,height=928,framerate=20/1"
frames=10
# (no "snow": noise made pixel by pixel is slow on an emulated CPU)
patterns="ball checkers-8 smpte"

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
  videotestsrc num-buffers=$frames pattern=checkers-8 ! "$caps" ! rtframesink location=/tmp/md/cam-checkers-8.raw \
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

# ---- one disk slow (dm-delay), then stalled: misses and failovers -------
delay_ms=${RTFRAME_KERNEL_DELAY_MS:-300}
secs=3
n=$((secs * 20))
linear() { echo "0 $(blockdev --getsz /dev/vdb) linear /dev/vdb 0"; }
slow_table() { echo "0 $(blockdev --getsz /dev/vdb) delay /dev/vdb 0 $delay_ms"; }
live() {  # out name, sink props...: a live 20 Hz stream of $n frames
  out=/tmp/$1.out; shift
  gst-launch-1.0 -m videotestsrc is-live=true num-buffers=$n \
    pattern=ball ! "$caps" ! rtframesink stats-interval=1000000000 \
    frame-messages=true "$@" > "$out" 2>&1
}
figures() {  # out name: misses failovers written
  out=/tmp/$1.out
  written=$(grep -o "frames-written=(guint64)[0-9]*" "$out" | tail -1 | cut -d')' -f2)
  echo "$(grep -c "rtframesink-deadline-missed" "$out")" \
    "$(grep -c "rtframesink-location-left" "$out")" "${written:-0}"
}
# stall: once 20 frames are written (1 s into the recording: a process
# starts slowly in TCG), the second disk's I/O held for 2 s (dmsetup
# suspend: what is in flight completes, the rest waits)
stall_in_background() {  # out name
  (i=0
   while [ "$(grep -c rtframesink-frame-written "/tmp/$1.out" 2>/dev/null)" -lt 20 ] \
       && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
   dmsetup suspend --nolockfs --noudevsync second; sleep 2
   dmsetup resume --noudevsync second) &
  stall_pid=$!
}
# md RAID0 of /dev/vda and the dm map "second" (of /dev/vdb), XFS on it
md_up() {
  mdadm --create /dev/md1 --level=0 --raid-devices=2 --chunk=512 --run \
    --force /dev/vda /dev/mapper/second >/dev/null 2>&1 || bad "md over the dm map"
  mkfs.xfs -q -f /dev/md1 && mount /dev/md1 /tmp/md || bad "mkfs/mount md1"
}
md_down() {
  umount /tmp/md; mdadm --stop /dev/md1 >/dev/null 2>&1
  mdadm --zero-superblock /dev/vda /dev/mapper/second >/dev/null 2>&1
}
loc_up() {
  mkfs.xfs -q -f /dev/vda && mount /dev/vda /tmp/d1 \
    && mkfs.xfs -q -f /dev/mapper/second && mount /dev/mapper/second /tmp/d2 \
    || bad "mkfs/mount the two locations"
}
loc_props() {  # name
  echo "location=/tmp/d1/$1-%05d.raw"
  echo "locations=<\"/tmp/d1/$1-%05d.raw\",\"/tmp/d2/$1-%05d.raw\">"
  echo "max-file-size=$((20 * 5701632))"
}
# (no udev in the guest: the node made by dmsetup itself)
dmsetup create second --noudevsync --table "$(slow_table)" && dmsetup mknodes second \
  || bad "dmsetup delay"
md_up; live md-slow location=/tmp/md/slow.raw; md_down
loc_up
IFS='
'
live loc-slow $(loc_props ls)
unset IFS
"$tools/rtframe-verify" -q /tmp/d1/ls-.raw.rtfspread > /tmp/v.out 2>&1 \
  && ok "the locations recording with a slow disk verifies" \
  || { bad "verify after the slow disk"; tail -3 /tmp/v.out; }
umount /tmp/d1 /tmp/d2
dmsetup suspend --noudevsync second && dmsetup load --noudevsync second --table "$(linear)" \
  && dmsetup resume --noudevsync second || bad "dmsetup: back to linear"
rm -f /tmp/md-stall.out /tmp/loc-stall.out
md_up; stall_in_background md-stall; live md-stall location=/tmp/md/stall.raw
wait $stall_pid; md_down
loc_up; stall_in_background loc-stall
IFS='
'
live loc-stall $(loc_props lt)
unset IFS
wait $stall_pid
"$tools/rtframe-verify" -q /tmp/d1/lt-.raw.rtfspread > /tmp/v.out 2>&1 \
  && ok "the locations recording with a stalled disk verifies" \
  || { bad "verify after the stalled disk"; tail -3 /tmp/v.out; }
umount /tmp/d1 /tmp/d2
dmsetup remove --noudevsync second

# the table (docs/performance.md, docs/xfs.md), and what must hold: all
# frames written each way (leaky=no), and locations missing fewer
for case in slow stall; do
  set -- $(figures md-$case); mm=$1 mw=$3
  set -- $(figures loc-$case); lm=$1 lf=$2 lw=$3
  what="one disk +${delay_ms} ms"; [ $case = stall ] && what="one disk stalled 2 s"
  echo "table: $what, $n frames: md RAID0 misses $mm (written $mw); locations misses $lm, disks left $lf (written $lw)"
  if [ "$mw" -eq $n ] && [ "$lw" -eq $n ] && [ "$lm" -lt "$mm" ]; then
    ok "$what: locations missed $lm deadlines, md RAID0 $mm; every frame written both ways"
  else
    bad "$what: md RAID0 $mm misses, $mw written; locations $lm misses, $lw written"
  fi
done
exit $fail
