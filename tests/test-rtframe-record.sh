#!/usr/bin/env bash
# rtframe-record, the recorder program (recorder/), run as a user runs it:
# every bad input ends with its message and exit 2 within a second, nothing
# recorded; a config file's cameras record; SIGTERM and SIGINT end the
# recordings with EOS - the files verify, hold whole frames only and no
# preallocated tail - and a second SIGINT stops at once; SIGHUP starts a
# new file where the location has a pattern.
# Args: <rtframe-record> <build dir>
set -u
rec=$(readlink -f "$1")
build_dir=$(readlink -f "$2")
verify="$build_dir/tools/rtframe-verify"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
FRAME=$((640 * 480))            # GRAY8 640x480

bad() {  # name, expected words, args...: exit 2 within a second, nothing made
  local name=$1 says=$2; shift 2
  local out status t0 t1
  rm -rf "$work/bad"; mkdir -p "$work/bad"
  t0=$(date +%s%N)
  out=$(cd "$work/bad" && timeout 10 "$rec" "$@" 2>&1); status=$?
  t1=$(date +%s%N)
  if [ $status -ne 2 ]; then
    echo "FAIL: bad input ($name): exit $status, not 2"; echo "$out" | tail -5; fail=1
  elif ! grep -qF -- "$says" <<<"$out"; then
    echo "FAIL: bad input ($name): no \"$says\" in: $out"; fail=1
  elif [ $(( (t1 - t0) / 1000000 )) -gt 1000 ]; then
    echo "FAIL: bad input ($name): took $(( (t1 - t0) / 1000000 )) ms"; fail=1
  elif [ -n "$(ls -A "$work/bad")" ]; then
    echo "FAIL: bad input ($name): it made files: $(ls "$work/bad")"; fail=1
  else
    echo "ok: bad input ($name): $(head -1 <<<"$out")"
  fi
}

conf() {  # file, then the lines
  local f=$1; shift
  printf '%s\n' "$@" > "$f"
}

bad "a typo in a sink property" 'did you mean "deadline"' \
  --seconds 1 --sink-props "deadlin=20000000"
bad "a bad enum value" 'is no value for rtframesink' --sink-props "leaky=sideways"
bad "a value out of range" 'out of range' --sink-props "io-depth=100000"
bad "no = in a property" 'not name=value' --sink-props "deadline"
bad "a missing element" 'no element nosuchcamerasrc' --source "nosuchcamerasrc"
bad "a source property typo" 'no property "patern"' --source "videotestsrc patern=ball"
bad "a source that is a filter" 'a source description starts with a source' \
  --source "videoconvert"
bad "bad caps" 'cannot be read' --source videotestsrc --caps "video/x-raw,width="
bad "a stray argument" 'unexpected argument' videotestsrc
bad "an unknown option" 'Unknown option' --bogus
bad "the recorder's own location" 'set by the recorder' --sink-props "location=/x"
conf "$work/typo.conf" "[recorder]" "secnds=3" "[camera a]" "source=videotestsrc"
bad "an unknown config key" 'unknown key "secnds"' --config "$work/typo.conf"
conf "$work/group.conf" "[camera a]" "source=videotestsrc" "[camra b]" "source=videotestsrc"
bad "an unknown config group" 'unknown group [camra b]' --config "$work/group.conf"
conf "$work/none.conf" "[recorder]" "seconds=1"
bad "a config without cameras" 'no camera' --config "$work/none.conf"
conf "$work/same.conf" "[camera a]" "source=videotestsrc" "location=$work/x.raw" \
  "[camera b]" "source=videotestsrc" "location=$work/x.raw"
bad "two cameras, one location" 'record to the same location' --config "$work/same.conf"
conf "$work/num.conf" "[recorder]" "seconds=soon" "[camera a]" "source=videotestsrc"
bad "a number that is none" 'seconds' --config "$work/num.conf"
bad "a missing config file" 'No such file' --config "$work/nothere.conf"
# GKeyFile merges a group given twice and keeps a key's last value: a
# camera silently gone (the adversarial read of issue 25, H4)
conf "$work/twice.conf" "[camera left]" "source=videotestsrc" \
  "location=$work/l.raw" "[camera right]" "source=videotestsrc" \
  "[camera left]" "source=videotestsrc pattern=snow" "location=$work/o.raw"
