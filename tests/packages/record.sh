#!/bin/bash
# The rig the package ships (/etc/rtframe/rtframe-record.conf as it comes)
# recorded for a few seconds in a root the packages were installed into
# (tools/test-debian.sh --packages), then stopped with SIGTERM: its
# metrics count frames written, it ends well, its files are the user
# rtframe's and the recording verifies.
#   record.sh setpriv  as the user rtframe with its groups (setpriv), no
#                      systemd; the directories made as the unit's
#                      StateDirectory= and CacheDirectory= make them; in a
#                      network namespace of its own (the config's port)
#   record.sh unit     rtframe-record.service under systemd
#                      (tools/systemd-in-root.sh), and the process's
#                      sandbox: its user, no capability, the seccomp
#                      filter, no new privileges; its files' mode (UMask=);
#                      io_uring and ORC's compiled code working in it; the
#                      package upgraded while it records (the .deb again):
#                      the recorder restarted, recording, not stopped
set -eu
mode=$1
dir=/var/lib/rtframe
conf=/etc/rtframe/rtframe-record.conf
port=$(sed -n 's/^http=.*:\([0-9]*\)$/\1/p' "$conf")
fail=0
say() { echo "record ($mode): $*"; }
bad() { say "FAIL: $*"; fail=1; }

written() {
  curl -s --max-time 2 "http://127.0.0.1:$port/metrics" |
    awk '/^rtframe_frames_written_total\{camera="cam0"\}/ { print $2 }'
}
# a second of frames (20) written, seen in the metrics within 20 s
wait_frames() {
  local n=""
  for _ in $(seq 40); do
    n=$(written)
    [ "${n:-0}" -ge 20 ] && break
    sleep 0.5
  done
  if [ "${n:-0}" -ge 20 ]; then
    say "ok: rtframe_frames_written_total{camera=\"cam0\"} $n"
  else
    bad "${n:-no} frames written in the metrics after 20 s, not 20"
  fi
}

# the summary's engine: io-uring, unless io_uring is off on this machine
# (kernel.io_uring_disabled, which root tests of another run may set)
engine() {
  local e
  e=$(awk '$1 == "cam0" && NF > 5 { e = $NF } END { print e }')
  if [ "$e" = io-uring ]; then
    say "ok: it wrote through io_uring"
  elif [ "$(cat /proc/sys/kernel/io_uring_disabled 2>/dev/null || echo 0)" != 0 ]; then
    say "it wrote through $e: io_uring is disabled on this machine"
  else
    bad "it wrote through ${e:-nothing}, not io_uring"
  fi
}

rm -rf "${dir:?}"/cam0-* "$dir"/take-*
case $mode in
  setpriv)
    ip link set lo up
    install -d -o rtframe -g rtframe -m 0750 "$dir" /var/cache/rtframe
    (umask 0027
      exec setpriv --reuid=rtframe --regid=rtframe --init-groups -- \
        env HOME="$dir" XDG_CACHE_HOME=/var/cache/rtframe \
        rtframe-record --config "$conf") >/tmp/record.log 2>&1 &
    pid=$!
    wait_frames
    kill -TERM $pid
    status=0
    wait $pid || status=$?
    [ $status -eq 0 ] && say "ok: SIGTERM, exit 0" || bad "exit $status"
    engine </tmp/record.log
    [ $fail -eq 0 ] || tail -20 /tmp/record.log ;;
  unit)
    unit=rtframe-record.service
    systemctl start $unit || bad "systemctl start $unit"
    pid=$(systemctl show -p MainPID --value $unit)
    uid=$(id -u rtframe)
    want="Uid:	$uid	$uid	$uid	$uid
CapEff:	0000000000000000
CapBnd:	0000000000000000
NoNewPrivs:	1
Seccomp:	2"
    got=$(grep -E '^(Uid|CapEff|CapBnd|NoNewPrivs|Seccomp):' "/proc/$pid/status" || true)
    if [ "$got" = "$want" ]; then
      say "ok: pid $pid as rtframe, no capability, no new privileges, seccomp"
    else
      bad "pid $pid: $got"
    fi
    wait_frames
    # an upgrade (the same .deb again: preinst upgrade, postinst configure
    # with the old version): the running recorder is restarted, not
    # stopped (debhelper's --no-start alone stopped it for good)
    dpkg -i /root/debs/rtframe-record_*.deb >/tmp/upgrade.log 2>&1 ||
      bad "dpkg -i: $(tail -3 /tmp/upgrade.log)"
    after=$(systemctl show -p MainPID --value $unit)
    if systemctl -q is-active $unit && [ "$after" != "$pid" ] && [ "$after" != 0 ]; then
      say "ok: upgraded while recording: restarted (pid $pid -> $after)"
    else
      bad "after the upgrade: $(systemctl is-active $unit), pid $pid -> $after"
    fi
    wait_frames
    systemctl stop $unit
    result=$(systemctl show -p Result -p ExecMainStatus $unit | sort | tr '\n' ' ')
    [ "$result" = "ExecMainStatus=0 Result=success " ] &&
      say "ok: systemctl stop: $result" || bad "systemctl stop: $result"
    engine < <(journalctl -u $unit --no-pager -o cat)
    # (ORC maps the code it compiles: it says when it cannot)
    if journalctl -u $unit --no-pager -o cat | grep 'ORC: ERROR'; then
      bad "ORC could not map its code in the unit's sandbox"
    else
      say "ok: no ORC error in the unit's sandbox"
    fi
    [ $fail -eq 0 ] || journalctl -u $unit --no-pager -o cat | tail -20
    # (UMask=0027: the group may read, others not)
    perms=$(stat -c '%A %U' "$dir"/cam0-00000.raw)
    [ "$perms" = "-rw-r----- rtframe" ] && say "ok: files $perms" ||
      bad "files $perms, not -rw-r----- rtframe" ;;
  *)
    echo "record.sh: setpriv or unit" >&2; exit 2 ;;
esac
owner=$(stat -c %U "$dir"/cam0-00000.raw 2>/dev/null || echo none)
[ "$owner" = rtframe ] || bad "cam0-00000.raw owned by $owner"
if v=$(rtframe-verify "$dir/cam0-%05d.raw" 2>&1); then
  say "ok: rtframe-verify: $(tail -1 <<<"$v")"
else
  bad "rtframe-verify: $v"
fi
exit $fail
