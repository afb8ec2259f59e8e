#!/usr/bin/env bash
# A real GigE Vision camera stack into rtframesink: Aravis's simulated
# camera (arv-fake-gv-camera-0.8, Debian's aravis-tools) serves on
# loopback; aravissrc (libaravis-0.8-0) takes its Mono16 stream at the
# user's frame size (2048x928 at 20 fps: the caps set the camera's pixel
# format, region and rate), a tee gives the same frames to rtframesink and
# to filesink.  Passes when both files hold every frame asked for and are
# byte-identical, the frames move, and rtframe-verify accepts the
# recording.  Skips (exit 77, reason printed) where Aravis is missing.
#
# The camera is named by its address (camera-name=127.0.0.1), the way
# Aravis documents for GigE Vision cameras, so Aravis opens it through the
# interface that address is on.  Found by discovery instead (its id,
# Aravis-Fake-<serial>), the camera on loopback is opened through the
# machine's Ethernet interface (ARV_DEBUG=device: "Interface address =
# 192.0.2.2"), it is told to stream there, the packets go over lo, and
# Aravis's packet socket, bound to that Ethernet interface, sees none of
# them (0 bytes; aravissrc: "Internal data stream error").  Named by
# address, the same packet-socket path takes every frame.
#
# When it may (root, or a user namespace), the test runs in a network
# namespace of its own, whose loopback is the only interface: the camera's
# fixed GVCP port (3956) cannot meet another run's, and no packet leaves
# the namespace.  Otherwise it uses this machine's loopback.
#   test-aravis.sh [FRAMES]      (RTFRAME_TOOLS_DIR: rtframe-verify's dir)
set -euo pipefail
frames=${1:-50}
caps="video/x-raw,format=GRAY16_LE,width=2048,height=928,framerate=20/1"
frame_size=$((2048 * 928 * 2))

skip() {
  echo "SKIP: $*"
  exit 77
}
fail() {
  echo "FAIL: $*"
  exit 1
}

# A plugin built with AddressSanitizer (tools/test.sh --sanitize) only loads
# into a process that has the ASan runtime: preload it into the GStreamer
# tools (without it gst-inspect-1.0 aborts, and aravissrc seemed missing)
plugin="${GST_PLUGIN_PATH_1_0%%:*}/libgstrtframe.so"
. "$(dirname "$0")/asan-prefix.sh"

command -v arv-fake-gv-camera-0.8 >/dev/null ||
  skip "arv-fake-gv-camera-0.8 is not installed (Debian package aravis-tools; tools/install-deps.sh installs it)"
"${asan[@]}" gst-inspect-1.0 aravissrc >/dev/null 2>&1 ||
  skip "GStreamer has no aravissrc element (Debian package libaravis-0.8-0; tools/install-deps.sh installs it)"

# Into a network namespace of its own, once
if [ -z "${RTF_ARAVIS_NETNS:-}" ]; then
  for how in "unshare --net" "unshare --user --map-root-user --net"; do
    if $how true 2>/dev/null; then
      RTF_ARAVIS_NETNS="$how" exec $how -- "$0" "$@"
    fi
  done
  echo "note: no network namespace can be made here: the camera serves on this machine's loopback"
else
  ip link set lo up || fail "could not bring lo up in the namespace"
  echo "in a network namespace of its own ($RTF_ARAVIS_NETNS): lo only"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/rtframe-aravis-XXXXXX")
cam_pid=""
cleanup() {
  if [ -n "$cam_pid" ]; then
    kill "$cam_pid" 2>/dev/null || true
    wait "$cam_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# GVCP port 3956 (0F74) bound on 127.0.0.1 (0100007F)
camera_listens() {
  grep -q "0100007F:0F74" /proc/net/udp
}
if camera_listens; then
  fail "a GigE Vision device already serves on 127.0.0.1:3956 here"
fi
arv-fake-gv-camera-0.8 -i 127.0.0.1 -s RTF15 >"$work/camera.log" 2>&1 &
cam_pid=$!
for _ in $(seq 100); do
  camera_listens && break
  kill -0 "$cam_pid" 2>/dev/null || fail "the fake camera exited: $(cat "$work/camera.log")"
  sleep 0.1
done
camera_listens || fail "the fake camera does not listen on 127.0.0.1:3956 after 10 s"

start=$EPOCHREALTIME
status=0
ARV_DEBUG=device:2,stream:2 timeout 60 "${asan[@]}" gst-launch-1.0 -e \
  aravissrc camera-name=127.0.0.1 num-buffers="$frames" ! "$caps" ! \
  tee name=t \
  t. ! queue ! rtframesink location="$work/cam.raw" \
  t. ! queue ! filesink location="$work/filesink.raw" \
  >"$work/launch.log" 2>&1 || status=$?
end=$EPOCHREALTIME
grep -E "Interface address|Device address|socket method" "$work/launch.log" | sed 's/^/aravis: /' || true
if [ "$status" -ne 0 ]; then
  tail -n 20 "$work/launch.log"
  fail "aravissrc ! rtframesink exited $status"
fi

want=$((frames * frame_size))
for f in cam.raw filesink.raw; do
  size=$(stat -c %s "$work/$f")
  [ "$size" -eq "$want" ] || fail "$f holds $size bytes, not $frames frames of $frame_size"
done
cmp "$work/cam.raw" "$work/filesink.raw" || fail "rtframesink's file differs from filesink's"
# the camera's picture moves: its first and last frames differ
if cmp -s <(head -c "$frame_size" "$work/cam.raw") <(tail -c "$frame_size" "$work/cam.raw"); then
  fail "the first and last frames are the same: the camera did not stream"
fi
"${RTFRAME_TOOLS_DIR:-build/tools}/rtframe-verify" "$work/cam.raw" ||
  fail "rtframe-verify refused the recording"
echo "ok: $frames frames of $caps from aravissrc in $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }') s, rtframesink's file equal to filesink's"
