#!/bin/sh
# kernel-disk-mb: 64
# In a guest of tools/test-kernel.sh: the writer's and the element's own
# suites on that kernel (Debian 12's 6.1, Debian 13's 6.12), so that the
# run-time checks of docs/design.md "Version-dependent paths" (io_uring
# ring flags, registered buffers, STATX_DIOALIGN, O_TMPFILE) are taken on
# the kernels users run, not only on this machine's.
# The subset, and why: every test of the engine (meson suite "common":
# the writer with io_uring and pwrite, registered buffers, the file and
# its helper, the index, recovery) and the element's tests that hold no
# timing (formats, recording, spread, data-safety, sink-errors, upstream).
# Left out: the root suites, which need loop devices, blkio throttles and
# this machine's filesystems (the other kernel suites do that part), and
# the tests that time the writer (sink-deadlines, sink-stalled, bench),
# meaningless on an emulated CPU; sink-output (30 s here) would take
# minutes in TCG.
# Args: <build dir>.  Prints "ok: ..." / "FAIL: ..."; exit 1 on a failure.
build=$1
fail=0
ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fail=1; }
export GST_PLUGIN_PATH_1_0=$build/gst

# ---- what the kernel gave io_uring ---------------------------------------
if command -v strace > /dev/null; then
  strace -f -e trace=io_uring_setup -o /tmp/setup.txt gst-launch-1.0 -q \
    videotestsrc num-buffers=3 ! video/x-raw,format=GRAY8,width=64,height=64 ! \
    rtframesink location=/tmp/probe.raw > /dev/null 2>&1
  flags=$(grep -o "flags=[A-Z_|]*" /tmp/setup.txt | head -1)
  case $flags in
    *IORING_SETUP_SINGLE_ISSUER*IORING_SETUP_COOP_TASKRUN*|*IORING_SETUP_COOP_TASKRUN*IORING_SETUP_SINGLE_ISSUER*)
      ok "io_uring on $(uname -r): $flags" ;;
    *) bad "io_uring on $(uname -r): the ring's flags: ${flags:-none seen}"; cat /tmp/setup.txt ;;
  esac
else
  echo "note: no strace on this machine: the ring's flags not shown"
fi

# ---- the suites ----------------------------------------------------------
# (the build tree is shared read-only: meson test runs from a copy of it,
# the tests themselves from the original)
cp -a "$build" /tmp/build || { bad "copy the build tree"; exit 1; }
tests="events file file-worker histogram index layout queue recover
  space-guard upstream-gap writer writer-backlog recorder
  formats recording spread data-safety sink-errors upstream"
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
