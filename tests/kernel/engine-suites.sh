#!/bin/sh
# kernel-disk-mb: 1024
# In a guest of tools/test-kernel.sh: the writer's and the element's own
# suites on that kernel (Debian 12's 6.1, Debian 13's 6.12), so that the
# run-time checks of docs/design.md "Version-dependent paths" (io_uring
# ring flags, registered buffers, STATX_DIOALIGN, O_TMPFILE) are taken on
# the kernels users run, not only on this machine's.
# The subset, and why: the tests of the engine (meson suite "common":
# the writer with io_uring and pwrite, registered buffers, the file and
# its helper, the index, recovery) and the element's tests that hold no
# timing (recording, spread, data-safety, sink-errors, upstream).  All 19
# of these with formats and writer-backlog pass on 6.1 (126 s); those two
# (47 s a kernel in TCG) are left to the machine's own run, as nothing in
# them reaches the kernel differently: the format table is GStreamer's,
# the backlog the writer's queue (CI's time: issue 27 asks the kernel
# runs to stay near 10 minutes).
# Left out: the root suites, which need loop devices, blkio throttles and
# this machine's filesystems (the other kernel suites do that part), and
# the tests that time the writer (sink-deadlines, sink-stalled, bench),
# meaningless on an emulated CPU; sink-output (30 s here) would take
# minutes in TCG.
# Args: <build dir>.  Prints "ok: ..." / "FAIL: ..."; exit 1 on a failure.
. "$(dirname "$0")/lib/suite.sh"
# the tests' files on XFS on the first disk: the guest's /tmp is tmpfs,
# which before Linux 6.6 keeps no user.* extended attributes (the marks
# of a recording's files: every test that checks a mark failed there)
mkfs.xfs -q -f /dev/vda && mkdir -p /tmp/x && mount /dev/vda /tmp/x \
  || { bad "mkfs/mount the tests' XFS"; exit 1; }
export TMPDIR=/tmp/x

# ---- what the kernel gave io_uring ---------------------------------------
if command -v strace > /dev/null; then
  strace -f -e trace=io_uring_setup -o /tmp/setup.txt gst-launch-1.0 -q \
    videotestsrc num-buffers=3 ! video/x-raw,format=GRAY8,width=64,height=64 ! \
    rtframesink location=/tmp/x/probe.raw > /dev/null 2>&1
  flags=$(grep -o "flags=[A-Za-z0-9_|]*" /tmp/setup.txt | head -1)
  # (an strace older than the kernel prints SINGLE_ISSUER as 0x1000)
  case $flags in
    *COOP_TASKRUN*) ;;
    *) flags="$flags (no COOP_TASKRUN)" ;;
  esac
  case $flags in
    *"(no"*) bad "io_uring on $(uname -r): the ring's flags: $flags"; cat /tmp/setup.txt ;;
    *SINGLE_ISSUER*|*0x1000*) ok "io_uring on $(uname -r): $flags" ;;
    *) bad "io_uring on $(uname -r): the ring's flags: $flags (no SINGLE_ISSUER)"; cat /tmp/setup.txt ;;
  esac
else
  echo "note: no strace on this machine: the ring's flags not shown"
fi

# ---- the suites ----------------------------------------------------------
# (the build tree is shared read-only: meson test runs from a copy of it,
# the tests themselves from the original)
cp -a "$build" /tmp/build || { bad "copy the build tree"; exit 1; }
tests="events file file-worker histogram index layout queue recover
  space-guard upstream-gap writer recorder
  recording spread data-safety sink-errors upstream"
# shellcheck disable=SC2086
if meson test -C /tmp/build --no-rebuild --timeout-multiplier 10 \
    --print-errorlogs $tests > /tmp/suites.out 2>&1; then
  ok "$(grep -c " OK " /tmp/suites.out) suites pass on $(uname -r): $(echo $tests)"
else
  bad "suites on $(uname -r)"
  grep -E "FAIL|ERROR|not ok" /tmp/suites.out | head -20
fi
grep -E "^ *[0-9]+/[0-9]+ " /tmp/suites.out | sed 's/^/  /'
exit $fail
