#!/bin/bash
# rtframe-export, as a user runs it: recordings made by rtframesink
# (P010_10LE, GRAY8, GRAY16_LE, a rotated set whose first files max-files
# deleted, a spread over two directories), exported, and every export
# compared byte for byte with what was recorded - the Matroska file
# decoded back (matroskademux ! avdec_ffv1 ! videoconvert dither=none to
# the recorded format), the raw export, and rtframesrc ! filesink of the
# same frames; the frame counts; the stills' depth; the refusals and
# their exit status.  Skips (77) without avenc_ffv1 (gstreamer1.0-libav).
#   test-export.sh BUILD_DIR
build=$1
export_=$build/tools/rtframe-export
dump=$build/tools/rtframe-dump
work=$(mktemp -d "${TMPDIR:-/tmp}/rtf-export.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
fail=0
. "$(dirname "$0")/asan-prefix.sh"
# (a sanitizer build: what library constructors keep is not a leak; the
# slow unwinder sees through GLib, built without frame pointers, to them)
export LSAN_OPTIONS="suppressions=$(cd "$(dirname "$0")" && pwd)/lsan.supp:print_suppressions=0"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"

for e in avenc_ffv1 avdec_ffv1 matroskamux matroskademux; do
  if ! "${asan[@]}" gst-inspect-1.0 --exists "$e"; then
    echo "skipped: no $e element (Debian packages gstreamer1.0-libav," \
      "gstreamer1.0-plugins-good)"
    exit 77
  fi
done
if [ ! -x "$export_" ]; then
  echo "skipped: rtframe-export not built (no gstreamer-app)"; exit 77
fi

ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fail=1; }

record() {  # location, frames, format, width, height, extra properties...
  local loc=$1 n=$2 format=$3 w=$4 h=$5; shift 5
  "${asan[@]}" gst-launch-1.0 -q videotestsrc num-buffers="$n" ! \
    "video/x-raw,format=$format,width=$w,height=$h,framerate=30/1" ! \
    rtframesink location="$loc" "$@" >/dev/null
}

# frames FIRST..LAST of a recording as rtframesrc plays them (every frame
# of size SIZE, numbered from FIRST0 on): rtframesrc ! filesink, cut
played() {  # location, size, first0, first, last, out
  "${asan[@]}" gst-launch-1.0 -q rtframesrc location="$1" ! \
    filesink location="$work/played.all" >/dev/null || return 1
  dd if="$work/played.all" bs="$2" skip=$(($4 - $3)) count=$(($5 - $4 + 1)) \
    of="$6" status=none
}

# the mkv decoded back to FORMAT
decoded() {  # mkv, format, out
  "${asan[@]}" gst-launch-1.0 -q filesrc location="$1" ! matroskademux ! \
    avdec_ffv1 ! videoconvert dither=none ! "video/x-raw,format=$2" ! \
    filesink location="$3" >/dev/null
}

# One recording, one range: mkv and raw exported, the decoded mkv, the raw
# export and rtframesrc's frames the same bytes, N frames
round_trip() {  # name, location, format, size, first0, first, last
  local name=$1 loc=$2 format=$3 size=$4 first0=$5 from=$6 to=$7 d=$work/$1
  local n=$((to - from + 1)) lines
  mkdir -p "$d"
  "$export_" --from "$from" --to "$to" --format mkv -o "$d/x.mkv" "$loc" \
    2>"$d/err" || { bad "$name: mkv export: $(cat "$d/err")"; return; }
  "$export_" --from "$from" --to "$to" --format raw -o "$d/x.raw" "$loc" \
    >"$d/list" 2>"$d/err" || { bad "$name: raw export: $(cat "$d/err")"; return; }
  decoded "$d/x.mkv" "$format" "$d/dec.raw" || { bad "$name: decoding"; return; }
  played "$loc" "$size" "$first0" "$from" "$to" "$d/played.raw" ||
    { bad "$name: rtframesrc ! filesink"; return; }
  lines=$(($(wc -l <"$d/list") - 1))
  if [ "$(stat -c %s "$d/x.raw")" -ne $((n * size)) ] || [ "$lines" -ne "$n" ]; then
    bad "$name: raw export of $(stat -c %s "$d/x.raw") bytes, $lines lines, not $n frames"
  elif [ "$(sed -n 2p "$d/list" | cut -d, -f1)" != "$from" ] ||
      [ "$(tail -1 "$d/list" | cut -d, -f1)" != "$to" ]; then
    bad "$name: raw export's list is not frames $from to $to"
  elif ! cmp -s "$d/x.raw" "$d/played.raw"; then
    bad "$name: raw export differs from rtframesrc ! filesink"
  elif ! cmp -s "$d/dec.raw" "$d/x.raw"; then
    bad "$name: the mkv decoded differs from the frames recorded"
  else
    ok "$name: frames $from-$to, mkv and raw byte-exact ($n frames)"
  fi
}

