#!/bin/bash
# gst-play-1.0, the player a user tries first, plays a recording by its
# rtframe:// URI (issue 26: "Could not determine type of stream"): a
# rotated set whose first files max-files deleted, every frame once, in
# order, each buffer's offset the recording's frame number.  Skips (77)
# without gst-play-1.0 (gstreamer1.0-plugins-base-apps).
work=$(mktemp -d "${TMPDIR:-/tmp}/rtf-gst-play.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
if ! command -v gst-play-1.0 >/dev/null; then
  echo "skipped: no gst-play-1.0 (apt-get install gstreamer1.0-plugins-base-apps)"
  exit 77
fi
. "$(dirname "$0")/asan-prefix.sh"
"${asan[@]}" gst-launch-1.0 -q videotestsrc num-buffers=60 ! \
  video/x-raw,format=GRAY8,width=64,height=32,framerate=20/1 ! \
  rtframesink location="$work/cam-%03d.raw" max-file-size=20480 \
  max-files=3 >/dev/null || { echo "FAIL: recording"; exit 1; }
# (a URI writes the pattern's '%' as %25)
out=$(timeout 60 "${asan[@]}" gst-play-1.0 -v --videosink="fakesink silent=false" \
  "rtframe://$work/cam-%2503d.raw" 2>&1); status=$?
offsets=$(grep -o 'last-message = chain .* offset: [0-9]*' <<<"$out" \
  | sed 's/.*offset: //' | tr '\n' ' ')
want=$(seq -s ' ' 30 59)' '
if [ $status -ne 0 ] || [ "$offsets" != "$want" ]; then
  echo "FAIL: gst-play-1.0 exit $status, offsets played: $offsets"
  echo "wanted: $want"
  tail -5 <<<"$out"
  exit 1
fi
echo "ok: gst-play-1.0 played frames 30-59 of rtframe://$work/cam-%2503d.raw"