bad "a camera group given twice" 'the group [camera left] is given twice' \
  --config "$work/twice.conf"
conf "$work/key2.conf" "[camera a]" "source=videotestsrc" "location=$work/k.raw" \
  "location=$work/k2.raw"
bad "a key given twice" 'the key "location" is given twice' --config "$work/key2.conf"
# a value GKeyFile cannot give (not UTF-8) was dropped, the default used
printf '[camera a]\nsource=videotestsrc\nlocation=%s/caf\351.raw\n' "$work" \
  > "$work/latin.conf"
bad "a value that is not UTF-8" 'location: ' --config "$work/latin.conf"
# times: negative ones were taken for not given, NaN and huge ones wrapped
# (the adversarial read of issue 25, M1, M2)
bad "a negative time" '--seconds: "-2" is no time' --seconds -2
bad "a time that is no number" '"nan" is no time' --seconds nan
bad "a time of a unit not known" '"5parsecs" is no time (seconds, or a number with its unit' --seconds 5parsecs
bad "a time past 30 days" 'at most 2592000' --seconds 4294967.5
bad "a negative rotation" '"-7" is no time' --rotate -7
bad "a rotation not whole" 'rotate: whole seconds' --rotate 1500ms
bad "an idle timeout of 0" 'http-idle-timeout: whole seconds, 1 to 3600' --http-idle-timeout 0
bad "an idle timeout not whole" 'http-idle-timeout: whole seconds' --http-idle-timeout 2.5
bad "a status interval not whole" 'status-every: whole seconds' --status-every 1.5
# an output directory that is not there, or not writable: before anything
# records (exit 2), not once the pipeline runs (exit 1, which a service
# unit restarts)
bad "no output directory" 'the directory of' --dir "$work/nowhere" --seconds 1
: > "$work/plainfile"
bad "an output directory that is a file" 'is no directory' --dir "$work/plainfile" --seconds 1
# require-mount: a directory on the root filesystem (a data disk that did
# not mount) is refused; one on a filesystem mounted elsewhere records
on_root=$(mktemp -d /var/tmp/rtf-mount.XXXXXX)
if [ "$(stat -c %d "$on_root")" = "$(stat -c %d /)" ]; then
  bad "require-mount, a directory on /" 'is on the root filesystem' \
    --require-mount --dir "$on_root" --seconds 1
else
  echo "skip: require-mount on /: /var/tmp is not on the root filesystem here"
fi
rmdir "$on_root"
mounted=$(mktemp -d -p /dev/shm rtf-mount.XXXXXX)
if [ "$(stat -c %d "$mounted")" != "$(stat -c %d /)" ]; then
  conf "$work/mounted.conf" "[recorder]" "require-mount=true" "seconds=0.5" \
    "[camera a]" "source=videotestsrc is-live=true" \
    "caps=video/x-raw,format=GRAY8,width=64,height=32,framerate=20/1" \
    "location=$mounted/a.raw"
  if out=$("$rec" --config "$work/mounted.conf" 2>&1) && [ -s "$mounted/a.raw" ]; then
    echo "ok: require-mount with a directory on /dev/shm records"
  else
    echo "FAIL: require-mount with a directory on /dev/shm: $out"; fail=1
  fi
  # the mount points named: a directory on another filesystem (/ here) is
  # refused, as is a path that is no mount point (a disk not mounted there
  # leaves a plain directory)
  bad "require-mount=PATH, a directory elsewhere" 'none of the filesystems require-mount names (/dev/shm)' \
    --require-mount=/dev/shm --dir "$work/bad" --seconds 1
  mkdir -p "$work/notmounted"
  bad "require-mount=PATH, no mount point" 'is no mount point now' \
    --require-mount="$work/notmounted" --dir "$mounted" --seconds 1
  conf "$work/mounted2.conf" "[recorder]" "require-mount=/dev/shm;" \
    "seconds=0.5" "[camera a]" "source=videotestsrc is-live=true" \
    "caps=video/x-raw,format=GRAY8,width=64,height=32,framerate=20/1" \
    "location=$mounted/b.raw"
  if out=$("$rec" --config "$work/mounted2.conf" 2>&1) && [ -s "$mounted/b.raw" ]; then
    echo "ok: require-mount=/dev/shm with a directory there records"
  else
    echo "FAIL: require-mount=/dev/shm with a directory there: $out"; fail=1
  fi
