#!/usr/bin/env bash
# rtframe-record's metrics in an event rig, against what the rig asked,
# with Debian's prometheus server scraping it and evaluating the shipped
# alerting rules:
#  - each filesystem the cameras write to (three cameras, one of them
#    spread over a second filesystem): its rate is every camera's frame
#    size at its frame rate (a spread's shared over its locations), its
#    reserve the most min-free-space asked, its time left the free space
#    above the reserve at that rate, there while the cameras are armed;
#  - each camera's state: armed, recording through an event, armed again;
#    recordings and commands counted as made (a trigger during a take is
#    refused);
#  - armed cameras raise no alert, while a rule planted as the old one
#    (not writing, whatever the camera does) goes off on the same data;
#  - every expression of the shipped Grafana dashboard returns series.
# Args: <rtframe-record> <build dir> <source dir>.  Skips (77) without
# prometheus.
set -u
rec=$(readlink -f "$1")
build_dir=$(readlink -f "$2")
src=$(readlink -f "$3")
verify="$build_dir/tools/rtframe-verify"
prometheus=$(command -v prometheus || true)
if [ -z "$prometheus" ]; then
  echo "SKIP: no prometheus (apt-get install prometheus)"; exit 77
fi
work=$(mktemp -d)
# a second filesystem for the spread's other location (tmpfs)
other=$(mktemp -d -p /dev/shm rtf-metrics.XXXXXX 2>/dev/null || mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
  rm -rf "$work" "$other"
}
trap cleanup EXIT
fail=0
py=/usr/bin/python3
started=$SECONDS

. "$src/tests/lib-recorder-http.sh"
read -r port prom_port < <(free_ports 2)
api="http://127.0.0.1:$port"
caps="video/x-raw,format=GRAY8,width=320,height=240,framerate=20/1"
mkdir -p "$work/rec"
cat > "$work/rig.conf" <<CONF
[recorder]
dir=$work/rec
events=true
pre-record=1
post-record=3
http=127.0.0.1:$port
http-control=open

[camera a]
source=videotestsrc is-live=true
caps=$caps
sink=min-free-space=100000000

[camera b]
source=videotestsrc is-live=true
caps=$caps
sink=min-free-space=300000000

[camera c]
source=videotestsrc is-live=true
caps=$caps
sink=min-free-space=200000000 locations='<"$work/rec/c-%05d.raw","$other/c-%05d.raw">'
CONF
"$rec" --config "$work/rig.conf" > "$work/rec.out" 2>&1 < /dev/null &
pids+=($!)

check() {  # name, python condition, printed detail
  if $py -c "import sys; sys.exit(not ($2))"; then
    echo "ok: $1 ($3)"
  else
    echo "FAIL: $1 ($3)"; fail=1
  fi
}
if ! wait_for 10 curl -sf "$api/status"; then
  echo "FAIL: the recorder's API did not come up"; cat "$work/rec.out"; exit 1
fi

# the shipped rules; and beside them the shipped not-writing rule and the
# rule as it was (no camera state), both with a `for:` of 5 s instead of
# 30 s so that this short run can see them fire: the old one must go off
# on the same data, or this test could not see a false alert.  (At a
# recording's start its state may be scraped a second before its first
# written frames: shorter than any `for:`.)
cp "$src/examples/prometheus/rtframe-alerts.yml" "$work/"
$py - "$work/rtframe-alerts.yml" > "$work/planted.yml" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"- alert: RtframeNotWriting\n        expr: >-\n((?:          .*\n)+)", text)
shipped = " ".join(l.strip() for l in m.group(1).splitlines())
old = shipped.split(" and on (job, instance, camera)")[0]
print("groups:\n  - name: planted\n    rules:")
for name, expr in (("ShippedNotWriting5s", shipped), ("PlantedNotWriting", old)):
    print("      - alert: %s\n        expr: '%s'\n        for: 5s" % (name, expr))
PY
prometheus_start "$prom_port" "$port" rtframe-alerts.yml planted.yml
query() { prometheus_results "$@"; }
metric() {  # name{labels} from the recorder's own /metrics: its value
  curl -s "$api/metrics" | grep -F "$1 " | awk '{print $2}'
}
# ---- armed: states, and the filesystems against what the rig asked ------
state_is() {  # state: every camera in it, as the recorder says now
  test "$(curl -s "$api/metrics" | grep -c "^rtframe_camera_state{.*state=\"$1\"} 1")" = 3
}
if wait_for 10 state_is armed; then
  echo "ok: the three cameras armed"
else
  echo "FAIL: not every camera armed:"; curl -s "$api/metrics" | grep camera_state; fail=1
