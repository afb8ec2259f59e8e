#!/bin/bash
# rtframe-verify --json: one JSON object on stdout that Python's json
# module reads, saying what the text says - for a whole recording, one
# with a damaged frame, one that cannot be read, and paths that are not
# UTF-8 and hold quotes (issue 26).
#   test-verify-json.sh BUILD_DIR
build=$1
verify=$build/tools/rtframe-verify
python=/usr/bin/python3
work=$(mktemp -d "${TMPDIR:-/tmp}/rtf-verify-json.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
fail=0
. "$(dirname "$0")/asan-prefix.sh"

record() {  # location, frames, extra properties...
  local loc=$1 n=$2; shift 2
  "${asan[@]}" gst-launch-1.0 -q videotestsrc num-buffers="$n" ! \
    video/x-raw,format=GRAY8,width=64,height=32,framerate=20/1 ! \
    rtframesink location="$loc" checksums=true "$@" >/dev/null
}

# expect NAME STATUS PYTHON-CONDITION LOCATION: the exit status, and the
# condition on the parsed object d
expect() {
  local name=$1 want=$2 cond=$3 loc=$4 out status
  out=$("$verify" --json "$loc" 2>/dev/null); status=$?
  if [ "$status" -ne "$want" ]; then
    echo "FAIL: $name: exit $status, not $want"; fail=1; return
  fi
  if ! $python -c 'import json, sys
d = json.loads(sys.argv[1])
sys.exit(0 if eval("(" + sys.argv[2] + ")") else 1)' "$out" "$cond"; then
    echo "FAIL: $name: not ($cond):"; echo "$out" | head -c 2000; echo; fail=1
    return
  fi
  echo "ok: $name"
}

record "$work/set-%03d.raw" 30 max-file-size=20480 max-files=2
expect "a rotated set" 0 'd["verdict"] == "OK" and d["exit"] == 0 and
  [f["number"] for f in d["files"]] == [1, 2] and d["frames"] == 20 and
  d["faults"] == [] and d["files"][0]["caps"].startswith("video/x-raw")' \
  "$work/set-%03d.raw"

# one byte of the second frame changed: a checksum fault, kept
record "$work/bad.raw" 5
printf '\xff' | dd of="$work/bad.raw" bs=1 seek=3000 conv=notrunc status=none
expect "a damaged frame" 1 'd["verdict"] == "FAULTS FOUND" and
  d["exit"] == 1 and len(d["faults"]) == 1 and "is corrupt: CRC32C" in d["faults"][0]
  and d["files"][0]["fault-count"] == 1' "$work/bad.raw"

expect "no recording" 2 'd["verdict"] == "unreadable" and d["exit"] == 2
  and "No such file" in d["error"]' "$work/none.raw"

# (recorded under a plain name: gst-launch's parser takes no quotes)
odd=$work/$'q"\\\xff\x01'
mkdir "$work/plain"
record "$work/plain/cam.raw" 3
mv "$work/plain" "$odd"
expect "a path of quotes, a backslash, a byte that is no UTF-8, a control
  character" 0 'd["verdict"] == "OK" and d["files"][0]["path"].endswith(
  "q\"\\\ufffd\x01/cam.raw")' "$odd/cam.raw"
exit $fail