else
  echo "skip: require-mount off /: /dev/shm is on the root filesystem here"
fi
rm -rf "$mounted"
# a directory holding "%%" is the sink's "%": checked as such (it skipped
# the checks, and recorded on the root filesystem under require-mount)
printf '[camera a]\nsource=videotestsrc\nlocation=%s/100%%%%/a-%%05d.raw\n' \
  "$work" > "$work/pct.conf"
bad "a %% directory not there" "$work/100%, the directory of" --config "$work/pct.conf"
# one file by two spellings; a pattern the sink refuses; a camera named as
# GStreamer names its own elements (the adversarial read of issue 25, L1,
# L2: exit 1 at start, a CRITICAL)
conf "$work/spell.conf" "[camera a]" "source=videotestsrc" "location=$work/s.raw" \
  "[camera b]" "source=videotestsrc" "location=$work/./s.raw"
bad "one file by two spellings" 'record to the same location' --config "$work/spell.conf"
conf "$work/pat.conf" "[camera a]" "source=videotestsrc" "location=$work/a-%s.raw"
bad "a pattern the sink refuses" 'location' --config "$work/pat.conf"
conf "$work/named.conf" "[camera a.b]" "source=videotestsrc"
bad "a camera name with a dot" "letters, digits, '-' or '_'" --config "$work/named.conf"
# the second adversarial read of issue 25: names of two cameras that can
# meet (H2: one replaced the other's files, exit 0), one directory
# through a link (M2), event times that are not UTF-8 or not finite (H4,
# M1), --streams -1 (L1), a link at a file's location (L2), a single file
# with max-file-size (M3): each is bad input, refused before recording
conf "$work/meet.conf" "[recorder]" "rotate=1" "[camera a]" \
  "source=videotestsrc" "location=$work/x%d.raw" "[camera b]" \
  "source=videotestsrc" "location=$work/x1%d.raw"
bad "two patterns whose names meet" 'names that can meet' --config "$work/meet.conf"
conf "$work/width.conf" "[recorder]" "rotate=1" "[camera a]" \
  "source=videotestsrc" "location=$work/w-%d.raw" "[camera b]" \
  "source=videotestsrc" "location=$work/w-%1d.raw"
bad "one pattern by two widths" 'names that can meet' --config "$work/width.conf"
mkdir -p "$work/real"; ln -sfn "$work/real" "$work/linked"
conf "$work/dirlink.conf" "[camera a]" "source=videotestsrc" \
  "location=$work/real/a.raw" "[camera b]" "source=videotestsrc" \
  "location=$work/linked/a.raw"
bad "one file through a linked directory" 'names that can meet' --config "$work/dirlink.conf"
printf '[recorder]\nevents=true\nevent=0.5\377\n[camera a]\nsource=videotestsrc\n' \
  > "$work/ev8.conf"
bad "an event time that is not UTF-8" 'event' --config "$work/ev8.conf"
bad "an event time that is infinite" 'a time from the start' --trigger --event inf
bad "an event time that is no number" 'a time from the start' --trigger --event nan
conf "$work/evunit.conf" "[recorder]" "events=true" "pre-record=2parsecs" \
  "[camera a]" "source=videotestsrc"
