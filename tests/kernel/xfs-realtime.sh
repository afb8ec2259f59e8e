#!/bin/sh
# kernel-disk-mb: 400
# In a guest of tools/test-kernel.sh (Debian's kernel, CONFIG_XFS_RT=y),
# /dev/vda the data device and /dev/vdb the realtime device: rtframesink
# realtime=true records a rotated set of the user's frames (P010 2048x928,
# 5.7 MB, not a multiple of the 1 MiB realtime extent) whose data files
# land on the realtime device with the realtime flag, their indexes on
# the data device, byte-exact against filesink; rtframe-verify,
# rtframe-recover and rtframesrc read them back; then the realtime device
# fills up and the recording ends with whole frames only; then the
# realtime extent sizes (4 KiB to 4 MiB) under frames no multiple of them,
# and extent-size-hint on realtime files.
# Args: <build dir>.  Prints "ok: ..." / "FAIL: ..."; exit 1 on a failure.
. "$(dirname "$0")/lib/suite.sh"
caps="video/x-raw,format=P010_10LE,width=2048,height=928,framerate=20/1"
frame=5701632

mkfs.xfs -q -f -r rtdev=/dev/vdb,extsize=1m /dev/vda || { bad "mkfs.xfs"; exit 1; }
mkdir -p /tmp/rt && mount -o rtdev=/dev/vdb /dev/vda /tmp/rt || { bad "mount"; exit 1; }
xfs_info /tmp/rt | grep -E "^realtime" | sed 's/^/  /'

# ---- a rotated set on the realtime device, byte-exact -------------------
gst-launch-1.0 -q videotestsrc num-buffers=12 pattern=ball ! "$caps" ! \
  filesink location=/tmp/ref.raw || bad "filesink reference"
gst-launch-1.0 -q videotestsrc num-buffers=12 pattern=ball ! "$caps" ! \
  rtframesink location=/tmp/rt/cam-%05d.raw realtime=true \
  max-file-size=$((5 * frame)) || bad "rtframesink realtime=true"
n=0
for f in /tmp/rt/cam-*.raw; do
  n=$((n + 1))
  x=$(xfs_io -r -c stat "$f" | awk '/fsxattr.xflags/ {print $3}')
  case $(( x & 1 )) in
    1) ;;
    *) bad "$f: xflags $x, not realtime" ;;
  esac
  xi=$(xfs_io -r -c stat "$f.idx" | awk '/fsxattr.xflags/ {print $3}')
  [ $(( xi & 1 )) -eq 0 ] || bad "$f.idx is on the realtime device ($xi)"
done
[ $n -eq 3 ] && ok "3 files, each realtime (xflags $x), indexes on the data device" \
  || bad "$n files, not 3"
cat /tmp/rt/cam-*.raw | cmp -s - /tmp/ref.raw && ok "the set is byte-exact against filesink" \
  || bad "the set differs from filesink"
"$tools/rtframe-verify" -q '/tmp/rt/cam-%05d.raw' && ok "rtframe-verify" || bad "rtframe-verify"
gst-launch-1.0 -q rtframesrc location=/tmp/rt/cam-%05d.raw ! filesink location=/tmp/play.raw \
  && cmp -s /tmp/play.raw /tmp/ref.raw && ok "rtframesrc plays it byte-exact" \
  || bad "rtframesrc"
rm -f /tmp/play.raw

# ---- cut by a kill: recover on realtime files ---------------------------
gst-launch-1.0 -q videotestsrc is-live=true pattern=ball ! "$caps" ! \
  rtframesink location=/tmp/rt/k-%05d.raw realtime=true max-file-size=$((5 * frame)) &
pid=$!
sleep 4; kill -KILL $pid; wait $pid 2>/dev/null
"$tools/rtframe-recover" '/tmp/rt/k-%05d.raw' > /tmp/recover.out 2>&1 \
  && "$tools/rtframe-verify" -q '/tmp/rt/k-%05d.raw' \
  && ok "recover after a kill, then verify: $(tail -1 /tmp/recover.out)" \
  || { bad "recover after a kill"; cat /tmp/recover.out; }

# ---- the realtime device fills up ---------------------------------------
rm -f /tmp/rt/cam-* /tmp/rt/k-*
out=$(gst-launch-1.0 videotestsrc num-buffers=1000 pattern=ball ! "$caps" ! \
  rtframesink location=/tmp/rt/full-%05d.raw realtime=true \
  max-file-size=$((20 * frame)) min-free-space=0 2>&1)
status=$?
if [ $status -ne 0 ] && echo "$out" | grep -q "No space left\|not enough space\|space"; then
  ok "the realtime device full: the recording ended with an error"
else
  bad "filling the realtime device: exit $status: $(echo "$out" | tail -3)"
