#!/bin/bash
# What the packages put in place besides the programs (run in a root they
# were installed into by tools/test-debian.sh --packages): the recorder's
# config as a conffile, the user its units run as (made by the package's
# systemd-sysusers call), the benchmark with its man page, and the examples
# where the docs say, uncompressed.
set -eu
fail=0
check() {
  local what=$1
  shift
  if "$@"; then
    echo "ok: $what"
  else
    echo "FAIL: $what"; fail=1
  fi
}
conf=/etc/rtframe/rtframe-record.conf
check "$conf is rtframe-record's conffile" \
  grep -qx " $conf [0-9a-f]*" <(dpkg-query -W -f='${Conffiles}\n' rtframe-record)
check "the user rtframe: $(id rtframe 2>&1)" \
  test "$(id -nG rtframe 2>/dev/null | tr ' ' '\n' | sort | tr '\n' ' ')" = "rtframe video "
check "rtframe logs in nowhere" \
  grep -Eq '^rtframe:[^:]*:[0-9]+:[0-9]+:[^:]*:/var/lib/rtframe:/usr/sbin/nologin$' /etc/passwd
check "rtframe-bench --help" bash -c 'rtframe-bench --help | grep -q -- --preflight'
check "$(rtframe-bench --version 2>&1 | head -1)" bash -c 'rtframe-bench --version >/dev/null'
check "rtframe-bench's man page" test -f /usr/share/man/man1/rtframe-bench.1.gz
docs=/usr/share/doc/rtframe/examples
for f in rigs/two-disks.conf rigs/three-gige-cameras.conf rigs/usb-camera-events.conf \
    rigs/events-on-disk.conf \
    prometheus/prometheus.yml prometheus/rtframe-alerts.yml; do
  check "$docs/$f" test -f "$docs/$f"
done
for f in rtframe-record.py rtframe-seek.py; do
  check "$docs/$f, executable" test -x "$docs/$f"
done
exit $fail