bad "a config time of a unit not known" '[recorder] pre-record: "2parsecs" is no time' \
  --config "$work/evunit.conf"
bad "a negative number of demo streams" '--streams: 1 or more' --streams -1
ln -sfn "$work/nowhere" "$work/link.raw"
conf "$work/link.conf" "[camera a]" "source=videotestsrc" "location=$work/link.raw"
bad "a link at a file's location" 'is a symbolic link' --config "$work/link.conf"
bad "one file with max-file-size" 'has no %d' --sink-props "max-file-size=100000"
# run from the build tree with no plugin path set at all: the plugin built
# beside it is used (the README's commands work as written)
mkdir -p "$work/tree"
out=$(cd "$work/tree" && env -u GST_PLUGIN_PATH_1_0 -u GST_PLUGIN_PATH \
  GST_REGISTRY_1_0="$work/tree-registry.bin" timeout 20 "$rec" --streams 1 \
  --seconds 1 --caps "video/x-raw,format=GRAY8,width=64,height=32,framerate=20/1" \
  --dir "$work/tree" 2>&1); status=$?
if [ $status -ne 0 ]; then
  echo "FAIL: from the build tree, no plugin path: exit $status: $(tail -3 <<<"$out")"; fail=1
else
  echo "ok: from the build tree with no plugin path set: its own plugin"
fi
# a missing plugin: GStreamer looking where it is not
out=$(cd "$work" && GST_PLUGIN_PATH_1_0= GST_PLUGIN_PATH= \
  GST_REGISTRY_1_0="$work/no-rtframe-registry.bin" timeout 10 "$rec" --seconds 1 2>&1)
status=$?
if [ $status -ne 2 ] || ! grep -q "there is no rtframesink element" <<<"$out"; then
  echo "FAIL: a missing plugin: exit $status: $out"; fail=1
else
  echo "ok: a missing plugin: $out"
fi

v=$("$rec" --version); status=$?
if [ $status -ne 0 ] || ! grep -q "^rtframe-record [0-9]" <<<"$v"; then
  echo "FAIL: --version: exit $status: $v"; fail=1
else
  echo "ok: --version: $v"
fi