fi
"$tools/rtframe-verify" '/tmp/rt/full-%05d.raw' > /tmp/full.out 2>&1 \
  && ok "what the full device holds verifies: $(grep -E '^[0-9]+ files' /tmp/full.out)" \
  || { bad "verify after the device filled"; tail -5 /tmp/full.out; }
umount /tmp/rt

# ---- the realtime extent size, and extent-size-hint on realtime files ---
# Each size of realtime extent (the allocation unit of the realtime
# device) with 8 of the user's frames, which are no multiple of any of
# them (5.44 MiB): byte-exact, the extents of the file, and the space it
# keeps after EOS (the tail of a realtime file is freed in whole realtime
# extents only).  Then, on 1 MiB: a hint of 64 MiB (a multiple) is taken
# and read back; 1.5 MiB (no multiple of the realtime extent) is refused
# by the kernel, and the start with it, with a message naming the hint.
gst-launch-1.0 -q videotestsrc num-buffers=8 pattern=ball ! "$caps" ! \
  filesink location=/tmp/ref8.raw || bad "filesink reference (8)"
for ext in 4k 64k 1m 4m; do
  mkfs.xfs -q -f -r rtdev=/dev/vdb,extsize=$ext /dev/vda \
    && mount -o rtdev=/dev/vdb /dev/vda /tmp/rt || { bad "mkfs/mount extsize=$ext"; continue; }
  gst-launch-1.0 -q videotestsrc num-buffers=8 pattern=ball ! "$caps" ! \
    rtframesink location=/tmp/rt/e.raw realtime=true || bad "extsize=$ext: recording"
  extents=$(xfs_bmap /tmp/rt/e.raw | grep -vc "^/tmp\|hole")
  kept=$(( $(stat -c %b /tmp/rt/e.raw) * 512 - $(stat -c %s /tmp/rt/e.raw) ))
  if cmp -s /tmp/rt/e.raw /tmp/ref8.raw; then
    ok "realtime extent $ext: byte-exact; $extents extent(s), $kept bytes held past the last frame"
    echo "table: realtime extent $ext: 8 frames of 5701632 bytes, $extents extent(s), $kept bytes past the end"
  else
    bad "realtime extent $ext: the file differs from filesink"
  fi
  if [ $ext = 1m ]; then
    gst-launch-1.0 -q videotestsrc num-buffers=8 pattern=ball ! "$caps" ! \
      rtframesink location=/tmp/rt/h.raw realtime=true extent-size-hint=67108864 \
      || bad "extent-size-hint 64 MiB on a realtime file"
    hint=$(xfs_io -r -c stat /tmp/rt/h.raw | awk '/fsxattr.extsize/ {print $3}')
    x=$(xfs_io -r -c stat /tmp/rt/h.raw | awk '/fsxattr.xflags/ {print $3}')
    [ "$hint" = 67108864 ] && [ $((x & 1)) -eq 1 ] && cmp -s /tmp/rt/h.raw /tmp/ref8.raw \
      && ok "extent-size-hint 64 MiB on a realtime file: taken (extsize $hint, xflags $x), byte-exact, $(xfs_bmap /tmp/rt/h.raw | grep -vc "^/tmp\|hole") extent(s)" \
      || bad "extent-size-hint 64 MiB on a realtime file: extsize $hint, xflags $x"
    out=$(gst-launch-1.0 videotestsrc num-buffers=2 ! "$caps" ! \
      rtframesink location=/tmp/rt/bad.raw realtime=true extent-size-hint=1572864 2>&1)
    status=$?
    if [ $status -ne 0 ] && echo "$out" | grep -q "extent size hint" && [ ! -e /tmp/rt/bad.raw ]; then
      ok "extent-size-hint 1.5 MiB on 1 MiB realtime extents: refused, nothing left: $(echo "$out" | grep -o 'Could not set an extent size hint[^(]*' | head -1)"
    else
      bad "extent-size-hint 1.5 MiB on a realtime file: exit $status, $(ls /tmp/rt): $(echo "$out" | grep ERROR | head -2)"
    fi
    # over a file already there (a plain location replaces it, as filesink
    # does): the refused start leaves it as it came, not realtime
    echo mine > /tmp/rt/user.raw
    gst-launch-1.0 -q videotestsrc num-buffers=2 ! "$caps" ! \
      rtframesink location=/tmp/rt/user.raw realtime=true extent-size-hint=1572864 \
      > /dev/null 2>&1
    x=$(xfs_io -r -c stat /tmp/rt/user.raw | awk '/fsxattr.xflags/ {print $3}')
    [ -f /tmp/rt/user.raw ] && [ $((x & 1)) -eq 0 ] \
      && ok "the refused hint over a file already there: not left realtime (xflags $x)" \
      || bad "the refused hint over a file already there: xflags $x"
  fi
  umount /tmp/rt
done
exit $fail
