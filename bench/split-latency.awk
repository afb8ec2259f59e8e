# What a file split costs: from rtframe-bench's per-frame CSV (--csv) of
# the "rotate" scenario, the write latency of the frames that start a new
# file against all the others, per sink and round.  Plain rtframesink
# (no rotation) gets the same split of its frames, as a control.
#   awk -f bench/split-latency.awk rotate.csv
# Files: max-file-size=228065280 holds 40 frames of 5701632 bytes;
# max-file-duration=1000000000 holds 20 frames at 20 fps.
BEGIN { FS = "," }
NR > 1 {
  key = $1 " round " $2
  every = ($1 ~ /max-file-duration/) ? 20 : 40
  if ($4 % every == 0 && $4 > 0) {
    ns[key]++; ss[key] += $7; if ($7 > sm[key]) sm[key] = $7
  } else {
    no[key]++; so[key] += $7; if ($7 > om[key]) om[key] = $7
  }
}
END {
  for (k in ns)
    printf "%-46s first frame of a file: n=%d mean %.2f ms max %.2f ms | other frames: n=%d mean %.2f ms max %.2f ms\n",
      k, ns[k], ss[k] / ns[k], sm[k], no[k], so[k] / no[k], om[k] | "sort"
}
