#!/usr/bin/env bash
# rtframe-record's units as systemd rates their sandbox: `systemd-analyze
# security --offline=yes` on the units the build made (the template as an
# instance, rtframe-record@lab), each unit's overall exposure printed and
# at most 3.0 (systemd calls up to 3.9 "OK", 9.6 is a root service with
# nothing restricted).  And what the score hardly moves for: the user, the
# sandbox's main lines (one alone is worth 0.1-0.3), the recorder's
# io_uring system calls in the filter this systemd gives @system-service,
# and no RestrictRealtime= (it would refuse thread-policy=fifo).
# Args: <build dir>.  Skips (77), saying why, without systemd-analyze or
# its security --offline (an older systemd; Debian 12's 252 has it).
set -u
build_dir=$(readlink -f "$1")
max=3.0
if ! command -v systemd-analyze >/dev/null; then
  echo "SKIP: no systemd-analyze (apt-get install systemd)"; exit 77
fi
if ! systemd-analyze security --help 2>&1 | grep -q -- --offline; then
  echo "SKIP: $(systemd-analyze --version | head -1) has no security --offline"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0

cp "$build_dir/recorder/rtframe-record.service" "$work/"
cp "$build_dir/recorder/rtframe-record@.service" "$work/rtframe-record@lab.service"
for unit in rtframe-record.service rtframe-record@lab.service; do
  out=$(systemd-analyze security --offline=yes --no-pager \
    --threshold="${max/./}" "$work/$unit" 2>&1); status=$?
  score=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' <<<"$out")
  if [ -z "$score" ]; then
    echo "FAIL: $unit: no exposure level (exit $status):"; echo "$out" | tail -5
    fail=1
  elif [ $status -ne 0 ] || awk -v s="$score" -v m=$max 'BEGIN { exit !(s > m) }'; then
    echo "FAIL: $unit: exposure $score, over $max; what it allows:"
    grep '^✗' <<<"$out"
    fail=1
  else
    echo "ok: $unit: exposure $score (at most $max)"
  fi
  # (every line of the sandbox: three of them gone scored 2.9, still
  # under the limit)
  for want in User=rtframe Group=rtframe ProtectSystem=strict ProtectHome=yes \
      PrivateTmp=yes NoNewPrivileges=yes CapabilityBoundingSet= \
      SystemCallFilter=@system-service SystemCallFilter=~@privileged \
      SystemCallArchitectures=native DevicePolicy=closed \
      StateDirectory=rtframe UMask=0027 ProtectKernelTunables=yes \
      ProtectKernelModules=yes ProtectKernelLogs=yes ProtectControlGroups=yes \
      ProtectClock=yes ProtectHostname=yes ProtectProc=invisible \
      ProcSubset=pid RestrictNamespaces=yes RestrictSUIDSGID=yes \
      LockPersonality=yes RemoveIPC=yes \
      "RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK"; do
    grep -qx "$want" "$work/$unit" || { echo "FAIL: $unit: no line $want"; fail=1; }
  done
  ! grep -q '^RestrictRealtime=yes' "$work/$unit" ||
    { echo "FAIL: $unit: RestrictRealtime=yes (see the unit's comment)"; fail=1; }
done

# the writer's system calls, in this systemd's @system-service
allowed=$(systemd-analyze syscall-filter @system-service 2>&1)
expanded=$allowed
for group in $(grep -o '@[a-z-]*' <<<"$allowed" | sort -u); do
  expanded+=$'\n'$(systemd-analyze syscall-filter "$group" 2>&1)
done
for call in io_uring_setup io_uring_enter io_uring_register; do
  if grep -qx "[[:space:]]*$call" <<<"$expanded"; then
    echo "ok: $call is in @system-service ($(systemd-analyze --version | head -1))"
  else
    echo "FAIL: $call is not in @system-service here: the units must name it in SystemCallFilter="
    fail=1
  fi
done
exit $fail