# A config file's cameras, stopped by a signal: every file verifies and is
# whole frames only (the preallocation given back)
signal_run() {  # signal name, count
  local sig=$1 count=$2 dir="$work/$1" out status f size
  rm -rf "$dir"; mkdir -p "$dir"
  conf "$dir/rig.conf" "[recorder]" "dir=$dir" \
    "[camera left]" "source=videotestsrc is-live=true pattern=ball" \
    "caps=video/x-raw,format=GRAY8,width=640,height=480,framerate=20/1" \
    "sink=preallocate=67108864" \
    "[camera right]" "source=videotestsrc is-live=true pattern=snow" \
    "caps=video/x-raw,format=GRAY8,width=640,height=480,framerate=20/1" \
    "location=$dir/right-%05d.raw" "sink=preallocate=67108864"
  if [ "$count" -gt 1 ]; then
    # a camera whose EOS takes seconds to come out (a queue drained at 5
    # frames a second): the second signal comes while the first waits
    conf "$dir/slow.conf" "[recorder]" "dir=$dir" \
      "[camera left]" "source=videotestsrc is-live=true ! queue max-size-buffers=0 max-size-bytes=0 max-size-time=0 ! identity sleep-time=200000" \
      "caps=video/x-raw,format=GRAY8,width=640,height=480,framerate=20/1" \
      "[camera right]" "source=videotestsrc is-live=true" \
      "caps=video/x-raw,format=GRAY8,width=640,height=480,framerate=20/1" \
      "location=$dir/right-%05d.raw"
    cp "$dir/slow.conf" "$dir/rig.conf"
  fi
  # (not under timeout(1): the signals go to the recorder itself)
  "$rec" --config "$dir/rig.conf" > "$dir/out" 2>&1 &
  local pid=$!
  ( sleep 60; kill -KILL $pid ) >/dev/null 2>&1 &
  local guard=$!
  sleep 2
  kill -HUP $pid
  sleep 1
  kill -"$sig" $pid
  if [ "$count" -gt 1 ]; then sleep 0.5; kill -"$sig" $pid; fi
  wait $pid; status=$?
  kill $guard 2>/dev/null
  out=$(tr '\r' '\n' < "$dir/out")
  local want=0
  [ "$count" -gt 1 ] && want=1
  if [ $status -ne $want ]; then
    echo "FAIL: $sig x$count: exit $status, not $want"; echo "$out" | tail -8; fail=1; return
  fi
  if [ "$count" = 1 ] && ! grep -q "^summary" <<<"$out"; then
    echo "FAIL: $sig: no summary"; echo "$out" | tail -8; fail=1
  fi
  if ! grep -Eq "right: SIGHUP: a new file from [0-9.]+ s" <<<"$out" \
      || ! grep -q "left: SIGHUP: records one file" <<<"$out"; then
    echo "FAIL: $sig: SIGHUP not told"; echo "$out" | tail -8; fail=1
  fi
  for f in "$dir/left.raw" "$dir/right-00000.raw" "$dir/right-00001.raw"; do
    size=$(stat -c %s "$f" 2>/dev/null || echo -1)
    if [ "$size" -le 0 ] || [ $((size % FRAME)) -ne 0 ]; then
      echo "FAIL: $sig x$count: $f is $size bytes, not whole frames"; fail=1
    fi
  done
  if [ "$count" = 1 ]; then
    for f in "$dir/left.raw" "$dir/right-%05d.raw"; do
      if ! "$verify" -q "$f" >/dev/null 2>&1; then
        echo "FAIL: $sig: rtframe-verify $f:"; "$verify" "$f" | tail -3; fail=1
      fi
    done
  fi
  echo "ok: $sig x$count (exit $status): $(ls "$dir" | grep -c '\.raw$') files, $(grep -c . <<<"$out") lines"
}
signal_run TERM 1
signal_run INT 1
signal_run INT 2

# a run never records over the one before (the adversarial read of issue
# 25, H3: a restarted recorder truncated its earlier take's file): one
# file there already refuses the run (exit 2, the file as it was) unless
# --overwrite; a set goes on after the files there, which stay
rm -rf "$work/again"; mkdir -p "$work/again"
small="video/x-raw,format=GRAY8,width=64,height=32,framerate=20/1"
"$rec" --streams 1 --seconds 1 --caps "$small" --dir "$work/again" >/dev/null 2>&1
sum=$(md5sum < "$work/again/cam0.raw")
out=$("$rec" --streams 1 --seconds 1 --caps "$small" --dir "$work/again" 2>&1); status=$?
if [ $status -ne 2 ] || ! grep -q "is there already" <<<"$out" \
    || [ "$(md5sum < "$work/again/cam0.raw")" != "$sum" ]; then
  echo "FAIL: a second run on one file: exit $status: $out"; fail=1
else
  echo "ok: a second run on one file refused, the first take kept"
fi
if ! "$rec" --streams 1 --seconds 1 --caps "$small" --dir "$work/again" \
    --overwrite >/dev/null 2>&1; then
  echo "FAIL: --overwrite refused"; fail=1
fi
# into a file (no terminal): whole status lines every --status-every
# seconds, no carriage returns; none with 0
mkdir -p "$work/status"
"$rec" --streams 1 --seconds 3 --status-every 1 --caps "$small" \
  --dir "$work/status" --overwrite > "$work/status.out" 2>&1 < /dev/null
lines=$(grep -c '^frames [0-9]*  ' "$work/status.out")
if grep -q $'\r' "$work/status.out" || [ "$lines" -lt 2 ]; then
  echo "FAIL: status into a file: $lines lines: $(head -c 300 "$work/status.out" | od -c | head -5)"; fail=1
else
  echo "ok: status into a file: $lines whole lines, no carriage return"
