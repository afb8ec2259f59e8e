#!/usr/bin/env bash
# Smoke run of rtframe-bench (bench/): a few seconds of small frames through
# every sink, as docs/performance.md runs it.  Checks that each sink's row
# says every frame was written and verified, that the CSV and plot come out,
# and that the verifier finds a flipped byte and a torn frame in a kept
# recording.  Figures are printed, never judged: this machine is not a
# benchmark machine.  Args: <rtframe-bench binary>
set -u
bench=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
say_fail() { echo "FAIL: $*"; fail=1; }

sinks=(--sink rtframesink --sink queue-filesink --sink filesink)
command -v fio >/dev/null && sinks+=(--sink fio) || echo "# fio not installed: left out"
plot=()
command -v gnuplot >/dev/null && plot=(--plot "$work/lat.svg") || echo "# gnuplot not installed: no plot"

out=$("$bench" --dir "$work" --streams 2 --width 320 --height 240 --fps 30 \
  --duration 2 --quiet --keep --csv "$work/frames.csv" "${sinks[@]}" "${plot[@]}" 2>&1)
status=$?
echo "$out"
out_first=$out
[ $status -eq 0 ] || say_fail "rtframe-bench exited $status"
for s in rtframesink queue-filesink filesink; do
  row=$(grep -E "^$s +1 " <<<"$out")
  [ -n "$row" ] || { say_fail "no row for $s"; continue; }
  # offered, written, dropped, lost at the camera (columns 3-6): a slow
  # disk may hold the camera long enough to lose frames, never to lose
  # frames the sink accepted.  2 streams x 2 s x 30 fps are offered.
  read -r _ _ offered written dropped camlost _ <<<"$row"
  [ "$offered" -ge 100 ] || say_fail "$s offered only $offered frames"
  [ "$written" -ge 1 ] || say_fail "$s wrote nothing"
  [ $((written + dropped + camlost)) = "$offered" ] \
    || say_fail "$s: written $written + dropped $dropped + lost $camlost != offered $offered"
  grep -qE "\| $written ok$" <<<"$row" || say_fail "$s: not every frame verified: $row"
  rows=$(grep -c "^$s,1," "$work/frames.csv")
  [ "$rows" = "$offered" ] || say_fail "$s has $rows CSV rows, $offered offered"
done
grep -q "^sink,round,stream,frame,offer_s,block_ms,latency_ms,service_ms,written,missed,part$" \
  "$work/frames.csv" || say_fail "CSV header"