# 10-bit: P010_10LE as FFV1's I420_10LE and back
record "$work/p010.raw" 30 P010_10LE 64 48
round_trip p010 "$work/p010.raw" P010_10LE 9216 0 5 14
# (widths whose rows need no padding: FFV1 keeps the pixels, and a
# decoder leaves the padding of a row as its memory held it)
record "$work/gray8.raw" 20 GRAY8 36 7
round_trip gray8 "$work/gray8.raw" GRAY8 252 0 0 19
record "$work/gray16.raw" 10 GRAY16_LE 34 7
round_trip gray16 "$work/gray16.raw" GRAY16_LE 476 0 2 7

# a rotated set whose first files max-files deleted: numbers from there
record "$work/set-%03d.raw" 40 GRAY8 64 32 max-file-size=20480 max-files=2
first0=$("$dump" "$work/set-%03d.raw" 2>/dev/null | sed -n 2p | cut -d, -f1)
if [ -z "$first0" ] || [ "$first0" -eq 0 ]; then
  bad "the set's first frame kept is $first0, not after 0"
else
  round_trip set "$work/set-%03d.raw" GRAY8 2048 "$first0" $((first0 + 3)) 39
fi

# a spread over two directories, played through its manifest
mkdir "$work/a" "$work/b"
"${asan[@]}" gst-launch-1.0 -q videotestsrc num-buffers=20 ! \
  video/x-raw,format=GRAY8,width=64,height=32,framerate=30/1 ! rtframesink \
  "locations=<\"$work/a/sp-%03d.raw\",\"$work/b/sp-%03d.raw\">" \
  placement=round-robin >/dev/null
round_trip spread "$work/a/sp-.raw.rtfspread" GRAY8 2048 0 3 16

# --frames, and a time range: [0.2 s, 0.5 s) at 30 fps is frames 6 to 14
"$export_" --from 10 --frames 4 --format raw -o "$work/k.raw" "$work/p010.raw" \
  >"$work/k.list" 2>/dev/null
[ "$(cut -d, -f1 "$work/k.list" | tail -n +2 | tr '\n' ' ')" = "10 11 12 13 " ] &&
  ok "--frames 4 from 10" || bad "--frames: $(cat "$work/k.list")"
"$export_" --from-time 0.2 --to-time 0.5 --format raw -o "$work/t.raw" \
  "$work/p010.raw" >"$work/t.list" 2>/dev/null
[ "$(cut -d, -f1 "$work/t.list" | tail -n +2 | tr '\n' ' ')" = "6 7 8 9 10 11 12 13 14 " ] &&
  ok "--from-time 0.2 --to-time 0.5" || bad "time range: $(cat "$work/t.list")"

