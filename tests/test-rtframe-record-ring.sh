#!/usr/bin/env bash
# rtframe-record with pre-record on the disk (pre-record-on=disk): three
# cameras, two timed events.  Against what was asked: each event's
# manifest names on every camera its frames from its trigger less
# pre-record to its trigger plus post-record (by running time); rtframe-verify
# reads it as one event; rtframe-export writes exactly those frames for
# every camera; the ring keeps about pre-record's seconds; bad settings
# are refused before anything is made.
# Args: <rtframe-record> <build dir>
set -u
rec=$(readlink -f "$1")
build_dir=$(readlink -f "$2")
verify="$build_dir/tools/rtframe-verify"
export_=$build_dir/tools/rtframe-export
work=$(mktemp -d)
trap '[ -n "${KEEP_WORK:-}" ] || rm -rf "$work"' EXIT
fail=0
CAPS="video/x-raw,format=GRAY16_LE,width=512,height=256,framerate=20/1"

bad() {  # name, expected words, args...: exit 2, nothing made
  local name=$1 says=$2 out status; shift 2
  rm -rf "$work/bad"; mkdir -p "$work/bad"
  out=$(cd "$work/bad" && timeout 10 "$rec" --dir "$work/bad" "$@" 2>&1); status=$?
  if [ $status -ne 2 ] || ! grep -qF -- "$says" <<<"$out" \
      || [ -n "$(ls -A "$work/bad")" ]; then
    echo "FAIL: bad input ($name): exit $status, made: $(ls "$work/bad"): $out" | head -5
    fail=1
  else
    echo "ok: bad input ($name): $(head -1 <<<"$out")"
  fi
}
bad "pre-record on disk without events" "is for events" --pre-record-on disk --seconds 1
bad "pre-record on neither" "neither memory nor disk" --trigger --pre-record-on sideways
bad "pre-record on disk of 0 s" "more than 0" --trigger --pre-record 0 \
  --pre-record-on disk
printf '[recorder]\nevents=true\npre-record-on=tape\n[camera a]\nsource=videotestsrc\n' \
  > "$work/tape.conf"
bad "pre-record-on in a config" "neither memory nor disk" --config "$work/tape.conf"

# ---- the shipped rig, its cameras played by videotestsrc ----------------
rig=$(dirname "$0")/../examples/rigs/events-on-disk.conf
mkdir -p "$work/rig"
sed -e "s|^dir=.*|dir=$work/rig|" -e '/^require-mount=/d' \
  -e 's|^source=.*|source=videotestsrc is-live=true|' \
  -e 's|^caps=.*|caps=video/x-raw,format=GRAY8,width=320,height=240,framerate=20/1|' \
  "$rig" > "$work/rig.conf"
out=$(timeout 30 "$rec" --config "$work/rig.conf" --seconds 2 --event 1 \
  --pre-record 500ms --post-record 500ms 2>&1); st=$?
if [ $st -ne 0 ] || [ ! -d "$work/rig/left-event-00000" ] \
    || ! "$verify" -q "$work/rig/event-1.rtftake" > /dev/null 2>&1; then
  echo "FAIL: the shipped events-on-disk.conf (exit $st): $(ls "$work/rig")"
  echo "$out" | tail -5; fail=1
else
  echo "ok: the shipped events-on-disk.conf records an event that verifies"
fi

# ---- two events on three cameras -------------------------------------
# (its metrics read 3.5 s in, before the first event: how far back an
# event would reach, by each camera)
mkdir -p "$work/rec"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
timeout 60 "$rec" --dir "$work/rec" --streams 3 --caps "$CAPS" --trigger \
  --event 4 --event 8 --pre-record 2 --post-record 1 --pre-record-on disk \
  --http "127.0.0.1:$port" --seconds 11 > "$work/rec.out" 2>&1 &