fi
"$rec" --streams 1 --seconds 2 --status-every 0 --caps "$small" \
  --dir "$work/status" --overwrite > "$work/status.out" 2>&1 < /dev/null
if grep -q '^frames [0-9]*  ' "$work/status.out"; then
  echo "FAIL: --status-every 0 printed status lines"; fail=1
fi

# a camera's times with their units (50ms, 2s): a deadline of 1ns is
# missed by every frame, one of 1s by none - the units were read
mkdir -p "$work/units"
"$rec" --streams 1 --seconds 1 --caps "$small" --dir "$work/units" --overwrite \
  --sink-props "deadline=1ns stop-timeout=2s" > "$work/units.out" 2>&1 < /dev/null
tiny=$(awk '$1 == "cam0" {print $4}' "$work/units.out")
"$rec" --streams 1 --seconds 1 --caps "$small" --dir "$work/units" --overwrite \
  --sink-props "deadline=1s" > "$work/units.out" 2>&1 < /dev/null
big=$(awk '$1 == "cam0" {print $4}' "$work/units.out")
if [ "${tiny:-0}" -lt 15 ] || [ "${big:-1}" != 0 ]; then
  echo "FAIL: deadline=1ns missed ${tiny:-?}, deadline=1s missed ${big:-?}"; fail=1
else
  echo "ok: times with units: deadline=1ns missed by $tiny frames, 1s by none"
fi
# the recorder's own times with units: the demo's 500ms are 10 frames at
# 20/s; a config's seconds, pre-record, post-record and events in ms, s, min
"$rec" --streams 1 --seconds 500ms --caps "$small" --dir "$work/units" --overwrite \
  > "$work/units.out" 2>&1 < /dev/null
n=$(awk '$1 == "cam0" {print $2}' "$work/units.out")
conf "$work/units.conf" "[recorder]" "dir=$work/units/ev" "events=true" \
  "seconds=1500ms" "pre-record=200ms" "post-record=0.005min" "event=500ms;" \
  "[camera a]" "source=videotestsrc is-live=true" "caps=$small"
mkdir -p "$work/units/ev"
"$rec" --config "$work/units.conf" > "$work/units-ev.out" 2>&1 < /dev/null; st=$?
# (pre-record 200 ms: 4 frames, post-record 0.3 s: 6 frames from the event)
ev=$(awk '$1 == "a" {print $2}' "$work/units-ev.out")
if [ "${n:-0}" != 10 ] || [ $st -ne 0 ] || [ "${ev:-0}" -lt 9 ] || [ "${ev:-0}" -gt 12 ]; then
  echo "FAIL: --seconds 500ms: ${n:-?} frames; a config in ms/min: exit $st, ${ev:-?} frames"
  tail -3 "$work/units-ev.out"; fail=1
else
  echo "ok: --seconds 500ms recorded $n frames; a config of 1500ms, 200ms, 0.005min, an event at 500ms: $ev frames"
fi
out=$("$rec" --streams 1 --seconds 1 --caps "$small" --dir "$work/units" \
  --overwrite --sink-props "deadline=50parsecs" 2>&1); status=$?
if [ $status -ne 2 ] || ! grep -q "or a time with its unit" <<<"$out"; then
  echo "FAIL: deadline=50parsecs: exit $status: $out"; fail=1
fi
# a time that would round to 0 ns (none, no limit) is refused; a signed
# one takes its sign (ts-offset)
out=$("$rec" --streams 1 --seconds 1 --caps "$small" --dir "$work/units" \
  --overwrite --sink-props "deadline=0.4ns" 2>&1); status=$?
if [ $status -ne 2 ]; then
  echo "FAIL: deadline=0.4ns: exit $status: $out"; fail=1
fi
out=$("$rec" --streams 1 --seconds 500ms --caps "$small" --dir "$work/units" \
  --overwrite --sink-props "ts-offset=-5ms" 2>&1); status=$?
if [ $status -ne 0 ]; then
  echo "FAIL: ts-offset=-5ms: exit $status: $out"; fail=1
