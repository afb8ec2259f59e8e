#!/usr/bin/env bash
# Runs the examples as a user would: a clean recording exits 0 and prints a
# summary; an event recording (--trigger, pre-record) writes exactly the
# frames of its windows; a recording that drops frames (its output is a FIFO nobody reads
# for 2 s, leaky=upstream) exits 3; the long-recording walkthrough
# (record 3 rotated streams, SIGKILL, recover, verify, play back with
# seeks) ends well.  Args: <rtframe-record binary> <.py>
# <long-recording.sh> <build dir>
set -u
c_example=$1
py_example=$2
long_example=${3:-}
build_dir=${4:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
caps="video/x-raw,format=P010_10LE,width=640,height=480,framerate=20/1"
big="video/x-raw,format=P010_10LE,width=1920,height=1080,framerate=20/1"

python=/usr/bin/python3
if ! $python -c 'import gi; gi.require_version("Gst", "1.0")' 2>/dev/null; then
  python=""
fi
# A plugin built with AddressSanitizer (tools/test.sh --sanitize) only loads
# into a process that has the ASan runtime: preload it into Python (whose
# own allocations are not ours to check for leaks).
. "$(dirname "$0")/asan-prefix.sh"
pyenv=("${asan[@]}")

check() {  # name, expected status, command...
  local name=$1 want=$2; shift 2
  local out status
  out=$("$@" 2>&1); status=$?
  if [ "$status" -ne "$want" ]; then
    echo "FAIL: $name exited $status, expected $want"; echo "$out" | tail -20; fail=1; return
  fi
  if ! grep -q "^summary" <<<"$out"; then
    echo "FAIL: $name printed no summary"; echo "$out" | tail -20; fail=1; return
  fi
  echo "ok: $name (exit $status)"
  echo "$out" | sed -n '/^summary/,$p'
}

clean_run() {  # name, command...
  local name=$1; shift
  rm -rf "$work/clean"; mkdir -p "$work/clean"
  check "$name clean" 0 "$@" --streams 2 --seconds 1 --dir "$work/clean" --caps "$caps"
  for s in 0 1; do
    size=$(stat -c %s "$work/clean/cam$s.raw" 2>/dev/null || echo 0)
    if [ "$size" -ne $((20 * 921600)) ]; then
      echo "FAIL: $name cam$s.raw is $size bytes"; fail=1
    fi
  done
}

dropping_run() {  # name, command...
  local name=$1; shift
  rm -rf "$work/drop"; mkdir -p "$work/drop"
  mkfifo "$work/drop/cam0.raw"
  # the reader opens at once (so the sink can open) but reads only after
  # 2 s; bounded, so an example that fails before opening cannot hang us
  timeout 60 bash -c 'exec 3<"$1"; sleep 2; cat <&3 > /dev/null' _ \
    "$work/drop/cam0.raw" &
  check "$name dropping" 3 "$@" --streams 1 --seconds 2 --dir "$work/drop" \
    --caps "$big" --sink-props "max-size-buffers=2 leaky=upstream"
  wait
}

event_run() {  # name, command...: --trigger, one event 1 s in
  local name=$1; shift
  rm -rf "$work/event"; mkdir -p "$work/event"
  # 0.5 s held before the trigger and 1 s after: 10 + 20 frames a camera,
  # whatever the trigger's running time (the windows are half-open)
  check "$name event" 0 "$@" --streams 2 --seconds 3 --dir "$work/event" \
    --caps "$caps" --trigger --event 1 --pre-record 0.5 --post-record 1 \
    </dev/null
  for s in 0 1; do
    f=$work/event/cam$s-event-00000.raw
    size=$(stat -c %s "$f" 2>/dev/null || echo 0)
    if [ "$size" -ne $((30 * 921600)) ]; then
      echo "FAIL: $name $f is $size bytes, not 30 frames"; fail=1
    elif [ -n "$build_dir" ] && ! "$build_dir/tools/rtframe-verify" "$f" \
        | grep -q "^1 recording (events), 10 frames held"; then
      echo "FAIL: $name $f: rtframe-verify does not see 10 held frames"; fail=1
    fi
  done
  if ls "$work/event"/cam*-event-00001.raw >/dev/null 2>&1; then
    echo "FAIL: $name a second event file"; fail=1
  fi
}

clean_run C "$c_example"
event_run C "$c_example"
dropping_run C "$c_example"
if [ -n "$python" ]; then
  clean_run Python "${pyenv[@]}" $python "$py_example"
  event_run Python "${pyenv[@]}" $python "$py_example"
  dropping_run Python "${pyenv[@]}" $python "$py_example"
else
  echo "Python example skipped: /usr/bin/python3 has no gi (apt-get install python3-gi gir1.2-gstreamer-1.0)"
fi

# Ctrl-C: the recording ends with EOS and a summary, exit 0, no traceback
# and no "dispose element ... in PLAYING" (issue 25)
ctrl_c_run() {  # name, command...
  local name=$1; shift
  rm -rf "$work/ctrlc"; mkdir -p "$work/ctrlc"
  "$@" --streams 2 --seconds 60 --dir "$work/ctrlc" --caps "$caps" \
    > "$work/ctrlc.out" 2>&1 < /dev/null &
  local pid=$!
  sleep 2
  kill -INT $pid
  wait $pid; local status=$?
  if [ $status -ne 0 ] || ! grep -q "^summary" "$work/ctrlc.out" \
      || grep -qE "Traceback|dispose element|CRITICAL" "$work/ctrlc.out"; then
    echo "FAIL: $name Ctrl-C: exit $status"; tail -15 "$work/ctrlc.out"; fail=1
    return
  fi
  for s in 0 1; do
    if [ -n "$build_dir" ] && ! "$build_dir/tools/rtframe-verify" -q \
        "$work/ctrlc/cam$s.raw" > /dev/null 2>&1; then
      echo "FAIL: $name Ctrl-C: cam$s.raw does not verify"; fail=1
    fi
  done
  echo "ok: $name Ctrl-C (exit 0, summary, files verify)"
}
ctrl_c_run C "$c_example"
[ -n "$python" ] && ctrl_c_run Python "${pyenv[@]}" $python "$py_example"

# the walkthrough of docs/recording.md, on small frames
if [ -n "$long_example" ] && [ -n "$python" ]; then
  out=$(RTFRAME_BUILD="$build_dir" "${pyenv[@]}" bash "$long_example" \
    "$work/long" "$caps" 2>&1); status=$?
  if [ $status -ne 0 ] \
      || ! grep -q "^long-recording: recorded, recovered, verified" <<<"$out" \
      || ! grep -q "seek to frame 27: frame 27," <<<"$out" \
      || [ "$(grep -c '^OK$' <<<"$out")" -ne 3 ]; then
    echo "FAIL: long-recording.sh (exit $status)"; echo "$out" | tail -30; fail=1
  else
    echo "ok: long-recording.sh"
    echo "$out" | grep -E "^(==|seek|files|long)"
  fi
fi
exit $fail
