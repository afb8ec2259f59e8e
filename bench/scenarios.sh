#!/usr/bin/env bash
# The benchmark scenarios of docs/performance.md, each on a filesystem this
# script makes and removes (root: loop devices, mounts).
#
#   bench/scenarios.sh [--out DIR] [--duration S] [--rounds N] [SCENARIO...]
#
#   ram-live   the user's workload (3 x P010_10LE 2048x928 at 20 fps) on XFS on a
#              RAM-backed loop device: no device stalls, what is left is software
#   ram-flat   flat-out throughput on the same
#   ram-3x     3x the user's frame rate (60 fps per stream) on the same
#   disk-live  the user's workload on XFS on the machine's disk (a loop device
#              with direct I/O on a preallocated file, so no second page cache)
#   disk-flat  flat-out on the same
#   disk-3x    3x the frame rate on the same
#   ram-flat-nosync, disk-flat-nosync  flat out: rtframesink with its
#              default sync-interval (100 ms) and with sync-interval=0
#              (fdatasync at EOS only, as fio's end_fsync) beside fio
#   ram-flat-rotate, disk-flat-rotate  the same three flat out for 30 s
#              (--duration) a round, each stream into files of 200 frames
#              deleted as the next begins (rtframe-bench --rotate 200): rounds
#              fifteen times as long as the space alone allows on RAM
#   rotate     the user's workload on RAM-backed XFS: rtframesink writing one
#              file per stream, against a new file every 40 frames (2 s) and
#              every second (max-file-size, max-file-duration): what a split
#              costs in latency
#   durability the user's workload on XFS on the machine's disk:
#              sync-interval 0, 50 ms, 100 ms (the default), 250 ms, 1 s,
#              and checksums on: what durability and CRC32C cost
#   long       the user's workload for 10 minutes (205 GB) on RAM-backed XFS
#              of 16 GiB: rotated into 200-frame files, max-files=3 per
#              stream, so old files are deleted behind the recording
#   tail       where the long run's slow frames come from: its rotation
#              with the default sync-interval and with sync-interval=0,
#              2 interleaved rounds of 120 s, each read by
#              bench/tail-latency.sh (frames over 10 ms, near a split?)
#   tail-fio   the same against fio: the user's streams for 120 s, 2 rounds,
#              both rotating into 200-frame files (--rotate 200) and durable
#              at one sync every 100 ms a stream (fio --fio-fdatasync 2): is
#              the tail the sink's or the device path's?
#   tail-rotation  what rotation does to the tail with the cameras
#              together: rtframesink into one file, into 200-frame files
#              all kept, and into 200-frame files each deleted as the next
#              begins (max-files=1, as --rotate), 30 s, 3 interleaved rounds
#   tail-phase what the cameras' phase does to the tail: tail-fio's streams
#              and sinks, 60 s rounds, 2 rounds with the cameras triggered
#              together (every frame at once) and 2 with --stagger (a
#              third of a period apart); fio's jobs' phases are printed
#   long-stagger  long, with the cameras staggered (--stagger)
#   tail-together  both sinks' streams at once: the user's 3 streams, 30 s,
#              3 interleaved rounds, durable (sync-interval, fio an fdatasync
#              every 2 writes), without rotation (each row prints the
#              phases; fio's jobs came 0.8-3 ms apart at the nearest, not
#              together): the tail with every camera firing at once
#   builds     rtframesink of this build against the one in --against DIR (a
#              build directory of another commit), on RAM-backed XFS, at the
#              user's rate and flat out, in interleaved rounds (--rounds,
#              default 3): a change shown to cost nothing, or what it costs
#   soak       rtframesink alone at the user's rate on RAM-backed XFS, for
#              --duration seconds in all (default 1800), as recordings of 20 s
#              one after another in one process: misses, drops and peak RSS
#              of each, and a summary (is RSS steady? any miss?)
#   spread     several disks, one stream (bench/spread.sh): one stream of
#              114 MB/s onto blkio-throttled XFS loop devices: one location,
#              locations= over two (placement soonest and round-robin), md
#              RAID0 over two; both disks alike, then one slow, then one
#              stalling
#   preflight  rtframe-bench --preflight for the user's workload: on
#              RAM-backed XFS of 8 GiB (4 GB flat out), and on XFS on the
#              machine's disk as it is (12 GB), throttled to 200 MB/s (blkio,
#              4 GB), and with a cache cliff played by a throttle to
#              300 MB/s from 3 s into the flat-out phase (12 GB)
#   scale-ram  how many of the user's streams fit: 1, 2, 4, 8 (RTFRAME_SCALE_MAX)
#   scale-disk streams at 20 fps, each sink (rtframesink, queue ! filesink,
#              fio) until it first misses (rtframe-bench --scale), on
#              RAM-backed XFS and on XFS on the machine's disk
#   scale-ram-durable  the same, rtframesink's default sync-interval
#              (100 ms) against fio with an fdatasync every 2 writes
#   scale-ram-nosync   the same, rtframesink with sync-interval=0 against
#              fio with one fdatasync at the end
#   scale-ram-1080p    1920x1080 GRAY8 frames (2 MB), up to 32 streams
#   scale-ram-4k       3840x2160 P010 frames (24.9 MB, 498 MB/s a stream),
#              up to 8 streams, 5 s a count (fewer frames where 80% of the
#              filesystem holds less)
#   durable    durability priced against fio: rtframesink's default
#              sync-interval (100 ms) against fio --fdatasync=2 (one per
#              100 ms a job), 2 interleaved rounds on the machine's disk
#   ring       pre-record on disk (keep-location) on the machine's disk: the
#              user's streams for 600 s (--duration), triggers at 90 s and
#              every 120 s, 60 s before each kept, 10 s after; beside
#              rtframesink recording everything (rotating) and queue !
#              filesink; then 60 s, triggers every 20 s, the ring against
#              pre-record in memory at 1 s.  Each event checked, byte-exact,
#              and deleted as it stops; RSS each second
#   event      an event recording: the user's three streams into sinks with
#              record=false and 2 s of pre-record, started 6 s in (--trigger)
#              beside rtframesink recording everything and queue ! filesink,
#              on RAM-backed XFS and on XFS on the machine's disk: the held
#              frames' backlog, and the live frames written beside it
#
# Each writes DIR/SCENARIO.txt (the table), .csv (every frame) and .png (the
# plot).  Default DIR: bench-results/.  Needs a built tree (tools/build.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=bench-results
duration=
rounds=1
against=
scenarios=()
while [ $# -gt 0 ]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    --duration) duration=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --against) against=$(cd "$2" && pwd); shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) scenarios+=("$1"); shift ;;
  esac
done
[ ${#scenarios[@]} -gt 0 ] || scenarios=(ram-live ram-flat ram-3x disk-live disk-flat disk-3x)
[ "$(id -u)" = 0 ] || { echo "scenarios.sh: needs root (loop devices, mounts)" >&2; exit 1; }
bench=$root/build/bench/rtframe-bench
[ -x "$bench" ] || { echo "scenarios.sh: build first (tools/build.sh)" >&2; exit 1; }
export GST_PLUGIN_PATH_1_0=$root/build/gst
mkdir -p "$out"
out=$(cd "$out" && pwd)

work=$(mktemp -d /var/tmp/rtframe-bench.XXXXXX)
mnt=$work/mnt
loop=
backing=
ram=
cg=
watcher=
cleanup() {
  set +e
  stop_cliff
  unthrottle
  mountpoint -q "$mnt" && umount "$mnt"
  [ -n "$loop" ] && losetup -d "$loop"
  [ -n "$backing" ] && rm -f "$backing"
  [ -n "$ram" ] && mountpoint -q "$ram" && umount "$ram"
  rm -rf "$work"
  loop= backing= ram=
}
fresh() { cleanup; work=$(mktemp -d /var/tmp/rtframe-bench.XXXXXX); mnt=$work/mnt; }
trap cleanup EXIT
trap 'exit 130' INT TERM    # through the EXIT trap: nothing left mounted

# Writes to the loop device from this shell and what it starts limited to
# $1 bytes/s (0: no limit) through the cgroup v1 blkio controller
throttle() {
  if [ -z "$cg" ]; then
    cg=/sys/fs/cgroup/blkio/rtframe-bench-$$
    mkdir -p "$cg"
    echo $BASHPID > "$cg/cgroup.procs"
  fi
  echo "$(lsblk -no MAJ:MIN "$loop" | tr -d ' ') $1" > "$cg/blkio.throttle.write_bps_device"
}
unthrottle() {
  [ -n "$cg" ] || return 0
  echo $BASHPID > /sys/fs/cgroup/blkio/cgroup.procs
  rmdir "$cg"
  cg=
}

# A drive whose write cache fills, played by the throttle: none until $1
# seconds after the preflight's flat-out phase made its first file, then
# $2 bytes/s.  In the background until stop_cliff.
cliff() {
  throttle 0
  ( until compgen -G "$mnt/rtframe-bench-*/rtframesink-r2-s0.raw" >/dev/null; do
      sleep 0.05
    done
    sleep "$1"
    throttle "$2" ) &
  watcher=$!
}
stop_cliff() {
  [ -n "$watcher" ] || return 0
  kill "$watcher" 2>/dev/null
  wait "$watcher" 2>/dev/null
  watcher=
}

# XFS on a loop device over a file in RAM (tmpfs).  The whole file is
# written once before the runs: on a virtual machine, guest memory touched
# for the first time (or handed back to the host when freed) faults in the
# host, which made a 5.7 MB write take 50 ms instead of 2 ms.  No discard
# and no --trim, so the pages stay.  The tmpfs has huge pages (2 MiB):
# with 4 KiB ones the loop device's copies into it moved fio's flat-out
# MB/s by 18% from round to round (6 rounds, median 5283 MB/s); with huge
# ones 9% (median 6623), 2026-12-05.
setup_ram() {
  local gib=$1 huge
  ram=$work/ram
  mkdir -p "$ram" "$mnt"
  # after runs that filled the page cache, memory is in pieces and the
  # tmpfs gets 4 KiB pages where no 2 MiB ones are free (a fio round of
  # 1268 MB/s against 7582 two rounds later, while khugepaged merged
  # them): empty the cache and compact memory first
  sync
  echo 3 > /proc/sys/vm/drop_caches
  echo 1 > /proc/sys/vm/compact_memory 2>/dev/null || true
  mount -t tmpfs -o size=$((gib + 1))g,huge=always rtframe-bench-ram "$ram" \
    || { echo "scenarios.sh: no huge pages for tmpfs here: 4 KiB pages" >&2
         mount -t tmpfs -o size=$((gib + 1))g rtframe-bench-ram "$ram"; }
  backing=$ram/xfs.img
  # Every page of the image is written before mkfs, and mkfs must not
  # discard them again (-K: on a loop device a discard punches the tmpfs
  # file).  warm() alone (before 2026-12-06) wrote only what XFS let a file
  # fill, and left part of the image untouched - most likely the blocks
  # XFS keeps aside when nearly full (its reserve pool, per-AG set-asides);
  # files later landed there and the tmpfs allocated huge pages under the
  # loop device's writes: a 600 s long run had 41 of its 43 frames over
  # 10 ms in 3 moments of its first 161 s, every stream's write 20-31 ms;
  # a 240 s one sampled with bench/counters.py had 3 such moments, each
  # with thp_file_alloc rising in /proc/vmstat, which was 0 in every other
  # sample (and 0 through a 600 s run after this change).
  dd if=/dev/zero of="$backing" bs=16M count=$((gib * 64)) status=none
  loop=$(losetup --find --show "$backing")
  mkfs.xfs -q -f -K "$loop"
  mount "$loop" "$mnt"
  warm
  huge=$(awk '/^ShmemHugePages:/ { print int($2 / 1024) }' /proc/meminfo)
  echo "RAM-backed XFS of $gib GiB: ${huge:-0} MiB of the machine's tmpfs in huge pages"
}

# Write the whole filesystem once and delete it again, so whichever sink
# runs first does not pay for first writes to the backing store alone.
warm() {
  dd if=/dev/zero of="$mnt/warm" bs=16M oflag=direct status=none 2>/dev/null || true
  rm -f "$mnt/warm"
  sync
}

# XFS on a loop device with direct I/O over a file on the machine's disk.
# A preallocated file's extents start unwritten in the host filesystem:
# the first write to each converts it (measured: the sink that ran first on
# a fresh image had twice fio's p99), so the whole image is written once,
# and mkfs must not discard it again (-K: a discard on the loop device
# punches the file).  Before 2026-12-06 only warm() wrote it, which leaves
# the blocks XFS keeps aside when nearly full unwritten (setup_ram()).
setup_disk() {
  local gib=$1
  mkdir -p "$mnt"
  backing=$work/xfs.img
  fallocate -l ${gib}G "$backing"
  dd if=/dev/zero of="$backing" bs=16M count=$((gib * 64)) oflag=direct \
    conv=notrunc status=none
  loop=$(losetup --find --show --direct-io=on "$backing")
  mkfs.xfs -q -f -K "$loop"
  mount "$loop" "$mnt"
  warm
}

run() {
  local name=$1; shift
  echo "== $name: $bench $* (on $(findmnt -no SOURCE,FSTYPE "$mnt" | tr -s ' '))"
  {
    echo "# $name  $(date -u +%FT%TZ)  $(uname -r)  $(nproc) CPUs  $(free -g | awk '/Mem:/{print $2}') GiB"
    echo "# rtframe-bench $*  (on $(findmnt -no FSTYPE "$mnt") over $1)"
  } > "$out/$name.txt"
  local status=0
  "$bench" --dir "$mnt" --drop-caches --rounds "$rounds" \
      --csv "$out/$name.csv" --plot "$out/$name.png" "${@:2}" \
    | tee -a "$out/$name.txt" || status=$?
  # --preflight's verdicts "holds with warnings" (3), "will fall behind" (4)
  case " $* " in
    *" --preflight "*) { [ $status = 3 ] || [ $status = 4 ]; } && status=0 ;;
  esac
  return $status
}

free_gib=$(awk '/MemAvailable/{print int($2/1048576)}' /proc/meminfo)
disk_gib=$(df -BG --output=avail /var/tmp | tail -1 | tr -dc 0-9)

# Each SINK's rounds of a rotating run read by tail-latency.sh (frames
# over 10 ms, near a split of its files of EVERY frames?), appended to TXT
# under "## PREFIXSINK, round R": tail_by_round CSV TXT PREFIX EVERY SINK...
tail_by_round() {
  local csv=$1 txt=$2 prefix=$3 every=$4 sink r
  shift 4
  for sink in "$@"; do
    for r in $(seq "${RTFRAME_TAIL_ROUNDS:-2}"); do
      echo "## ${prefix}${sink}, round $r" | tee -a "$txt"
      # the CSV writes a spec's commas as semicolons (bench-report.c)
      awk -F, -v r="$r" -v s="${sink//,/;}" 'NR == 1 || ($2 == r && $1 == s)' \
        "$csv" > "$work/tail-one.csv"
      # sed reads it all: head would leave tail-latency.sh a SIGPIPE,
      # and set -e with pipefail would end the script
      "$root/bench/tail-latency.sh" "$work/tail-one.csv" "$every" 10 5 \
        | sed -n 1,2p | tee -a "$txt"
    done
  done
}

# The soak's summary, from its table: one row per 20 s recording
soak_summary() {
  awk '$1 == "rtframesink" && $2 ~ /^[0-9]+$/ {
         n++; off += $3; wr += $4; drop += $5; lost += $6; miss += $7;
         rss = $(NF - 7); if (n == 1) first = rss; last = rss;
         if (rss > max) max = rss; if (min == "" || rss < min) min = rss;
         if ($NF != "ok") bad++ }
       END { printf "soak: %d recordings of 20 s, %d frames offered, %d written, %d dropped, %d lost at the camera, %d missed; peak RSS first %.1f MB, last %.1f MB, range %.1f-%.1f MB; %s\n",
               n, off, wr, drop, lost, miss, first, last, min, max,
               bad ? bad " recordings FAILED verification" : "every file verified" }' "$1"
}

# builds: one bench run of rtframesink with the plugin of build $1 (this
# or --against), its row appended to $out/builds.txt with a label
build_run() {
  local label=$1 plugin=$2 mode=$3; shift 3
  echo "== builds: $label $mode"
  GST_PLUGIN_PATH_1_0=$plugin "$bench" --dir "$mnt" --drop-caches --quiet \
      --no-fio --sink rtframesink "$@" \
    | awk -v l="$label" -v m="$mode" '$1 == "rtframesink" && $2 ~ /^[0-9]+$/ {
        print l, m, $0 }' | tee -a "$out/builds.txt"
}