else
  echo "ok: deadline=0.4ns refused, ts-offset=-5ms taken"
fi

# --seconds 0: the demo records until stopped, not its 5 s (100 frames)
mkdir -p "$work/forever"
"$rec" --streams 1 --seconds 0 --caps "$small" --dir "$work/forever" > "$work/forever.out" 2>&1 < /dev/null &
forever=$!
sleep 6
if ! kill -0 $forever 2>/dev/null; then
  echo "FAIL: --seconds 0 stopped by itself: $(tail -3 "$work/forever.out")"; fail=1
else
  kill -INT $forever; wait $forever; status=$?
  n=$(( $(stat -c %s "$work/forever/cam0.raw") / 2048 ))
  if [ $status -ne 0 ] || [ $n -le 100 ]; then
    echo "FAIL: --seconds 0 then SIGINT: exit $status, $n frames"; fail=1
  else
    echo "ok: --seconds 0 records until stopped ($n frames in 6 s, exit 0 on SIGINT)"
  fi
fi
"$rec" --streams 1 --seconds 2 --rotate 1 --caps "$small" --dir "$work/again" >/dev/null 2>&1
sums=$(cat "$work/again"/cam0-0000[01].raw | md5sum)
out=$("$rec" --streams 1 --seconds 1 --rotate 1 --caps "$small" --dir "$work/again" 2>&1); status=$?
if [ $status -ne 0 ] || ! grep -q "this one starts at 2" <<<"$out" \
    || [ "$(cat "$work/again"/cam0-0000[01].raw | md5sum)" != "$sums" ] \
    || ! "$verify" -q --start-index 2 "$work/again/cam0-%05d.raw" >/dev/null; then
  echo "FAIL: a second rotating run: exit $status: $out"; ls "$work/again"; fail=1
else
  echo "ok: a second rotating run starts at file 2, files 0-1 kept"
fi
# several locations (the second adversarial read, H3: both runs exit 0,
# the first's files and manifest replaced): the manifest there refuses
# a second run; with --overwrite the set goes on after the files of any
# location, and those stay
mkdir -p "$work/spread/d1" "$work/spread/d2"
conf "$work/spread.conf" "[recorder]" "seconds=1" "rotate=1" "[camera a]" \
  "source=videotestsrc is-live=true" "caps=$small" \
  "sink=locations='<\"$work/spread/d1/a-%05d.raw\",\"$work/spread/d2/a-%05d.raw\">'"
"$rec" --config "$work/spread.conf" >/dev/null 2>&1
sums=$(cat "$work/spread"/d*/a-00000.raw | md5sum)
out=$("$rec" --config "$work/spread.conf" 2>&1); status=$?
if [ $status -ne 2 ] || ! grep -q "rtfspread is there already" <<<"$out"; then
  echo "FAIL: a second run over several locations: exit $status: $out"; fail=1
else
  echo "ok: a second run over several locations refused"
fi
out=$("$rec" --config "$work/spread.conf" --overwrite 2>&1); status=$?
if [ $status -ne 0 ] || ! grep -q "files of its locations up to number" <<<"$out" \
    || [ "$(cat "$work/spread"/d*/a-00000.raw | md5sum)" != "$sums" ]; then
  echo "FAIL: --overwrite over several locations: exit $status: $out"; fail=1
else
  echo "ok: --overwrite over several locations goes on after their files"
fi

# a camera named as GStreamer names its own elements records (it clashed
# with the parsed source bin: a CRITICAL, "does not link")
rm -rf "$work/bin0"; mkdir -p "$work/bin0"
conf "$work/bin0/rig.conf" "[recorder]" "dir=$work/bin0" "[camera bin0]" \
  "source=videotestsrc num-buffers=10" "caps=$small"
out=$(G_DEBUG=fatal-criticals "$rec" --config "$work/bin0/rig.conf" 2>&1); status=$?
if [ $status -ne 0 ] || ! "$verify" -q "$work/bin0/bin0.raw" >/dev/null 2>&1; then
  echo "FAIL: a camera named bin0: exit $status: $out"; fail=1