# stills: 16 bits for 10-bit and 16-bit formats, 8 for 8-bit; named by
# the frame's number
still() {  # name, location, format (png, tiff), from, to, what file(1) says
  local name=$1 d=$work/still-$1
  mkdir "$d"
  "$export_" --from "$4" --to "$5" --format "$3" -o "$d/s-%05d.$3" "$2" \
    2>"$d/err" || { bad "still $name: $(cat "$d/err")"; return; }
  local n=$(ls "$d" | grep -c "^s-")
  if [ "$n" -ne $(($5 - $4 + 1)) ] || [ ! -f "$d/s-$(printf %05d "$4").$3" ]; then
    bad "still $name: $(ls "$d")"
  elif ! file "$d/s-$(printf %05d "$5").$3" | grep -q "$6"; then
    bad "still $name: $(file "$d/s-$(printf %05d "$5").$3"), not $6"
  else
    ok "still $name: $n files, $6"
  fi
}
if command -v file >/dev/null; then
  still p010-png "$work/p010.raw" png 3 5 "16-bit/color RGB"
  still gray16-png "$work/gray16.raw" png 0 1 "16-bit grayscale"
  still gray8-png "$work/gray8.raw" png 7 7 "8-bit grayscale"
  still p010-tiff "$work/p010.raw" tiff 3 4 "TIFF image data"
else
  echo "note: no file(1): the stills' depth is checked by Python only"
fi
# a 16-bit PNG read back: its CRCs, its rows, the gray samples recorded
# (GRAY16_LE written big-endian)
mkdir "$work/py"
"$export_" --from 4 --to 4 --format png -o "$work/py/g-%d.png" \
  "$work/gray16.raw" 2>/dev/null
dd if="$work/gray16.raw" bs=476 skip=4 count=1 of="$work/py/rec" status=none
if /usr/bin/python3 - "$work/py/g-4.png" "$work/py/rec" <<'PY'; then
import struct, sys, zlib
d = open(sys.argv[1], "rb").read()
rec = open(sys.argv[2], "rb").read()
assert d[:8] == b"\x89PNG\r\n\x1a\n"
i, idat, ihdr = 8, b"", None
while i < len(d):
    n, = struct.unpack(">I", d[i:i + 4])
    t, c = d[i + 4:i + 8], d[i + 8:i + 8 + n]
    assert zlib.crc32(t + c) == struct.unpack(">I", d[i + 8 + n:i + 12 + n])[0]
    if t == b"IHDR":
        ihdr = struct.unpack(">IIBB", c[:10])
    if t == b"IDAT":
        idat += c
    i += 12 + n
w, h, depth, color = ihdr
assert (w, h, depth, color) == (34, 7, 16, 0), ihdr
rows = zlib.decompress(idat)
stride = 68  # GRAY16 34 wide
for y in range(h):
    row = rows[y * (1 + 2 * w) + 1:(y + 1) * (1 + 2 * w)]
    want = rec[y * stride:y * stride + 2 * w]
    got = b"".join(row[x:x + 2][::-1] for x in range(0, 2 * w, 2))
    assert got == want, y
PY
  ok "a 16-bit gray PNG holds the recorded samples"
else
  bad "the 16-bit gray PNG read back"
fi

# refusals: exit 2, nothing written, nothing replaced
expect() {  # name, status, args...
  local name=$1 want=$2 status; shift 2
  "$export_" "$@" >/dev/null 2>"$work/err"; status=$?
  if [ "$status" -ne "$want" ]; then
    bad "$name: exit $status, not $want: $(cat "$work/err")"
  else
    ok "$name: exit $want ($(head -1 "$work/err"))"
  fi
}
mkdir "$work/r"
echo keep >"$work/r/exists.mkv"
expect "an output that exists" 2 --format mkv -o "$work/r/exists.mkv" "$work/gray8.raw"
[ "$(cat "$work/r/exists.mkv")" = keep ] || bad "the existing output was changed"
expect "--overwrite replaces it" 0 --overwrite --format mkv -o "$work/r/exists.mkv" \
  --to 1 "$work/gray8.raw"
echo target >"$work/r/target"
ln -s target "$work/r/link.raw"
expect "an output that is a symbolic link" 2 --overwrite --format raw \
  -o "$work/r/link.raw" "$work/gray8.raw"
[ "$(cat "$work/r/target")" = target ] && [ -L "$work/r/link.raw" ] ||
  bad "the link or its target was changed"
