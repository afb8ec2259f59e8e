#!/bin/sh
# kernel-disk-mb: 1200
# kernel-disks: 4
# kernel-cache: writeback
# kernel-queues: 1
# kernel-after: tests/powercut/replay-on-host.sh
# In a guest of tools/test-kernel.sh: power cuts, replayed from the log of
# the kernel's own dm-log-writes target (tests/powercut/: what is
# recorded, what must hold at every point, how the log is replayed).
#  1. scenario "main" on /dev/vda, its log on /dev/vdb: a spread over two
#     XFS (rotation, max-files, sync-interval) and an event recorder near
#     min-free-space, every frames-durable the sinks tell marked in the
#     log; then a sample of its points replayed here, so that Debian's
#     own XFS recovers each image (the log and the history go out, and
#     tests/powercut/replay-on-host.sh checks many more points on this
#     machine after the guest);
#     (QEMU's disks through this machine's page cache: with O_DIRECT
#     here, writes to the log's disk failed now and then with EIO, 2 runs
#     in 5, and the target stopped logging; and one virtio queue a disk:
#     dm-log-writes takes the writes completed so far when a flush is
#     sent, and logs them when it completes, so two flushes completing
#     out of the order they were sent log an older write after a newer
#     one of the same block - one kept log held an index block with a
#     record at entry 1226 and the same block without it at 1228.  With
#     a queue a CPU, the guest's two CPUs complete flushes in either
#     order; with one queue, in the order the disk finished them)
#  2. scenario "realtime" on /dev/vdc, its log on /dev/vdd: XFS with a
#     realtime section (realtime=true), recorded and replayed here only
#     (the machine's kernel may have no CONFIG_XFS_RT).
# The samples are drawn by RTFRAME_POWERCUT_SEED (default: a fresh seed,
# printed).  Args: <build dir>.  Prints "ok: ..." / "FAIL: ..."; exit 1 on
# a failure.
. "$(dirname "$0")/lib/suite.sh"
pc=$build/tests/powercut
out=${RTFRAME_KERNEL_OUT:-/tmp/out}
seed=${RTFRAME_POWERCUT_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
export RTFRAME_TOOLS_DIR=$tools
echo "power-cut: seed $seed (RTFRAME_POWERCUT_SEED=$seed draws the same points)"
echo "$seed" > "$out/seed"

# record SCENARIO DATA LOG: the recording and its history in $out/SCENARIO
record() {
  mkdir -p "$out/$1"
  if "$pc/powercut-record" --scenario "$1" --data "$2" --log "$3" \
      --root "/tmp/pc-$1" --out "$out/$1" > "/tmp/record-$1.out" 2>&1; then
    ok "$1: recorded on $(uname -r): $(grep -c '^w ' "$out/$1/history") frames" \
      "reported written, $(grep -c '^mark ' "$out/$1/history") marks of frames durable"
  else
    bad "$1: the recording"; cat "/tmp/record-$1.out"; return 1
  fi
  # (the guest read the log disk's first blocks at boot, before the log
  # was written: its cache of them is stale)
  blockdev --flushbufs "$3"
}

# faithful SCENARIO DATA LOG: whether the log, replayed whole, is the
# data disk as the recording left it (one queue a disk makes a log out of
# order rare, not impossible: a flush can be delayed between the target
# taking its writes and reaching the disk's queue)
faithful() {
  local why
  blockdev --flushbufs "$2"
  why=$("$(dirname "$0")/../powercut/log-is-disk.sh" "$pc/replay-log" "$3" \
    "$2" /tmp/whole.img) && return 0
  echo "   $1: $why"
  return 1
}

# record_faithful SCENARIO DATA LOG: recorded until the log is the disk's
# history (twice at most: a log out of order is judged nowhere)
record_faithful() {
  local try
  for try in 1 2; do
    record "$1" "$2" "$3" || return 1
    if faithful "$1" "$2" "$3"; then
      ok "$1: the log replayed whole is the disk (recording $try)"
      return 0
    fi
  done
  bad "$1: the log was out of order in both recordings"
  return 1
}

# check SCENARIO LOG POINTS SUBSETS: replayed and checked on this kernel
check() {
  mkdir -p "/tmp/work-$1"
  if "$pc/powercut-check" --log "$2" --history "$out/$1/history" \
      --work "/tmp/work-$1" --points "$3" --subsets "$4" --seed "$seed" \
      > "/tmp/check-$1.out" 2>&1; then
    ok "$1: $(tail -1 "/tmp/check-$1.out" | sed 's/^powercut-check: //') (Debian's XFS recovering each)"
  else
    bad "$1: replayed on $(uname -r):"; cat "/tmp/check-$1.out"
  fi
}

record_faithful main /dev/vda /dev/vdb && check main /dev/vdb 6 2
record_faithful realtime /dev/vdc /dev/vdd && check realtime /dev/vdd 12 3
exit $fail