fi
sleep 8                         # armed a while: what an alert would see
# /status says the same: every camera armed, the same filesystems
st=$(curl -s "$api/status" | $py -c '
import json, sys
j = json.load(sys.stdin)
print(" ".join(c["state"] for c in j["cameras"]),
      " ".join(sorted(f["mount"] for f in j["filesystems"])))')
mounts=$(curl -s "$api/metrics" | sed -n 's/^rtframe_filesystem_free_bytes{mount="\(.*\)"} .*/\1/p' | sort | tr '\n' ' ')
check "/status: every camera armed, the metrics' filesystems" \
  "'$st' == 'armed armed armed ' + '$mounts'.strip()" "$st; metrics: $mounts"
curl -s "$api/metrics" > "$work/metrics.txt"
# (free space measured by the test at once after: the sinks preallocate
# 128 MiB steps meanwhile, three cameras)
$py - "$work/metrics.txt" "$work/rec" "$other" <<'PY' || fail=1
import os, re, sys
text = open(sys.argv[1]).read()
def mount_of(d):
    d = os.path.realpath(d); dev = os.stat(d).st_dev
    while d != "/" and os.stat(os.path.dirname(d)).st_dev == dev:
        d = os.path.dirname(d)
    return d
frame_rate = 320 * 240 * 20                   # GRAY8 at 20/1
asked = {}                                    # mount: [rate, reserve]
for d, share, reserve in ((sys.argv[2], 1, 100e6), (sys.argv[2], 1, 300e6),
                          (sys.argv[2], .5, 200e6), (sys.argv[3], .5, 200e6)):
    a = asked.setdefault(mount_of(d), [0, 0])
    a[0] += share * frame_rate; a[1] = max(a[1], reserve)
got = {}
for name, mount, v in re.findall(
        r'^rtframe_filesystem_(\w+)\{mount="([^"]*)"\} (\S+)$', text, re.M):
    got.setdefault(mount, {})[name] = float(v)
bad = 0
for mount, (rate, reserve) in asked.items():
    g = got.get(mount, {})
    st = os.statvfs(mount); free = st.f_bavail * st.f_frsize
    # (an event rig's files deleted by the guard are events lost: no
    # filesystem of it recycles by design, and the disk alerts fire)
    ok = (g.get("recording_rate_bytes") == rate
          and g.get("reserve_bytes") == reserve
          and g.get("recycling") == 0
          and abs(g.get("free_bytes", -1e18) - free) <= 4 * 128 * 2**20
          and abs(g.get("time_left_seconds", -1) -
                  (g["free_bytes"] - reserve) / rate) < 1e-6 * g["time_left_seconds"])
    print("%s: filesystem %s: asked rate %d B/s, reserve %d; metrics %s; "
          "statvfs free %d" % ("ok" if ok else "FAIL", mount, rate, reserve,
                               g, free))
    bad += not ok
if set(got) != set(asked):
    print("FAIL: filesystems in the metrics %s, asked %s" % (sorted(got), sorted(asked)))
    bad += 1
sys.exit(bad)
PY

# ---- an event, then a take during which a trigger is refused ------------
code=$(curl -s -o "$work/body" -w '%{http_code}' -X POST "$api/trigger")
check "POST /trigger" "'$code' == '200'" "$code $(head -c 80 "$work/body")"
if wait_for 10 state_is recording; then
  echo "ok: the three cameras recording the event"
else
  echo "FAIL: not every camera recording:"; curl -s "$api/metrics" | grep camera_state; fail=1
fi
if wait_for 10 state_is armed; then
  echo "ok: armed again after the post-record time"
else
  echo "FAIL: not armed again:"; curl -s "$api/metrics" | grep camera_state; fail=1
fi
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -d '{"at": "now"}' "$api/record/start")
check "POST /record/start" "'$code' == '200'" "$code"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$api/trigger")
check "POST /trigger during a take is refused" "'$code' == '409'" "$code"
sleep 1
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$api/record/stop")
check "POST /record/stop" "'$code' == '200'" "$code"
wait_for 10 state_is armed
for cam in a b c; do
  n=$(metric "rtframe_recordings_total{camera=\"$cam\"}")
  check "camera $cam: recordings counted as made (an event, a take)" "'$n' == '2'" "$n"
done
for c in 'command="trigger",outcome="triggered"} 1' \
    'command="trigger",outcome="refused"} 1' 'command="start",outcome="started"} 1' \
    'command="stop",outcome="stopped"} 1'; do
  if curl -s "$api/metrics" | grep -qF "rtframe_commands_total{$c"; then
    echo "ok: rtframe_commands_total{$c"
  else
    echo "FAIL: no rtframe_commands_total{$c:"; curl -s "$api/metrics" | grep commands_total; fail=1
  fi
done
# Prometheus has the final figures
final() { test "$(query 'rtframe_commands_total{outcome="refused",command="trigger"}' | awk '{print $NF}')" = 1; }
wait_for 10 final

# ---- alerts: none from the shipped rules; the planted one went off ------
span=$((SECONDS - started))
fired=$(query "max_over_time(ALERTS{alertstate=\"firing\",alertname=~\"ShippedNotWriting5s|RtframeNotWriting|RtframeNoFrames|RtframeCameraFailed|RtframeLocationNotActive|RtframeFramesDroppedOrLost\"}[${span}s])")
check "armed cameras raised no alert" "'''$fired''' == ''" "${fired:-none}"
planted=$(query "count(max_over_time(ALERTS{alertstate=\"firing\",alertname=\"PlantedNotWriting\"}[${span}s]))" | awk '{print $NF}')
check "the planted rule went off on the same data" "'$planted' == '3'" "${planted:-none} cameras"

# ---- the dashboard --------------------------------------------------------
if $py "$src/tests/dashboard-queries.py" \
    "$src/examples/prometheus/rtframe-dashboard.json" "$prom" 1 "$span" \
    > "$work/dashboard.out"; then
  echo "ok: every dashboard query returns series ($(grep -c series "$work/dashboard.out") queries)"
else
  echo "FAIL: dashboard queries without series:"; grep ": 0 series\|variable" "$work/dashboard.out"; fail=1
fi

kill -TERM "${pids[0]}"
wait "${pids[0]}"
for take in event-1 take-1; do
  if "$verify" -q "$work/rec/$take.rtftake" > "$work/v" 2>&1; then
    echo "ok: $take verifies on every camera"
  else
    echo "FAIL: rtframe-verify $take:"; cat "$work/v"; fail=1
  fi
done
exit $fail
