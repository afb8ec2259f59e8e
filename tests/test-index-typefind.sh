#!/bin/bash
# A recording played through its index (issue: "a typefinder for the
# index so gst-play-1.0/playbin open a recording"): gst-typefind-1.0
# names an index application/x-rtframe-index and a spread's manifest
# application/x-rtframe-spread; playbin and gst-play-1.0 given the .idx of
# one file, of a file of a rotated set (max-files deleted its first
# files: frames 30-59) and of a spread's location play the whole
# recording, every frame once, in order, each buffer's offset its frame
# number; whole-recording=false plays the file alone.  Errors: the index
# pushed over a pipe (no file URI), its data file gone, bytes that are no
# index; a raw data file still fails as before ("Could not determine
# type").  Skips (77) without gst-play-1.0 or gst-typefind-1.0.
work=$(mktemp -d "${TMPDIR:-/tmp}/rtf-index-typefind.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
for p in gst-play-1.0 gst-typefind-1.0; do
  if ! command -v $p >/dev/null; then
    echo "skipped: no $p (apt-get install gstreamer1.0-plugins-base-apps gstreamer1.0-tools)"
    exit 77
  fi
done
. "$(dirname "$0")/asan-prefix.sh"
fail=0
caps='video/x-raw,format=GRAY8,width=64,height=32,framerate=20/1'
record () {
  "${asan[@]}" gst-launch-1.0 -q videotestsrc num-buffers="$1" ! $caps ! \
    rtframesink "${@:2}" >/dev/null || { echo "FAIL: recording $*"; exit 1; }
}
record 60 location="$work/one.raw"
record 60 location="$work/cam-%03d.raw" max-file-size=20480 max-files=3
mkdir -p "$work/a" "$work/b"
record 40 locations="<\"$work/a/c-%03d.raw\",\"$work/b/c-%03d.raw\">" \
  max-file-size=20480
# a set named with times, its files begun in different seconds (live,
# 3 s): the demuxer found only those of one second (the adversarial read
# of issue 26)
mkdir -p "$work/t"
"${asan[@]}" gst-launch-1.0 -q videotestsrc is-live=true num-buffers=60 ! $caps ! \
  rtframesink location="$work/t/c-%F-%H%M%S-%05d.raw" max-file-size=20480 \
  >/dev/null || { echo "FAIL: recording a timed set"; exit 1; }
cp "$work/one.raw.idx" "$work/gone.raw.idx"
record 10 location="$work/gone.raw"
rm "$work/gone.raw"

# the buffers' offsets a fakesink shows, on one line
offsets () {
  grep -o 'last-message = chain .* offset: [0-9]*' | sed 's/.*offset: //' |
    tr '\n' ' '
}
expect () {                     # what want got
  if [ "$2" != "$3" ]; then
    echo "FAIL: $1: got \"$3\""
    echo "  wanted \"$2\""
    fail=1
  else
    echo "ok: $1"
  fi
}
all=$(seq -s ' ' 0 59)' '
set=$(seq -s ' ' 30 59)' '
spread=$(seq -s ' ' 0 39)' '

for f in one.raw.idx cam-004.raw.idx; do
  got=$(timeout 60 "${asan[@]}" gst-typefind-1.0 "$work/$f" 2>&1)
  expect "gst-typefind-1.0 $f" "$work/$f - application/x-rtframe-index" "$got"
done
got=$(timeout 60 "${asan[@]}" gst-typefind-1.0 "$work/a/c-.raw.rtfspread" 2>&1)
expect "gst-typefind-1.0 c-.raw.rtfspread" \
  "$work/a/c-.raw.rtfspread - application/x-rtframe-spread" "$got"

playbin () {
  timeout 60 "${asan[@]}" gst-launch-1.0 -v playbin uri="file://$work/$1" \
    video-sink="fakesink silent=false" 2>&1
}
expect "playbin one.raw.idx" "$all" "$(playbin one.raw.idx | offsets)"
timed=$(cd "$work" && ls t/c-*-00003.raw.idx)
expect "playbin $timed (a set with times in its names)" "$all" \
  "$(playbin "$timed" | offsets)"
expect "playbin cam-004.raw.idx (the set)" "$set" \
  "$(playbin cam-004.raw.idx | offsets)"
expect "playbin b/c-001.raw.idx (the spread)" "$spread" \
  "$(playbin b/c-001.raw.idx | offsets)"
expect "playbin a/c-.raw.rtfspread" "$spread" \
  "$(playbin a/c-.raw.rtfspread | offsets)"
out=$(timeout 60 "${asan[@]}" gst-play-1.0 -v \
  --videosink="fakesink silent=false" "$work/cam-005.raw.idx" 2>&1)
expect "gst-play-1.0 cam-005.raw.idx (the set)" "$set" "$(offsets <<<"$out")"
got=$(timeout 60 "${asan[@]}" gst-launch-1.0 -v filesrc \
  location="$work/cam-004.raw.idx" ! rtframeindexdemux whole-recording=false \
  ! fakesink silent=false 2>&1 | offsets)
expect "whole-recording=false cam-004.raw.idx (the file)" \
  "$(seq -s ' ' 40 49) " "$got"

# errors: the first ERROR line
error_of () {
  grep -m1 '^ERROR: from element' | sed 's/^ERROR: from element [^ ]*: //'
}
got=$(cat "$work/one.raw.idx" | timeout 60 "${asan[@]}" gst-launch-1.0 \
  fdsrc fd=0 ! decodebin ! fakesink 2>&1 | error_of)
expect "an index over a pipe" "Cannot find the recording of this index: \
upstream does not say which file it reads: URI \"fd://0\": not file:// or \
rtframe://." "$got"
got=$(playbin gone.raw.idx | error_of)
expect "an index without its data file" "Cannot play the recording of index \
\"$work/gone.raw.idx\": its data file \"$work/gone.raw\" is not there." "$got"
got=$(timeout 60 "${asan[@]}" gst-launch-1.0 filesrc location="$work/one.raw" \
  ! rtframeindexdemux ! fakesink 2>&1 | error_of)
expect "a data file forced into the demuxer" "Not an rtframe index that this \
build reads: not an rtframe index (bad magic)." "$got"
got=$(playbin one.raw | error_of)
expect "playbin on a raw data file (not claimed)" \
  "Could not determine type of stream." "$got"

exit $fail
