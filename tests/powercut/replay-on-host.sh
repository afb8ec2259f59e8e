#!/bin/sh
# After tests/kernel/power-cut.sh, on this machine: the log of scenario
# "main" that Debian's kernel recorded (the guest's second disk,
# disk1.img) replayed at many points, each image mounted by this
# machine's XFS (root: loop devices).  The guest's own sample has shown
# Debian's XFS recovering it; here the number of points makes the test.
#   replay-on-host.sh OUT BUILD RELEASE
# OUT: the guest's output (main/history, seed) and its disks.
# RTFRAME_POWERCUT_POINTS (default 200, or "all") and
# RTFRAME_POWERCUT_SUBSETS (default 20) say how many.
set -u
out=$1 build=$2 release=$3
seed=$(cat "$out/seed" 2>/dev/null || echo 1)
points=${RTFRAME_POWERCUT_POINTS:-200}
subsets=${RTFRAME_POWERCUT_SUBSETS:-20}
work=$(mktemp -d /dev/shm/rtf-powercut.XXXXXX)
trap 'rm -rf "$work"' EXIT
[ -f "$out/main/history" ] && [ -f "$out/disk1.img" ] || {
  echo "FAIL: $release: no log or history from the guest in $out"; exit 1; }
# the log, replayed whole onto zeros, is the data disk the guest left
# (tests/kernel/power-cut.sh recorded until it was): else its points are
# no disk that ever was, and nothing of them can be judged
if ! why=$("$(dirname "$0")/log-is-disk.sh" "$build/tests/powercut/replay-log" \
    "$out/disk1.img" "$out/disk0.img" "$work/whole.img"); then
  echo "FAIL: $release: $why"
  exit 1
fi
RTFRAME_TOOLS_DIR=$build/tools GST_PLUGIN_PATH_1_0=$build/gst \
GST_REGISTRY_1_0=$build/tests/registry.bin GST_REGISTRY_FORK=no \
  "$build/tests/powercut/powercut-check" --log "$out/disk1.img" \
  --history "$out/main/history" --work "$work" --points "$points" \
  --subsets "$subsets" --seed "$seed" > "$work/check.out" 2>&1
status=$?
if [ $status -eq 0 ]; then
  echo "ok: main, Debian $release's log replayed here (seed $seed): $(tail -1 "$work/check.out" | sed 's/^powercut-check: //')"
else
  echo "FAIL: main, Debian $release's log replayed here (seed $seed):"
  cat "$work/check.out"
fi
exit $status
