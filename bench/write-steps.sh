#!/usr/bin/env bash
# Where a data write's time goes, in the kernel, for rtframesink and fio:
# runs rtframe-bench under `perf record` (io_uring's submit_req,
# queue_async_work and complete; iomap's dio_rw_begin and dio_complete)
# and splits each write of 1 MiB or more into
#   pick-up  submitted -> begun (by an io_uring worker, or inline)
#   io       begun -> done (the device, the filesystem's end_io)
#   post     done -> its completion posted to the submitter's ring
# with p50/p99/p99.9/max in ms per sink.  docs/performance.md, "The
# cameras' phase".  Root (perf's tracepoints); Linux 6.x with iomap's
# tracepoints (XFS, ext4's direct I/O).
#   bench/write-steps.sh OUT_DIR RTFRAME-BENCH-ARGS...
# OUT_DIR (new or empty) gets bench.txt, perf.data, trace.txt, steps.txt.
# e.g. bench/write-steps.sh /var/tmp/steps --dir /mnt/x --streams 3 \
#        --duration 40 --rotate 200 --fio-fdatasync 2 --sink rtframesink --sink fio
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 2; }
out=$1; shift
root=$(cd "$(dirname "$0")/.." && pwd)
bench=$root/build/bench/rtframe-bench
command -v perf >/dev/null || { echo "write-steps.sh: no perf (apt-get install linux-perf)" >&2; exit 1; }
[ -x "$bench" ] || { echo "write-steps.sh: build first (tools/build.sh)" >&2; exit 1; }
# its four files go into a directory of its own: a new or empty one, so
# nothing of anyone else's is overwritten
[ ! -e "$out" ] || { [ -d "$out" ] && [ -z "$(ls -A "$out")" ]; } \
  || { echo "write-steps.sh: $out is not a new or empty directory" >&2; exit 2; }
mkdir -p "$out"
export GST_PLUGIN_PATH_1_0=$root/build/gst
perf record -q -o "$out/perf.data" -a \
  -e io_uring:io_uring_submit_req -e io_uring:io_uring_queue_async_work \
  -e io_uring:io_uring_complete -e iomap:iomap_dio_rw_begin \
  -e iomap:iomap_dio_complete -- "$bench" --quiet "$@" | tee "$out/bench.txt"
perf script -i "$out/perf.data" -F comm,tid,time,event,trace 2>/dev/null > "$out/trace.txt"
# a write is matched to its steps by the thread that submitted it (an
# io_uring worker is named iou-wrk-<that thread>): its n-th large write
# submitted is the n-th large direct write that thread's workers begin,
# which ends where (inode, offset + length) says, its completion the one
# of that end in the same order
awk '
function field(key,   i, v) { for (i = 1; i <= NF; i++) if ($i == key) { v = $(i + 1); sub(/,$/, "", v); return v } return "" }
function hex(s,   i, c, v) { v = 0; s = tolower(s); sub(/^0x/, "", s)
  for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)); if (!c) break; v = v * 16 + c - 1 }
  return v }
{ t = ""; for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i; sub(/:$/, "", t); tid = $(i - 1); break }
  if (t == "") next }
/io_uring_submit_req:/ { op = field("opcode")
  # rtframesink: WRITE_FIXED (its index is a small WRITE); fio: WRITE
  if (op == "WRITE_FIXED" || (op == "WRITE" && $1 ~ /^fio/)) {
    r = field("req"); n = ++subs[tid]; sub_t[tid, n] = t; sub_r[tid, n] = r
    who[tid] = ($1 ~ /^fio/) ? "fio" : "rtframesink"; pending[r] = tid SUBSEP n } next }
/io_uring_complete:/ { r = field("req"); if (r in pending) { cqe[pending[r]] = t; delete pending[r] } next }
/iomap_dio_rw_begin:/ { len = hex(field("length")); if (len < 1048576) next
  w = ($1 ~ /^iou-wrk-/) ? substr($1, 9) : tid; n = ++begins[w]
  # a rotated file'"'"'s inode and offsets come back: the j-th write to end
  # at (inode, offset) is the j-th completion there
  k = field("ino") " " (hex(field("offset")) + len)
  beg_t[w, n] = t; beg_k[w, n] = k SUBSEP (++began_at[k]); next }
/iomap_dio_complete:/ { k = field("ino") " " hex(field("offset")); done[k, ++done_at[k]] = t; next }
END { for (key in sub_t) { split(key, p, SUBSEP); s = p[1]; n = p[2]
    if (!((s, n) in beg_t) || !((s, n) in cqe) || !(beg_k[s, n] in done)) continue
    b = beg_t[s, n]; d = done[beg_k[s, n]]; c = cqe[s, n]
    if (!(sub_t[key] <= b && b <= d && d <= c)) continue
    printf "%s 1-pick-up %.6f\n%s 2-io %.6f\n%s 3-post %.6f\n%s 0-total %.6f\n", who[s], (b - sub_t[key]) * 1000, who[s], (d - b) * 1000, who[s], (c - d) * 1000, who[s], (c - sub_t[key]) * 1000 } }
' "$out/trace.txt" | sort -k1,2 -k3g | awk '
function at(q,   i) { i = int(n * q) + 1; if (i > n) i = n; return v[i] }
function flush() { if (n) printf "%-12s %-10s %6d writes  p50 %7.3f  p99 %7.3f  p99.9 %7.3f  max %7.3f ms\n", a, b, n, at(.5), at(.99), at(.999), v[n] }
{ if ($1 " " $2 != last) { flush(); n = 0; last = $1 " " $2; a = $1; b = $2 } v[++n] = $3 }
END { flush() }' | tee "$out/steps.txt"
[ -s "$out/steps.txt" ] || { echo "write-steps.sh: no write matched its steps (no iomap tracepoints?)" >&2; exit 1; }