else
  echo "ok: a camera named bin0 records"
fi

# --seconds with a camera that never ends by itself
rm -rf "$work/secs"; mkdir -p "$work/secs"
out=$(timeout 30 "$rec" --source "videotestsrc is-live=true" \
  --caps "video/x-raw,format=GRAY8,width=640,height=480,framerate=20/1" \
  --seconds 1.5 --dir "$work/secs" 2>&1); status=$?
size=$(stat -c %s "$work/secs/cam0.raw" 2>/dev/null || echo -1)
if [ $status -ne 0 ] || [ "$size" -le 0 ] || [ $((size % FRAME)) -ne 0 ] \
    || ! "$verify" -q "$work/secs/cam0.raw" >/dev/null 2>&1; then
  echo "FAIL: --seconds 1.5: exit $status, $size bytes"; echo "$out" | tail -5; fail=1
else
  echo "ok: --seconds 1.5: $((size / FRAME)) frames"
fi
# Under systemd (Type=notify): READY, STATUS, the watchdog's pings at
# half of WATCHDOG_USEC, STOPPING at SIGTERM, exit 0 - read from a real
# notify socket, as systemd reads it
rm -rf "$work/notify"; mkdir -p "$work/notify"
out=$(/usr/bin/python3 - "$rec" "$work/notify" <<'PY'
import os, signal, socket, subprocess, sys, time
rec, d = sys.argv[1], sys.argv[2]
path = os.path.join(d, "notify.sock")
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(path)
s.settimeout(0.1)
env = dict(os.environ, NOTIFY_SOCKET=path, WATCHDOG_USEC="1000000")
p = subprocess.Popen([rec, "--source", "videotestsrc is-live=true", "--caps",
                      "video/x-raw,format=GRAY8,width=320,height=240,framerate=20/1",
                      "--dir", d], env=env, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL)
got = []
def drain(until):
    while time.monotonic() < until:
        try:
            got.append(s.recv(4096).decode())
        except socket.timeout:
            pass
drain(time.monotonic() + 3)
p.send_signal(signal.SIGTERM)
end = time.monotonic() + 15
while p.poll() is None and time.monotonic() < end:
    drain(time.monotonic() + 0.2)
drain(time.monotonic() + 0.2)
if p.poll() is None:
    p.kill()
print("exit", p.wait())
for m in got:
    print(m.replace("\n", " | "))
PY
)
pings=$(grep -c "WATCHDOG=1" <<<"$out")
if ! grep -q "^exit 0$" <<<"$out" || ! grep -q "READY=1" <<<"$out" \
    || ! grep -q "STATUS=frames [0-9]" <<<"$out" \
    || ! grep -q "STOPPING=1" <<<"$out" || [ "$pings" -lt 4 ]; then
  echo "FAIL: sd_notify: $pings pings; got:"; echo "$out" | head -20; fail=1
else
  echo "ok: sd_notify: READY, STATUS, $pings watchdog pings in 3 s, STOPPING, exit 0"
fi
# the units as systemd reads them (the build's program in ExecStart)
if command -v systemd-analyze >/dev/null; then
  for unit in rtframe-record.service rtframe-record@.service; do
    u="$build_dir/recorder/$unit"
    mkdir -p "$work/units"
    sed "s#^ExecStart=[^ ]*#ExecStart=$rec#" "$u" > "$work/units/$unit"
    name=$unit
    [ "$unit" = "rtframe-record@.service" ] && { cp "$work/units/$unit" \
      "$work/units/rtframe-record@lab.service"; name=rtframe-record@lab.service; }
    if ! v=$(systemd-analyze verify "$work/units/$name" 2>&1); then
      echo "FAIL: systemd-analyze verify $unit: $v"; fail=1
    else
      echo "ok: systemd-analyze verify $unit"
    fi
  done
fi
exit $fail
