#!/usr/bin/env bash
# Where a long run's slow frames come from: from rtframe-bench's per-frame
# CSV (--csv) of one rotated sink, its latency percentiles, the frames over
# a threshold, how many of those are just after a file split, and the
# moments (100 ms bins) they cluster in.  docs/performance.md, "The long
# tail".
#   bench/tail-latency.sh long.csv [FRAMES_A_FILE=200] [OVER_MS=10] [NEAR=5]
# A frame's place in its file is its number modulo FRAMES_A_FILE: right
# for a run with no frame lost at the camera (the long run's: 0).
set -euo pipefail
csv=$1 every=${2:-200} over=${3:-10} near=${4:-5}
lat=$(mktemp); trap 'rm -f "$lat"' EXIT
awk -F, 'NR > 1 && $9 == 1 { print $7 }' "$csv" | sort -g > "$lat"
m=$(wc -l < "$lat")
[ "$m" -gt 0 ] || { echo "no written frames in $csv"; exit 0; }
pct() { sed -n "$(( $1 > 0 ? $1 : 1 ))p" "$lat"; }
printf "frames %d; p99 %s ms, p99.9 %s ms, max %s ms\n" "$m" \
  "$(pct $(( m * 99 / 100 )))" "$(pct $(( m * 999 / 1000 )))" "$(pct "$m")"
awk -F, -v every="$every" -v over="$over" -v near="$near" -v m="$m" '
NR > 1 && $9 == 1 && $7 > over {
  slow++
  pos = $4 % every
  if (pos < near) at_split++
  bin = int($5 * 10)
  if (!(bin in ev)) order[++events] = bin
  ev[bin]++; if ($7 > evmax[bin]) evmax[bin] = $7
  evpos[bin] = evpos[bin] " " $3 ":" pos
}
END {
  printf "over %s ms: %d frames (%.3f%%); %d of them within %d frames after a split (%.1f%%; %.1f%% of all frames are)\n",
    over, slow, 100 * slow / m, at_split, near,
    slow ? 100 * at_split / slow : 0, 100 * near / every
  printf "in %d moments (100 ms bins); the worst (stream:frame in its file):\n", events
  for (i = 1; i <= events; i++) { b = order[i]
    printf "  %8.2f ms  t=%7.1f s  %d frames:%s\n", evmax[b], b / 10, ev[b], evpos[b] }
}' "$csv" | { IFS= read -r l1; IFS= read -r l2; echo "$l1"; echo "$l2"; sort -rn | head -15; }