pid=$!
sleep 3.5
metrics=$(curl -s "http://127.0.0.1:$port/metrics" || true)
status_json=$(curl -s "http://127.0.0.1:$port/status" || true)
wait $pid; status=$?
out=$(cat "$work/rec.out")
reach=$(awk '/^rtframe_pre_record_seconds\{/ { n++; if ($2 >= 1.85 && $2 <= 2.0) ok++ }
  END { print ok + 0, n + 0 }' <<<"$metrics")
if [ "$reach" != "3 3" ]; then
  echo "FAIL: 3.5 s in, an event would not reach 2 s back on every camera" \
    "($reach): $(grep '^rtframe_pre_record' <<<"$metrics")"; fail=1
else
  echo "ok: 3.5 s in, rtframe_pre_record_seconds is 1.85-2 s on every camera"
fi
spans=$(python3 -c 'import json, sys
j = json.load(sys.stdin)
print(sum(1 for c in j["cameras"] if 1.85e9 <= c["pre-record-ns"] <= 2e9))' <<<"$status_json" 2>&1)
if [ "$spans" != 3 ]; then
  echo "FAIL: /status pre-record-ns 3.5 s in: $spans: $status_json"; fail=1
else
  echo "ok: /status says the same (pre-record-ns)"
fi
if [ $status -ne 0 ]; then
  echo "FAIL: the recording exited $status:"; echo "$out" | tail -20; exit 1
fi
n=0
for m in "$work"/rec/event-*.rtftake; do
  [ -f "$m" ] || continue
  n=$((n + 1))
  id=$(basename "$m" .rtftake)
  # asked: from the trigger less 2 s to 1 s after it.  The demo's cameras
  # are live sources started one after another, so their frames' running
  # times (and numbers) differ between cameras: each camera's first frame
  # is its first at or after trigger - 2 s, its last its last before
  # trigger + 1 s (frames every 50 ms)
  bounds=$(awk -F= -v P=2000000000 -v Q=1000000000 -v F=50000000 '
    /^running-time=/ { t = $2 }
    /^\[camera / { cam = substr($0, 9, length($0) - 9) }
    /^first-frame=/ { ff = $2 }
    /^last-frame=/ { lf = $2 }
    /^first-running-time=/ { fr = $2 }
    /^last-running-time=/ { lr = $2;
      ok = fr >= t - P && fr < t - P + F && lr < t + Q && lr >= t + Q - F
      printf "%s %s %s %.0f %.0f %s %.0f %.0f\n", cam, ff, lf, fr, lr,
        (ok ? "ok" : "WRONG"), t - P, t + Q
    }' "$m")
  if [ "$(grep -c ' ok ' <<<"$bounds")" != 3 ]; then
    echo "FAIL: $id: each camera's first and last frames against the" \
      "times asked (camera, frames, running times, verdict, asked):"
    echo "$bounds"; fail=1
  fi
  if ! "$verify" -q "$m" > "$work/v" 2>&1; then
    echo "FAIL: rtframe-verify $id:"; cat "$work/v"; fail=1
  fi
  if [ -x "$export_" ]; then
    if ! (cd "$work" && "$export_" -f raw "$m" > "$work/x" 2>&1); then
      echo "FAIL: rtframe-export $id:"; cat "$work/x"; fail=1
    else
      while read -r cam first last _; do
        if ! grep -q "$((last - first + 1)) frames ($first to $last) written to .*$cam" "$work/x"; then
          echo "FAIL: rtframe-export $id $cam: $(cat "$work/x")"; fail=1
        fi
      done <<<"$bounds"
    fi
  fi
  echo "ok: $id: every camera's frames as asked, verified and exported:"
  echo "$bounds"
done
if [ $n -ne 2 ]; then
  echo "FAIL: $n event manifests, not 2: $(ls "$work/rec")"; fail=1
fi
# the ring turned: no more than pre-record (40 frames) and two 1 s files
for cam in cam0 cam1 cam2; do
  frames=$("$build_dir/tools/rtframe-dump" "$work/rec/$cam-ring-%05d.raw" \
    2>/dev/null | tail -n +2 | wc -l)
  if [ "$frames" -gt $((40 + 2 * 20)) ]; then
    echo "FAIL: $cam's ring holds $frames frames"; fail=1
  fi
done
echo "ok: the rings hold pre-record and a file or two"
exit $fail