if [ ${#plot[@]} -gt 0 ]; then
  grep -q "<svg" "$work/lat.svg" || say_fail "no SVG plot"
fi
grep -q "^ratio rtframesink" <<<"$out" || say_fail "no ratio line"

# An event recording (--trigger): 0.5 s held before the trigger 1 s in,
# the live frames from it; beside a sink recording everything, measured
# over the same frames (those from the trigger on)
ev=$("$bench" --dir "$work" --streams 2 --width 320 --height 240 --fps 20 \
  --duration 2 --trigger 1 --quiet --no-fio --sink rtframesink \
  --sink rtframesink:record=false,pre-record-time=500000000 2>&1)
status=$?
echo "$ev"
[ $status -eq 0 ] || say_fail "rtframe-bench --trigger exited $status"
# 2 streams x 20 frames from the trigger on, in both rows
for s in "rtframesink" "rtframesink:record=false,pre-record-time=500000000"; do
  read -r _ _ offered written _ <<<"$(grep -F "$s " <<<"$ev" | grep -E "^[^ ]+ +1 ")"
  [ "$offered" = 40 ] && [ "$written" = 40 ] \
    || say_fail "--trigger: $s offered ${offered:-?}, wrote ${written:-?} of the 40 from the trigger on"
done
grep -q "event: 20 held frames, 20 written" <<<"$ev" \
  || say_fail "--trigger: the 2 x 10 held frames are not reported written"
grep -qE "\| 60 ok$" <<<"$(grep -F "rtframesink:record=false" <<<"$ev" | grep -E "^[^ ]+ +1 ")" \
  || say_fail "--trigger: the event files do not hold the 60 frames (20 held, 40 live) verified"

# The recordings are in a directory of the bench's own, which it names
kept=$(sed -n 's/^recordings kept in //p' <<<"$out")
[ -d "$kept" ] && [ "$(dirname "$kept")" = "$work" ] \
  || say_fail "the kept recordings are not in a directory of the bench's own in $work: '$kept'"

# The verifier on its own (--check) finds what is wrong with a recording.
rec="$kept/rtframesink-r1-s1.raw"
"$bench" --check "$rec" --check-stream 1 --width 320 --height 240 \
  || say_fail "--check of a good recording failed"
if "$bench" --check "$rec" --check-stream 0 --width 320 --height 240 >/dev/null; then
  say_fail "--check took stream 1's frames for stream 0's"
fi
cp "$rec" "$work/flip.raw"
printf '\x00' | dd of="$work/flip.raw" bs=1 seek=200000 conv=notrunc status=none
"$bench" --check "$work/flip.raw" --check-stream 1 --width 320 --height 240 \
  && say_fail "--check missed a flipped byte"
cp "$rec" "$work/torn.raw"
truncate -s -1000 "$work/torn.raw"
"$bench" --check "$work/torn.raw" --check-stream 1 --width 320 --height 240 \
  && say_fail "--check missed a torn last frame"
# a FIFO is said to be no recording, at once (never waited on)
mkfifo "$work/fifo.raw"
timeout 10 "$bench" --check "$work/fifo.raw" --width 320 --height 240 >/dev/null
[ $? -eq 1 ] || say_fail "--check of a FIFO did not say it at once"

# a run without --keep leaves nothing in --dir, and touches nothing there
mkdir "$work/clean"
echo mine > "$work/clean/rtframesink-r1-s0.raw"
"$bench" --dir "$work/clean" --streams 1 --width 64 --height 48 --fps 30 \
  --duration 1 --quiet --no-fio --sink rtframesink >/dev/null 2>&1 \
  || say_fail "a short run failed"
[ "$(ls "$work/clean")" = "rtframesink-r1-s0.raw" ] \
  || say_fail "the run left or removed files in --dir: $(ls "$work/clean")"
[ "$(cat "$work/clean/rtframesink-r1-s0.raw")" = mine ] \
  || say_fail "the run changed a file of the user's"

# --scale: a row per sink and stream count (1, 2) until it falls behind,
# the CSV with those rows; the figures are printed, not judged
out=$("$bench" --dir "$work" --scale 2 --width 64 --height 48 --fps 30 \
  --duration 1 --quiet --csv "$work/scale.csv" --sink rtframesink \
  --sink "queue-filesink" ${plot:+--plot "$work/scale.png"} 2>&1); status=$?
echo "$out" | tail -8
[ $status -eq 0 ] || say_fail "--scale exited $status"
if [ -n "$plot" ]; then
  grep -q "^plot: $work/scale.png" <<<"$out" && [ -s "$work/scale.png" ] \
    || say_fail "--scale: no plot: $out"
fi
grep -q "^streams,sink,mbps,misses,dropped,camera_lost,cpu_s_per_gb,lat_p99_ms,lat_p999_ms,block_p99_ms,kept_up$" \
  "$work/scale.csv" || say_fail "--scale: no CSV header"
for s in rtframesink queue-filesink; do
  grep -q "^1,\"$s\"," "$work/scale.csv" || say_fail "--scale: no row for $s at 1 stream"
done
grep -q "^streams kept up" <<<"$out" || say_fail "--scale: no summary line"
# --fio-fdatasync: fio's syncs counted and their latency printed
if command -v fio >/dev/null; then
  out=$("$bench" --dir "$work" --streams 1 --width 320 --height 240 --fps 30 \
    --duration 1 --quiet --sink fio --sink rtframesink --fio-fdatasync 2 2>&1)
  # (fio's from its JSON, rtframesink's from its sync-latency-* stats)
  [ "$(grep -cE "durable: [1-9][0-9]* fdatasyncs, sync p99 [0-9.]+ ms, p99.9 [0-9.]+ ms" <<<"$out")" = 2 ] \
    || say_fail "--fio-fdatasync: no sync latency for fio and rtframesink: $out"
fi
# --warmup-rounds: run, checked and left out; --rounds: each sink's
# spread; the camera's CPU a frame under each GStreamer sink's row
out=$("$bench" --dir "$work" --streams 1 --width 320 --height 240 --fps 30 \
  --duration 1 --quiet --no-fio --sink rtframesink --warmup-rounds 1 \
  --rounds 2 2>&1)
grep -qE "^warm-up 1, not counted: rtframesink [0-9.]+ MB/s$" <<<"$out" \
  || say_fail "--warmup-rounds: no warm-up line: $out"
[ "$(grep -cE "^rtframesink +[0-9]+ " <<<"$out")" = 2 ] \
  || say_fail "--warmup-rounds: the warm-up is in the table: $out"
grep -qE "^  rtframesink +[0-9.]+ +[0-9.]+ +median [0-9.]+ +spread [0-9.]+%" <<<"$out" \
  || say_fail "--rounds: no spread row: $out"
grep -qE "camera: [0-9.]+ us CPU a frame to make it .* 0 buffers first filled mid-run" <<<"$out" \
  || say_fail "no camera CPU line, or buffers filled mid-run: $out"

# refused, with a message and exit 2: a negative warm-up, one with --scale
for bad in "--warmup-rounds -1" "--scale 2 --warmup-rounds 1"; do
  # shellcheck disable=SC2086
  msg=$("$bench" --dir "$work" $bad 2>&1 >/dev/null); st=$?
  [ $st = 2 ] && grep -q -- "--warmup-rounds" <<<"$msg" \
    || say_fail "$bad: exit $st, $msg"
done

# fio writes one file per job even when run from a directory holding a
# directory named like a job (fio then takes the name as the file: every
# job wrote one shared file when run from the source tree, whose bench/ is
# a directory), and the bench says so if it does not
if command -v fio >/dev/null; then
  mkdir -p "$work/cwd/bench" "$work/cwd/rtframe-bench-fio" "$work/own"
  abs=$(realpath "$bench")
  # (a relative --dir: fio runs inside the bench's directory, so the
  # paths it is given must not be relative)
  out=$(cd "$work/cwd" && "$abs" --dir ../own --streams 3 --width 320 \
    --height 240 --fps 30 --duration 1 --quiet --keep --sink fio 2>&1)
  grep -qE "^fio +1 +90 +90 " <<<"$out" || say_fail "fio: no row of 90 frames: $out"
  grep -q "ERROR" <<<"$out" && say_fail "fio: $out"
  for j in 0 1 2; do
    n=$(find "$work/own" -name "fio.$j.raw" -size +0 | wc -l)
    [ "$n" = 1 ] || say_fail "fio: job $j did not write its own file: $(ls -R "$work/own")"
  done
fi

# --rotate: files of N frames a stream, each deleted when the next is
# begun, for rtframesink (max-file-size, max-files=1) and fio
# (unlink_each_loop): every frame still written and the files' last one
# checked; flat out the duration decides, not the space
if command -v fio >/dev/null; then
  rm -rf "$work/rot"; mkdir -p "$work/rot"
  out=$("$bench" --dir "$work/rot" --streams 1 --width 320 --height 240 \
    --fps 30 --duration 1 --quiet --keep --rotate 5 --sink rtframesink \
    --sink fio 2>&1)
  echo "$out"
  grep -q "^files of 5 frames a stream, each deleted" <<<"$out" \
    || say_fail "--rotate: not said in the table: $out"
  # every frame offered written (a GStreamer camera offers 30 or 31 in
  # 1 s, fio writes 30), and the file kept holds the frames after the
  # last whole file of 5
  for s in rtframesink fio; do
    read -r _ _ offered written _ <<<"$(grep -E "^$s +1 " <<<"$out")"
    [ "${offered:-0}" -ge 30 ] && [ "$written" = "$offered" ] \
      || say_fail "--rotate: $s wrote ${written:-?} of ${offered:-?}: $out"
    [ $s = rtframesink ] && { grep -qE "^$s +1 .*\| $(( (written - 1) % 5 + 1 )) ok$" <<<"$out" \
      || say_fail "--rotate: rtframesink's kept file does not hold its last $(( (written - 1) % 5 + 1 )) frames: $out"; }
  done
  grep -q "ERROR" <<<"$out" && say_fail "--rotate: $out"
  n=$(find "$work/rot" -name "rtframesink-r1-s0.raw.*" ! -name "*.idx" | wc -l)
  [ "$n" = 1 ] || say_fail "--rotate: $n rtframesink files kept, not 1: $(ls -R "$work/rot")"
  # flat out: more frames than the files could hold at once
  out=$("$bench" --dir "$work/rot" --streams 1 --width 320 --height 240 \
    --duration 1 --flat-out --quiet --rotate 5 --sink rtframesink --sink fio 2>&1)
  for s in rtframesink fio; do
    read -r _ _ offered written _ <<<"$(grep -E "^$s +1 " <<<"$out")"
    [ "${written:-0}" -gt 10 ] && [ "$written" = "$offered" ] \
      || say_fail "--rotate flat out: $s wrote ${written:-?} of ${offered:-?}: $out"
  done
  grep -q "ERROR" <<<"$out" && say_fail "--rotate flat out: $out"
fi
# refused, with a message and exit 2: negative, with --scale, with a sink
# that cannot rotate, more than the space holds
# (an N whose bytes overflow 64 bits, a --frames fio's whole files would
# exceed, a spec that takes the rotation or the location: helper-33's
# adversarial read)
for bad in "--rotate -1" "--rotate 5 --scale 2" "--rotate 5 --sink filesink" \
  "--rotate 5 --sink queue-filesink" "--rotate 1000000000" \
  "--rotate 36028797018963968" "--rotate 5 --frames 7" \
  "--rotate 5 --sink rtframesink:max-files=0" \
  "--rotate 5 --sink rtframesink:max-file-size=0" \
  "--sink rtframesink:location=$work/refused/x.raw"; do
  # shellcheck disable=SC2086
  rm -rf "$work/refused"; mkdir "$work/refused"
  msg=$("$bench" --dir "$work/refused" --quiet $bad 2>&1 >/dev/null); st=$?
  [ $st = 2 ] && grep -qE -- "--rotate|cannot rotate|is the bench's" <<<"$msg" \
    || say_fail "$bad: exit $st, $msg"
  [ -z "$(ls -A "$work/refused")" ] \
    || say_fail "$bad left $(ls -A "$work/refused") in --dir"
done

# the cameras' phases: triggered together (the first run above) every
# stream offers at one phase; with --stagger stream i offers i/3 of the
# 33.3 ms period after stream 0 (0, 11.1, 22.2 ms; 3 ms allowed for a busy
# machine's wake-ups); every frame still written
grep -q "^cameras triggered together" <<<"$(grep -v '^ ' <<<"$out_first")" \
  || say_fail "the first run's table does not say the cameras are triggered together"
near=$(grep -E -m1 -A6 "^rtframesink +1 " <<<"$out_first" | sed -n 's/.*phases:.*the nearest two \([0-9.]*\) ms apart/\1/p')
awk -v n="${near:-99}" 'BEGIN { exit !(n <= 3) }' \
  || say_fail "triggered together, yet the nearest two streams are ${near:-?} ms apart: $out_first"
out=$("$bench" --dir "$work" --streams 3 --width 320 --height 240 --fps 30 \
  --duration 1 --quiet --stagger --sink rtframesink 2>&1)
echo "$out"
grep -q "^cameras staggered" <<<"$out" || say_fail "--stagger: not said in the table: $out"
read -r _ _ offered written _ <<<"$(grep -E "^rtframesink +1 " <<<"$out")"
[ "${offered:-0}" -ge 87 ] && [ "$written" = "$offered" ] \
  || say_fail "--stagger: wrote ${written:-?} of ${offered:-?}: $out"
read -r p0 p1 p2 <<<"$(sed -n 's/.*phases: \([0-9.]*\) \([0-9.]*\) \([0-9.]*\) ms of the 33 ms period.*/\1 \2 \3/p' <<<"$out")"
awk -v a="${p0:-99}" -v b="${p1:-99}" -v c="${p2:-99}" 'function d(x, y) { x = x - y; if (x < 0) x = -x; return x > 16.67 ? 33.33 - x : x }
  BEGIN { exit !(d(b, a) > 8.1 && d(b, a) < 14.1 && d(c, b) > 8.1 && d(c, b) < 14.1 && d(c, a) > 8.1) }' \
  || say_fail "--stagger: phases ${p0:-?} ${p1:-?} ${p2:-?} ms, not a third of the period apart: $out"
# fio's phases are read on one clock (--log_unix_epoch; before, each
# job's log counted from its own start and every phase read 0: helper-34)
if command -v fio >/dev/null; then
  grep -A8 -E "^fio +1 " <<<"$out_first" | grep -q "phases: .*from fio's log" \
    || say_fail "no phases line for fio: $out_first"
fi
# a stream with no live frame (record=false, never triggered) has no phase
out=$("$bench" --dir "$work" --streams 2 --width 320 --height 240 --fps 30 \
  --duration 0.5 --quiet --sink rtframesink:record=false 2>&1)
grep -q "phases: n/a n/a ms of the 33 ms period (offers, per stream)$" <<<"$out" \
  || say_fail "streams with no live frame: not n/a: $out"
# --scale says which cameras it ran (helper-34: it did not)
out=$("$bench" --dir "$work" --quiet --scale 1 --stagger --width 64 --height 64 \
  --duration 0.5 --sink rtframesink 2>&1)
grep -q "^# scale: .*, cameras staggered (--stagger)$" <<<"$out" \
  || say_fail "--scale --stagger: not said: $out"
msg=$("$bench" --dir "$work/refused" --quiet --flat-out --stagger 2>&1 >/dev/null); st=$?
[ $st = 2 ] && grep -q -- "--stagger is for live runs" <<<"$msg" \
  || say_fail "--flat-out --stagger: exit $st, $msg"

[ $fail -eq 0 ] && echo "bench smoke run: ok"
exit $fail