# builds: per build and mode, the runs' MB/s, lat99 and latmax (ms) and misses
builds_summary() {
  # label mode rtframesink round offered written drop camlost misses |
  # block99 blockmax | lat50 lat99 lat99.9 latmax | MB/s | ...
  printf "%-8s %-6s %-28s %-28s %-28s %s\n" build mode "MB/s" "lat99 ms" \
    "latmax ms" misses
  awk '{ k = $1 " " $2; n[k]++; mbs[k] = mbs[k] " " $19;
         p99[k] = p99[k] " " $15; mx[k] = mx[k] " " $17; miss[k] += $9 }
       END { for (k in n) { split(k, a, " ");
               printf "%-8s %-6s %-28s %-28s %-28s %d\n", a[1], a[2], mbs[k],
                 p99[k], mx[k], miss[k] } }' "$1" | sort -r
}

for s in "${scenarios[@]}"; do
  if [ "$s" = builds ]; then
    [ -n "$against" ] && [ -d "$against/gst" ] \
      || { echo "scenarios.sh: builds needs --against BUILD_DIR" >&2; exit 2; }
    setup_ram 12
    : > "$out/builds.txt"
    echo "# this: $root/build; against: $against; $(date -u +%FT%TZ)" >> "$out/builds.txt"
    for r in $(seq "$rounds"); do
      for b in this against; do
        p=$root/build/gst; [ $b = against ] && p=$against/gst
        build_run $b "$p" live --duration "${duration:-20}"
        build_run $b "$p" flat --duration "${duration:-10}" --flat-out
      done
    done
    grep -v '^#' "$out/builds.txt" | builds_summary /dev/stdin | tee -a "$out/builds.txt"
    fresh
    continue
  fi
  if [ "$s" = rotate ]; then
    setup_ram $(( free_gib * 3 / 4 > 40 ? 40 : free_gib * 3 / 4 ))
    run rotate "RAM (tmpfs)" --duration "${duration:-30}" --no-fio \
      --sink rtframesink --sink rtframesink:max-file-size=228065280 \
      --sink rtframesink:max-file-duration=1000000000
    awk -f "$root/bench/split-latency.awk" "$out/rotate.csv" | tee -a "$out/rotate.txt"
    fresh
    continue
  fi
  if [ "$s" = long ]; then
    setup_ram 16
    run long "RAM (tmpfs)" --duration "${duration:-600}" --no-fio \
      --sink rtframesink:max-file-size=1140326400,max-files=3
    fresh
    continue
  fi
  if [ "$s" = tail ]; then
    # What the long run's slow frames come from (issue 28): its rotation
    # (200-frame files, max-files=3) with the default sync-interval
    # (100 ms) and with sync-interval=0, 2 interleaved rounds of 120 s
    setup_ram 16
    saved=$rounds
    rounds=${RTFRAME_TAIL_ROUNDS:-2}
    run tail "RAM (tmpfs)" --duration "${duration:-120}" --no-fio \
      --sink rtframesink:max-file-size=1140326400,max-files=3 \
      --sink rtframesink:max-file-size=1140326400,max-files=3,sync-interval=0
    rounds=$saved
    for sink in "max-files=3" "sync-interval=0"; do
      for r in $(seq "${RTFRAME_TAIL_ROUNDS:-2}"); do
        echo "## ${sink}, round $r" | tee -a "$out/tail.txt"
        awk -F, -v r="$r" -v s="$sink" 'NR == 1 || ($2 == r && \
            ((s == "sync-interval=0") == ($1 ~ /sync-interval=0/)))' \
          "$out/tail.csv" > "$work/tail-one.csv"
        # sed reads it all: head would leave tail-latency.sh a SIGPIPE,
        # and set -e with pipefail would end the script
        "$root/bench/tail-latency.sh" "$work/tail-one.csv" 200 10 5 \
          | sed -n 1,2p | tee -a "$out/tail.txt"
      done
    done
    fresh
    continue
  fi
  if [ "$s" = tail-fio ]; then
    # Is the long run's tail the sink or the device path (issue 28)?  The
    # same rotation (200-frame files, --rotate: rtframesink max-files=1,
    # fio unlink_each_loop) and durability (rtframesink's default
    # sync-interval, fio an fdatasync every 2 writes: one every 100 ms a
    # job), 2 interleaved rounds of 120 s, each read by tail-latency.sh
    setup_ram 16
    saved=$rounds
    rounds=${RTFRAME_TAIL_ROUNDS:-2}
    run tail-fio "RAM (tmpfs)" --duration "${duration:-120}" --rotate 200 \
      --sink rtframesink --sink fio --fio-fdatasync 2
    rounds=$saved
    tail_by_round "$out/tail-fio.csv" "$out/tail-fio.txt" "" 200 \
      rtframesink fio
    fresh
    continue
  fi
  if [ "$s" = long-stagger ]; then
    setup_ram 16
    run long-stagger "RAM (tmpfs)" --duration "${duration:-600}" --no-fio \
      --stagger --sink rtframesink:max-file-size=1140326400,max-files=3
    "$root/bench/tail-latency.sh" "$out/long-stagger.csv" 200 10 5 \
      | sed -n 1,12p | tee "$out/long-stagger.txt"
    fresh
    continue
  fi
  if [ "$s" = tail-together ]; then
    # With --rotate, fio lays out each job's next file when the last is
    # done and its jobs drift apart (2-7 ms at the nearest, never all
    # three at once: tail-phase).  With one file a job they were expected
    # to start together; they did not (0.8-3 ms apart at the nearest,
    # 2026-12-06), so this shows rtframesink's cameras together beside
    # fio's jobs close but apart
    setup_ram 16
    saved=$rounds
    rounds=${RTFRAME_TAIL_ROUNDS:-3}
    run tail-together "RAM (tmpfs)" --duration "${duration:-30}" \
      --sink rtframesink --sink fio --fio-fdatasync 2
    RTFRAME_TAIL_ROUNDS=$rounds tail_by_round "$out/tail-together.csv" \
      "$out/tail-together.txt" "" 1000000 rtframesink fio
    rounds=$saved
    fresh
    continue
  fi
  if [ "$s" = tail-rotation ]; then
    # tail-together gave rtframesink p99.9 4.2-5.3 ms without rotation,
    # where tail-phase's rotating runs on the machine before gave 10-48 ms
    # (2026-12-06); the one file is read as one file (no splits)
    setup_ram 16
    saved=$rounds
    rounds=${RTFRAME_TAIL_ROUNDS:-3}
    one=rtframesink:max-file-size=1140326400
    run tail-rotation "RAM (tmpfs)" --duration "${duration:-30}" --no-fio \
      --sink rtframesink --sink "$one" --sink "$one,max-files=1"
    RTFRAME_TAIL_ROUNDS=$rounds tail_by_round "$out/tail-rotation.csv" \
      "$out/tail-rotation.txt" "" 1000000 rtframesink
    RTFRAME_TAIL_ROUNDS=$rounds tail_by_round "$out/tail-rotation.csv" \
      "$out/tail-rotation.txt" "" 200 "$one" "$one,max-files=1"
    rounds=$saved
    fresh
    continue
  fi
  if [ "$s" = tail-phase ]; then
    # The cameras' phase (2026-12-06): with rtframesink's 3 cameras
    # triggered together its 3-stream p99.9 was 19-20 ms, with the same
    # streams a third of a period apart 4.9 ms; fio's jobs start where
    # fio starts them (phases printed in each row)
    setup_ram 16
    saved=$rounds
    rounds=${RTFRAME_TAIL_ROUNDS:-2}
    for phase in together stagger; do
      extra=()
      [ $phase = stagger ] && extra=(--stagger)
      run "tail-$phase" "RAM (tmpfs)" --duration "${duration:-60}" \
        --rotate 200 --sink rtframesink --sink fio --fio-fdatasync 2 \
        "${extra[@]}"
      tail_by_round "$out/tail-$phase.csv" "$out/tail-phase.txt" "$phase, " \
        200 rtframesink fio
    done
    rounds=$saved
    fresh
    continue
  fi
  if [ "$s" = durability ]; then
    setup_disk $(( disk_gib * 3 / 4 > 64 ? 64 : disk_gib * 3 / 4 ))
    run durability "$(findmnt -no SOURCE -T /var/tmp)" \
      --duration "${duration:-20}" --no-fio \
      --sink rtframesink:sync-interval=0 \
      --sink rtframesink:sync-interval=50000000 \
      --sink rtframesink:sync-interval=100000000 \
      --sink rtframesink:sync-interval=250000000 \
      --sink rtframesink:sync-interval=1000000000 \
      --sink rtframesink:checksums=true
    fresh
    continue
  fi
  if [ "$s" = spread ]; then
    "$root/bench/spread.sh" "$out/spread.txt" "${duration:-10}"
    continue
  fi
  if [ "$s" = preflight ]; then
    d=${duration:-10}
    setup_ram 8
    run preflight-ram "RAM (tmpfs)" --preflight --duration "$d" --size 4G
    fresh
    setup_disk $(( disk_gib * 3 / 4 > 24 ? 24 : disk_gib * 3 / 4 ))
    over=$(findmnt -no SOURCE -T /var/tmp)
    run preflight-disk "$over" --preflight --duration "$d" --size 12G --take 1m
    throttle 200000000
    run preflight-throttled "$over, throttled to 200 MB/s" --preflight \
      --duration "$d" --size 4G
    cliff 3 300000000
    run preflight-cliff "$over, 300 MB/s from 3 s into flat out" --preflight \
      --duration "$d" --size 12G
    stop_cliff
    unthrottle
    fresh
    continue
  fi
  if [ "$s" = event ]; then
    # An event recording (issue 16): 2 s held, the trigger 6 s in, beside
    # a sink recording everything and queue ! filesink, on RAM and on the
    # machine's disk: do live frames keep their deadline while the backlog
    # of 2 s (120 frames, 684 MB) is written?
    d=${duration:-12}
    ev=(--duration "$d" --trigger 6 --no-fio --sink rtframesink
        --sink rtframesink:record=false,pre-record-time=2000000000
        --sink queue-filesink)
    setup_ram 16
    run event-ram "RAM (tmpfs)" "${ev[@]}"
    fresh
    setup_disk $(( disk_gib * 3 / 4 > 24 ? 24 : disk_gib * 3 / 4 ))
    run event-disk "$(findmnt -no SOURCE -T /var/tmp)" "${ev[@]}"
    fresh
    continue
  fi
  if [ "$s" = ring ]; then
    # Pre-record on disk (keep-location), on the machine's disk: the
    # user's streams for 10 minutes (--duration), a trigger at 90 s and
    # every 120 s, each recording stopped 10 s after it, 60 s kept before
    # it, beside rtframesink recording everything (1 s files, the last 60
    # kept: 205 GB do not fit) and queue ! filesink (stopped where the
    # space ends); then 60 s with a trigger every 20 s, the ring against
    # pre-record in memory at 1 s.  Each event's directory is checked and
    # deleted as it stops (bench/bench-ring.c).
    d=${duration:-600}
    setup_disk $(( disk_gib - 8 > 56 ? 56 : disk_gib - 8 ))
    run ring-long "$(findmnt -no SOURCE -T /var/tmp)" --duration "$d" \
      --trigger 90 --trigger-every 120 --post 10 --no-fio \
      --sink rtframesink:max-file-duration=1000000000,max-files=60 \
      --sink rtframesink:record=false,pre-record-time=60000000000,keep-location=@events \
      --sink queue-filesink
    run ring-1s "$(findmnt -no SOURCE -T /var/tmp)" --duration 60 \
      --trigger 20 --trigger-every 20 --post 5 --no-fio \
      --sink rtframesink:record=false,pre-record-time=1000000000,keep-location=@events \
      --sink rtframesink:record=false,pre-record-time=1000000000
    fresh
    continue
  fi
  if [ "$s" = soak ]; then
    total=${duration:-1800}
    setup_ram 12
    rounds=$(( (total + 19) / 20 ))
    run soak "RAM (tmpfs)" --sink rtframesink --duration 20
    soak_summary "$out/soak.txt" | tee -a "$out/soak.txt"
    fresh
    continue
  fi
  if [[ $s == scale-* ]]; then
    # How many streams fit (issue 28): 1, 2, 4, ... streams, each sink
    # until it first falls behind.  The user's (P010 2048x928 at 20 fps)
    # with the default sinks; both durable (rtframesink's sync-interval of
    # 100 ms, fio's fdatasync every 2 writes) and neither (sync-interval=0,
    # fio's one fdatasync at the end); other cameras' frames
    d=${duration:-10}
    max=${RTFRAME_SCALE_MAX:-8}
    case $s in
      scale-ram|scale-disk) sc=() ;;
      scale-ram-durable) sc=(--sink rtframesink --sink fio --fio-fdatasync 2) ;;
      scale-ram-nosync) sc=(--sink rtframesink:sync-interval=0 --sink fio) ;;
      scale-ram-1080p) sc=(--format GRAY8 --width 1920 --height 1080)
                       max=${RTFRAME_SCALE_MAX:-32} ;;
      scale-ram-4k) sc=(--format P010_10LE --width 3840 --height 2160)
                    d=${duration:-5} ;;  # 8 x 498 MB/s: cut to what fits
      *) echo "scenarios.sh: unknown scenario $s" >&2; exit 2 ;;
    esac
    if [[ $s == scale-ram* ]]; then
      setup_ram $(( free_gib * 3 / 4 )); over="RAM (tmpfs)"
    else
      setup_disk $(( disk_gib * 3 / 4 > 64 ? 64 : disk_gib * 3 / 4 ))
      over=$(findmnt -no SOURCE -T /var/tmp)
    fi
    run "$s" "$over" --duration "$d" --scale "$max" "${sc[@]}"
    fresh
    continue
  fi
  if [ "$s" = durable ]; then
    # Durability priced against fio (issue 28): rtframesink with its
    # default sync-interval (100 ms) against fio with an fdatasync every 2
    # writes (at 20 fps, one every 100 ms a job), interleaved rounds, on
    # the machine's disk
    d=${duration:-20}
    setup_disk $(( disk_gib * 3 / 4 > 24 ? 24 : disk_gib * 3 / 4 ))
    saved=$rounds
    rounds=${RTFRAME_DURABLE_ROUNDS:-2}
    run durable "$(findmnt -no SOURCE -T /var/tmp)" --duration "$d" \
      --sink rtframesink --sink fio --fio-fdatasync 2
    rounds=$saved
    fresh
    continue
  fi
  # where, and the rate that decides how long one sink's recording fits
  case $s in
    ram-*) gib=$(( free_gib * 3 / 4 )) ;;
    disk-*) gib=$(( disk_gib * 3 / 4 )); [ "$gib" -gt 64 ] && gib=64 ;;
    *) echo "scenarios.sh: unknown scenario $s" >&2; exit 2 ;;
  esac
  case $s in
    *-live) rate=342; args=() ;;
    *-3x) rate=1026; args=(--fps 60) ;;
    *-flat) rate=2500; args=(--flat-out --warmup-rounds 1) ;;
    *-flat-nosync) rate=2500; args=(--flat-out --warmup-rounds 1 --sink rtframesink
        --sink rtframesink:sync-interval=0 --sink fio) ;;
    *-flat-rotate) rate=0; args=(--flat-out --rotate 200 --warmup-rounds 1
        --sink rtframesink --sink rtframesink:sync-interval=0 --sink fio) ;;
    *) echo "scenarios.sh: unknown scenario $s" >&2; exit 2 ;;
  esac
  if [ "$rate" = 0 ]; then
    # rotating: the duration decides, not the space.  30 s: the device
    # path here shifts level for seconds at a time (fio alone, 20 s
    # rounds: 8954 8511 3590 8467 8523 MB/s); rtframesink's rounds spread
    # 15% at 10 s and 6.9% at 30 s (2026-12-05)
    d=${duration:-30}
  else
    d=${duration:-$(( gib * 1000 * 8 / 10 / rate ))}
    [ "$d" -gt 60 ] && [ -z "$duration" ] && d=60
  fi
  case $s in
    ram-*) setup_ram "$gib"; over="RAM (tmpfs)" ;;
    disk-*) setup_disk "$gib"; over=$(findmnt -no SOURCE -T /var/tmp) ;;
  esac
  run "$s" "$over" --duration "$d" "${args[@]}"
  fresh
done
echo "results in $out"
