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
# OUT_DIR (new or empty) gets bench.txt, steps.txt (the figures), and
# bench.pid, matched.txt, perf.data, trace.txt (what they are made from).
# e.g. bench/write-steps.sh /var/tmp/steps --dir /mnt/x --streams 3 \
#        --duration 40 --rotate 200 --fio-fdatasync 2 --sink rtframesink --sink fio
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 2; }
out=$1; shift
root=$(cd "$(dirname "$0")/.." && pwd)
bench=$root/build/bench/rtframe-bench
command -v perf >/dev/null || { echo "write-steps.sh: no perf (apt-get install linux-perf)" >&2; exit 1; }
[ -x "$bench" ] || { echo "write-steps.sh: build first (tools/build.sh)" >&2; exit 1; }
# writes are told apart by process and thread name only: one rtframesink
# spec and fio at most a run (helper-34: two specs made one row)
n=0
for a in "$@"; do case $a in rtframesink*|--sink=rtframesink*) n=$((n + 1)) ;; esac; done
[ "$n" -le 1 ] || { echo "write-steps.sh: one rtframesink spec a run (its writes are named by sink kind only)" >&2; exit 2; }
# its files go into a directory of its own: a new or empty one, so
# nothing of anyone else's is overwritten
[ ! -e "$out" ] || { [ -d "$out" ] && [ -z "$(ls -A "$out")" ]; } \
  || { echo "write-steps.sh: $out is not a new or empty directory" >&2; exit 2; }
mkdir -p "$out"
export GST_PLUGIN_PATH_1_0=$root/build/gst
# the bench's own processes (it, and the fio it starts): their pids from
# its pid and the forks; every other process's writes are left out
perf record -q -o "$out/perf.data" -a -e sched:sched_process_fork \
  -e io_uring:io_uring_submit_req -e io_uring:io_uring_queue_async_work \
  -e io_uring:io_uring_complete -e iomap:iomap_dio_rw_begin \
  -e iomap:iomap_dio_complete -- \
  sh -c 'echo $$ > "$0/bench.pid"; exec "$@"' "$out" "$bench" --quiet "$@" \
  | tee "$out/bench.txt"
perf script -i "$out/perf.data" -F comm,pid,tid,time,event,trace 2>/dev/null > "$out/trace.txt"
# A write is matched to its steps by the thread that submitted it (an
# io_uring worker is named iou-wrk-<that thread>): its n-th large write
# submitted is the n-th large direct write that thread's workers begin,
# which ends where (device, inode, offset + length) says, its completion
# the one of that end in the same order.  A begin whose attempt failed
# (EAGAIN under IOCB_NOWAIT: its completion comes at the start offset,
# with an error) is not counted.  Workers may begin a thread's writes out
# of order while several are in flight: those pairs come out impossible
# and are counted apart, as unmatched.
awk -v bench_pid="$(cat "$out/bench.pid")" '
function field(key,   i, v) { for (i = 1; i <= NF; i++) if ($i == key) { v = $(i + 1); sub(/,$/, "", v); return v } return "" }
function hex(s,   i, c, v) { v = 0; s = tolower(s); sub(/^0x/, "", s)
  for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)); if (!c) break; v = v * 16 + c - 1 }
  return v }
BEGIN { ours[bench_pid] = 1 }
{ t = ""; for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) { t = $i; sub(/:$/, "", t); t = t + 0; split($(i - 1), pt, "/"); pid = pt[1]; tid = pt[2]; break }
  if (t == "") next }
/sched_process_fork:/ { child = ""
  # in the forking thread: its process (pid) is the one to look up
  for (i = 1; i <= NF; i++) if ($i ~ /^child_pid=/) { child = $i; sub(/^child_pid=/, "", child) }
  if (pid in ours) ours[child] = 1; next }
# a completion runs where the device interrupt or a worker takes it:
# kept whoever it is, matched by its file and offset to a write of ours
/iomap_dio_complete:/ { off = hex(field("offset")); k = field("dev") " " field("ino") " " off
  if (field("error") != "0") { if (k in last_at) failed[last_at[k]] = 1; next }
  done[k, ++done_at[k]] = t; next }
!(pid in ours) { next }
/io_uring_submit_req:/ { op = field("opcode")
  # rtframesink: WRITE_FIXED (its index is a small WRITE); fio: WRITE
  if (op == "WRITE_FIXED" || (op == "WRITE" && $1 ~ /^fio/)) {
    r = field("req"); n = ++subs[tid]; sub_t[tid, n] = t; sub_r[tid, n] = r
    who[tid] = ($1 ~ /^fio/) ? "fio" : "rtframesink"; submitted[who[tid]]++
    pending[r] = tid SUBSEP n } next }
/io_uring_complete:/ { r = field("req"); if (r in pending) { cqe[pending[r]] = t; delete pending[r] } next }
/iomap_dio_rw_begin:/ { len = hex(field("length")); if (len < 1048576) next
  w = ($1 ~ /^iou-wrk-/) ? substr($1, 9) : tid; start = field("dev") " " field("ino") " " hex(field("offset"))
  k = field("dev") " " field("ino") " " (hex(field("offset")) + len)
  n = ++begins[w]; beg_t[w, n] = t; beg_k[w, n] = k SUBSEP (++began_at[k]); last_at[start] = w SUBSEP n; next }
END {
  # each thread'"'"'s begins, the failed attempts left out, renumbered
  for (w in begins) { m = 0; for (n = 1; n <= begins[w]; n++) if (!((w, n) in failed)) { m++; bt[w, m] = beg_t[w, n]; bk[w, m] = beg_k[w, n] } }
  for (key in sub_t) { split(key, p, SUBSEP); s = p[1]; n = p[2]
    if (!((s, n) in bt) || !((s, n) in cqe) || !(bk[s, n] in done)) continue
    b = bt[s, n]; d = done[bk[s, n]]; c = cqe[s, n]
    if (!(sub_t[key] <= b && b <= d && d <= c)) continue
    matched[who[s]]++
    printf "%s 1-pick-up %.6f\n%s 2-io %.6f\n%s 3-post %.6f\n%s 0-total %.6f\n", who[s], (b - sub_t[key]) * 1000, who[s], (d - b) * 1000, who[s], (c - d) * 1000, who[s], (c - sub_t[key]) * 1000 }
  for (x in submitted) printf "%s 9-matched %d/%d\n", x, matched[x] + 0, submitted[x] > "/dev/stderr" }
' "$out/trace.txt" 2> "$out/matched.txt" | sort -k1,2 -k3g | awk '
function at(q,   i) { i = int(n * q) + 1; if (i > n) i = n; return v[i] }
function flush() { if (n) printf "%-12s %-10s %6d writes  p50 %7.3f  p99 %7.3f  p99.9 %7.3f  max %7.3f ms\n", a, b, n, at(.5), at(.99), at(.999), v[n] }
{ if ($1 " " $2 != last) { flush(); n = 0; last = $1 " " $2; a = $1; b = $2 } v[++n] = $3 }
END { flush() }' > "$out/steps.txt"
awk '{ split($3, m, "/"); printf "%-12s %s of its %s large writes matched to their steps (the rest: begun out of order, or not traced)\n", $1, m[1], m[2] }' "$out/matched.txt" >> "$out/steps.txt"
cat "$out/steps.txt"
grep -q "writes  p50" "$out/steps.txt" || { echo "write-steps.sh: no write matched its steps (no iomap tracepoints?)" >&2; exit 1; }
