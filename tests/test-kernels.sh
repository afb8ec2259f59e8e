#!/usr/bin/env bash
# Debian's own kernels (issue 27): Debian 12's and Debian 13's kernel
# packages booted in QEMU by tools/test-kernel.sh, this machine's root and
# build shared into the guest, and the kernel suites of tests/kernel/ run
# there (XFS realtime: CONFIG_XFS_RT, which this machine's kernel may
# lack).  Args: <build dir>.  Skips (77), saying why, when not root, inside
# a Debian root of tools/test-debian.sh (the machine's own run boots both
# kernels), or when no kernel could be run.
set -u
build=$(readlink -f "$1")
src=$(cd "$(dirname "$0")/.." && pwd)
if [ "$(id -u)" != 0 ]; then
  echo "SKIP: Debian's kernels in QEMU: root only (kernel packages, disk images)"; exit 77
fi
if [ -n "${RTFRAME_IN_DEBIAN_ROOT:-}" ]; then
  echo "SKIP: Debian's kernels in QEMU: run by the machine's own tools/test.sh, not inside a Debian root"
  exit 77
fi
fail=0 ran=0
for release in bookworm trixie; do
  if [ $release = trixie ] && [ ! -x "${RTFRAME_ROOTS:-/var/tmp/rtf-roots}/trixie/usr/bin/apt-get" ]; then
    echo "SKIP trixie: no Debian 13 root to fetch its kernel with (tools/test-debian.sh trixie makes it; .ci/run makes it first)"
    continue
  fi
  for suite in "$src"/tests/kernel/*.sh; do
    # a suite that names its releases ("# kernel-releases: bookworm") runs
    # on those only, unless RTFRAME_KERNEL_ALL=1: md RAID0 takes about
    # 4 minutes a kernel in TCG, and md is not where 6.1 and 6.12 differ
    # for us (io_uring, XFS realtime are: those suites run on both)
    only=$(sed -n 's/^# kernel-releases: *//p' "$suite")
    if [ -n "$only" ] && [ -z "${RTFRAME_KERNEL_ALL:-}" ]; then
      case " $only " in
        *" $release "*) ;;
        *) echo "== $release: $(basename "$suite"): skipped (it names $only; RTFRAME_KERNEL_ALL=1 runs it here too)"
           continue ;;
      esac
    fi
    echo "== $release: $(basename "$suite")"
    # (each suite names the size and number of its disks: "# kernel-disk-mb:
    # N", "# kernel-disks: N", QEMU's cache for them: "# kernel-cache:
    # MODE", and its virtio queues: "# kernel-queues: N"; and what runs
    # on this machine after the
    # guest, with the guest's output and its disks: "# kernel-after:
    # SCRIPT", run as SCRIPT OUT BUILD RELEASE)
    mb=$(sed -n 's/^# kernel-disk-mb: *\([0-9]*\).*/\1/p' "$suite")
    n=$(sed -n 's/^# kernel-disks: *\([0-9]*\).*/\1/p' "$suite")
    after=$(sed -n 's/^# kernel-after: *//p' "$suite")
    cache=$(sed -n 's/^# kernel-cache: *//p' "$suite")
    queues=$(sed -n 's/^# kernel-queues: *\([0-9]*\).*/\1/p' "$suite")
    t0=$SECONDS
    out=
    [ -n "$after" ] && out=$(mktemp -d "${TMPDIR:-/tmp}/rtf-kernel-out.XXXXXX")
    if (cd "$src" && tools/test-kernel.sh $release --disk-mb "${mb:-1024}" \
        --disks "${n:-2}" --cache "${cache:-none}" ${queues:+--queues "$queues"} \
        ${out:+--out "$out" --keep-disks} -- "$suite" "$build"); then
      ran=$((ran + 1))
      echo "   ($release $(basename "$suite"): $((SECONDS - t0)) s)"
      if [ -n "$after" ]; then
        t0=$SECONDS
        if "$src/$after" "$out" "$build" "$release"; then
          echo "   ($release $(basename "$after"), on this machine: $((SECONDS - t0)) s)"
        else
          # (kept: the log and history a rerun of the point needs)
          echo "FAIL: $release: $(basename "$after") (kept: $out)"; fail=1
          out=
        fi
      fi
    else
      echo "FAIL: $release: $(basename "$suite")"; fail=1
    fi
    [ -n "$out" ] && rm -rf "$out"
  done
done
[ $fail -eq 0 ] && [ $ran -eq 0 ] && exit 77
exit $fail