touch "$work/r/s-00002.png"
expect "a still that exists among the frames" 2 --from 0 --to 3 --format png \
  -o "$work/r/s-%05d.png" "$work/gray8.raw"
[ ! -e "$work/r/s-00000.png" ] || bad "stills written before the refusal"
expect "--to past the recording" 2 --to 20 --format raw -o "$work/r/x.raw" "$work/gray8.raw"
expect "--from past the recording" 2 --from 99 --format raw -o "$work/r/x.raw" "$work/gray8.raw"
expect "--to before --from" 2 --from 5 --to 4 --format raw -o "$work/r/x.raw" "$work/gray8.raw"
expect "--frames past the end" 2 --from 15 --frames 9 --format raw -o "$work/r/x.raw" "$work/gray8.raw"
expect "a time range without frames" 2 --from-time 100 --format raw -o "$work/r/x.raw" "$work/gray8.raw"
expect "frames and times" 2 --from 1 --to-time 1 --format raw -o "$work/r/x.raw" "$work/gray8.raw"
expect "an unknown format" 2 --format avi -o "$work/r/x.avi" "$work/gray8.raw"
expect "no format" 2 -o "$work/r/x.raw" "$work/gray8.raw"
expect "a still name without a number" 2 --format png -o "$work/r/still.png" "$work/gray8.raw"
expect "no such recording" 1 --format raw -o "$work/r/x.raw" "$work/none.raw"
expect "an unknown option" 2 --no-such-option "$work/gray8.raw"
expect "stills named with time fields" 2 --format png -o "$work/r/t-%H-%05d.png" "$work/gray8.raw"
# the adversarial read of issue 26: --overwrite over the recording read
# replaced it (and recover then cut its frames); an interrupted
# --overwrite run deleted the user's files it had replaced
sum=$(cat "$work/gray8.raw" "$work/gray8.raw.idx" | md5sum)
expect "--overwrite over the recording itself" 2 --overwrite --format mkv \
  -o "$work/gray8.raw" "$work/gray8.raw"
expect "--overwrite over the recording's index" 2 --overwrite --format raw \
  -o "$work/gray8.raw.idx" "$work/gray8.raw"
expect "--overwrite over another recording's index" 2 --overwrite --format raw \
  -o "$work/gray16.raw.idx" "$work/gray8.raw"
[ "$(cat "$work/gray8.raw" "$work/gray8.raw.idx" | md5sum)" = "$sum" ] ||
  bad "the recording was changed by an export over it"
mkdir -p "$work/keep"
record "$work/keep/big.raw" 120 P010_10LE 1024 512
for i in 0 1 2 119; do echo "precious $i" > "$work/keep/b-$i.png"; done
"${asan[@]}" "$export_" --overwrite --format png -o "$work/keep/b-%d.png" \
  "$work/keep/big.raw" 2>"$work/keep/err" & pid=$!
sleep 1; kill -INT $pid; wait $pid; status=$?
if [ $status -ne 1 ] || ! grep -q "interrupted before frame" "$work/keep/err"; then
  bad "an --overwrite run interrupted mid-way: exit $status: $(cat "$work/keep/err")"
else
  kept=0
  for i in 0 1 2 119; do
    [ "$(cat "$work/keep/b-$i.png")" = "precious $i" ] && kept=$((kept + 1))
  done
  left=$(ls -A "$work/keep" | grep -v -e '^big.raw' -e '^b-[0-9]*.png$' -e '^err$')
  [ $kept -eq 4 ] && [ -z "$left" ] &&
    ok "an interrupted --overwrite run put back the 4 files it had replaced, left nothing" ||
    bad "after an interrupted --overwrite run: $kept of 4 files as they were; left: $left"
fi
leftover=$(ls -A "$work/r" | grep -v -e '^exists.mkv$' -e '^target$' -e '^link.raw$' -e '^s-00002.png$')
[ -z "$leftover" ] && ok "the refusals left nothing behind" ||
  bad "left behind: $leftover"
exit $fail
