#!/usr/bin/env bash
# rtframe-record's commands across three cameras, asked by hostile
# clients: every command is checked on every camera and made on all at
# one running time, or on none.
#   - refusals: a start at a running time two cameras' frames have passed
#     and the third's (a camera 0.4 s behind) have not is refused whole
#     (409, each camera's answer), and nothing is recorded for it;
#   - eight clients at once for 8 s: triggers (with labels), takes started
#     and stopped, stops and starts in the past, splits, notes;
#   - afterwards every camera holds the same recordings - the same ids,
#     each over the same running times (within a frame) - and every 200
#     reply's id is one of them, every 409's is none;
#   - /events lists them with their notes; /status has the counts;
#   - an event with a split inside it has one manifest naming two files a
#     camera, which rtframe-verify and rtframe-info read as one event,
#     rtframe-export writes for every camera and rtframesrc plays;
#   - a recorder of takes (no events) with --idle records nothing until a
#     start, then the takes started and stopped over HTTP, each a manifest.
# Args: <rtframe-record> <build dir>.
set -u
rec=$(readlink -f "$1")
build_dir=$(readlink -f "$2")
dump="$build_dir/tools/rtframe-dump"
verify="$build_dir/tools/rtframe-verify"
info="$build_dir/tools/rtframe-info"
export="$build_dir/tools/rtframe-export"
. "$(dirname "$0")/asan-prefix.sh"
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done; [ -n "${RTF_KEEP:-}" ] && [ $fail != 0 ] && echo "kept $work" || rm -rf "$work"; }
trap cleanup EXIT
fail=0
py=/usr/bin/python3

port=$($py -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
api="http://127.0.0.1:$port"
caps="video/x-raw,format=GRAY8,width=160,height=120,framerate=20/1"

cat > "$work/rig.conf" <<CONF
[recorder]
dir=$work/rec
events=true
pre-record=0.5
post-record=0.6
http=127.0.0.1:$port
http-control=open

[camera left]
source=videotestsrc is-live=true pattern=ball
caps=$caps

# two disks for its bandwidth: its events over both
[camera center]
source=videotestsrc is-live=true pattern=snow
caps=$caps
sink=locations='<"$work/rec/a/center-event-%05d.raw","$work/rec/b/center-event-%05d.raw">'

# its frames come 0.4 s late (a camera with a deep buffer)
[camera right]
source=videotestsrc is-live=true pattern=smpte ! queue min-threshold-time=400000000 max-size-time=2000000000 max-size-buffers=0 max-size-bytes=0
caps=$caps
CONF
mkdir -p "$work/rec/a" "$work/rec/b"
"$rec" --config "$work/rig.conf" > "$work/rec.out" 2>&1 < /dev/null &
rec_pid=$!; pids+=($rec_pid)
for _ in $(seq 100); do
  curl -sf "$api/status" 2>/dev/null | grep -q '"state" : "recording"' && break
  sleep 0.1
done
sleep 1.5

# ---- a command some cameras cannot take: refused on all -----------------
# where each camera's frames are (a stop with nothing recorded: refused,
# with every camera's position)
curl -s -X POST "$api/record/stop" > "$work/where.json"
read -r past behind < <($py - "$work/where.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
p = {n: c["position"] for n, c in j["cameras"].items()}
# between the late camera's newest frame and the others'
print((p["right"] + min(p["left"], p["center"])) // 2, p["left"] - p["right"])
PY
)
code=$(curl -s -o "$work/past.json" -w '%{http_code}' -X POST \
  -d "{\"at\": $past}" "$api/record/start")
if [ "$code" != 409 ] || ! $py - "$work/past.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
c = j["cameras"]
assert not j["ok"]
assert not c["left"]["accepted"] and not c["center"]["accepted"], c
assert c["right"]["accepted"], c          # it would have: not made
PY
then
  echo "FAIL: a start two cameras had passed: HTTP $code $(cat "$work/past.json")"; fail=1
else
  echo "ok: a start two cameras had passed (the third ${behind} ns behind) refused on all: $(head -c 160 "$work/past.json")"
fi
if curl -s "$api/events" | grep -q '"id"'; then
  echo "FAIL: the refused start made a recording: $(curl -s "$api/events")"; fail=1
fi

# ---- an event with a split inside it, found as one thing by its id -------
code=$(curl -s -o "$work/ev.json" -w '%{http_code}' -X POST \
  -d '{"label": "the split one"}' "$api/trigger")
id=$($py -c "import json,sys; print(json.load(open(sys.argv[1]))['id'])" "$work/ev.json")
echo "$code /trigger $(tr -d '\n' < "$work/ev.json")" > "$work/c0.log"
sleep 0.3
curl -s -X POST "$api/split" > /dev/null
curl -s -X POST -d '{"note": "split inside"}' "$api/events/$id/note" > /dev/null
sleep 1.2
if [ "$code" != 200 ] || [ ! -f "$work/rec/$id.rtftake" ]; then
  echo "FAIL: trigger $code, no $work/rec/$id.rtftake: $(cat "$work/ev.json")"; fail=1
elif ! "$verify" -q "$work/rec/$id.rtftake" > "$work/v" 2>&1; then
  echo "FAIL: rtframe-verify $id.rtftake:"; cat "$work/v"; fail=1
elif mkdir -p "$work/moved" && cp "$work/rec/$id.rtftake" "$work/moved/" &&
    "$verify" "$work/moved/$id.rtftake" > "$work/v" 2>&1; then
  echo "FAIL: the take's manifest without its files verifies:"; cat "$work/v"; fail=1
elif ! grep -q "^event $id: UNREADABLE" "$work/v"; then
  # (a take whose files cannot be read: exit 2, and the word for it)
  echo "FAIL: a take without its files is not told UNREADABLE:"; tail -3 "$work/v"; fail=1
elif ! "$info" --json "$work/rec/$id.rtftake" > "$work/info.json" \
    || ! $py - "$work/info.json" "$id" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
t = j["takes"][0]
assert t["id"] == sys.argv[2] and t["label"] == "the split one", t
assert t["notes"] == ["split inside"] and t["state"] == "complete", t
for c in t["cameras"]:
    # the split inside: two files (at each of center's two locations), the
    # frames its recorder told, all there
    want = 4 if c["name"] == "center" else 2
    assert c["files"] == want and c["frames"] == c["frames-told"] > 0, c
    assert c["problem"] is None, c
counts = {c["frames"] for c in t["cameras"]}
assert max(counts) - min(counts) <= 1, counts
PY
then
  echo "FAIL: rtframe-info $id.rtftake: $(cat "$work/info.json")"; fail=1
else
  echo "ok: $id with a split inside: its manifest names two files a camera, rtframe-verify and rtframe-info read it whole"
fi
# exported (every camera, each to its own file) and played (one camera)
told=$($py -c "import json,sys; print(' '.join(f\"{c['name']}={c['frames-told']}\" for c in json.load(open(sys.argv[1]))['takes'][0]['cameras']))" "$work/info.json")
if [ ! -x "$export" ]; then
  echo "FAIL: no $export (gstreamer-app was not found at build time)"; fail=1
elif ! (cd "$work" && "$export" -f mkv "$work/rec/$id.rtftake" > "$work/export.out" 2>&1); then
  echo "FAIL: rtframe-export $id.rtftake:"; cat "$work/export.out"; fail=1
fi
for pair in $told; do
  cam=${pair%%=*} n=${pair#*=}
  if ! grep -q "$n frames .* written to $id-.*-$cam.mkv" "$work/export.out"; then
    echo "FAIL: rtframe-export $id: camera $cam's $n frames: $(cat "$work/export.out")"; fail=1
  fi
done
played=$("${asan[@]}" gst-launch-1.0 -v rtframesrc location="$work/rec/$id.rtftake" camera=center \
  ! fakesink silent=false 2>&1 | grep -c "fakesink0: last-message = chain" || true)
want=$(tr ' ' '\n' <<<"$told" | sed -n 's/^center=//p')
if [ "$played" != "$want" ]; then
  echo "FAIL: rtframesrc $id.rtftake camera=center played $played frames, not $want"; fail=1
else
  echo "ok: $id exported for every camera ($told) and camera center played ($played frames) through its manifest"
fi

# ---- a trigger never swallows a take asked to start later ---------------
curl -s -X POST "$api/trigger" > "$work/t1.json"
later=$($py -c "import json,sys; print(json.load(open(sys.argv[1]))['stop-running-time'] + 100000000)" "$work/t1.json")
c2=$(curl -s -o "$work/t2.json" -w '%{http_code}' -X POST -d "{\"at\": $later}" "$api/record/start")
sleep 0.1
c3=$(curl -s -o "$work/t3.json" -w '%{http_code}' -X POST "$api/trigger")
c4=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$api/record/stop")
if [ "$c2$c3$c4" != 200409200 ] || ! grep -q "would run into" "$work/t3.json"; then
  echo "FAIL: a trigger during an event with a take asked after it: $c2 $c3 $c4 $(cat "$work/t3.json")"; fail=1
else
  echo "ok: a trigger that would run into a take asked later is refused: $(head -c 120 "$work/t3.json")"
fi
for f in t1 t2; do echo "200 /trigger $(tr -d '\n' < "$work/$f.json")" >> "$work/c0.log"; done
sleep 1

# ---- eight hostile clients ----------------------------------------------
client() {  # n: random commands for 8 s, each reply a line "CODE PATH BODY"
  local n=$1 end=$(( $(date +%s) + 8 )) i=0
  while [ "$(date +%s)" -lt "$end" ]; do
    i=$((i + 1))
    case $(( (RANDOM + n) % 9 )) in
      0|1) p=/trigger; d="{\"label\": \"client $n try $i\"}" ;;
      2) p=/record/start; d='' ;;
      3) p=/record/stop; d='' ;;
      4) p=/record/start; d="{\"at\": $(( RANDOM * 100000 ))}" ;;
      5) p=/record/stop; d="{\"at\": $(( RANDOM * 100000 ))}" ;;
      6) p=/split; d='' ;;
      7) p=/events/event-$(( RANDOM % 6 + 1 ))/note; d="{\"note\": \"from $n\"}" ;;
      8) p=/trigger; d='' ;;
    esac
    code=$(curl -s -o "$work/c$n.body" -w '%{http_code}' -X POST \
      ${d:+-d "$d"} "$api$p")
    echo "$code $p $(tr -d '\n' < "$work/c$n.body")" >> "$work/c$n.log"
    sleep 0.0$(( RANDOM % 10 ))
  done
}
for n in 1 2 3 4 5 6 7 8; do client $n & cpids+=($!); done
wait "${cpids[@]}"
sleep 1.5   # the last event's post-record
curl -s "$api/events" > "$work/events.json"
curl -s "$api/status" > "$work/status.json"
kill -TERM $rec_pid; wait $rec_pid; status=$?
if [ $status -ne 0 ]; then
  echo "FAIL: SIGTERM: exit $status"; tail -5 "$work/rec.out"; fail=1
fi
cat "$work"/c*.log > "$work/replies"
# every manifest the run wrote reads whole (a take cut by SIGTERM too)
n=0
for m in "$work"/rec/*.rtftake; do
  n=$((n + 1))
  if ! "$verify" -q "$m" > "$work/v" 2>&1; then
    echo "FAIL: rtframe-verify $(basename "$m"):"; head -5 "$work/v"; fail=1
  fi
done
if ! "$info" "$work/rec" > "$work/info.txt" 2>&1; then
  echo "FAIL: rtframe-info $work/rec: exit $?"; tail -5 "$work/info.txt"; fail=1
else
  echo "ok: $n manifests verify, rtframe-info reads the directory"
fi
for cam in left center right; do
  where="$work/rec/$cam-event-%05d.raw"
  # center's recordings over two disks: read through its manifest
  [ $cam = center ] && where=$(ls "$work"/rec/a/*.rtfspread)
  "$dump" "$where" > "$work/$cam.csv" 2> "$work/$cam.err" \
    || { echo "FAIL: rtframe-dump $cam: $(cat "$work/$cam.err")"; fail=1; }
  if ! "$verify" -q "$where" > "$work/v" 2>&1; then
    echo "FAIL: rtframe-verify $cam:"; cat "$work/v"; fail=1
  fi
done

# ---- takes without events: idle until started, started and stopped -----
cat > "$work/takes.conf" <<CONF
[recorder]
dir=$work/takes
idle=true
http=127.0.0.1:$port
http-control=open

[camera a]
source=videotestsrc is-live=true pattern=ball
caps=$caps
location=$work/takes/a-%05d.raw

[camera b]
source=videotestsrc is-live=true pattern=snow
caps=$caps
location=$work/takes/b-%05d.raw
CONF
mkdir -p "$work/takes"
"$rec" --config "$work/takes.conf" > "$work/takes.out" 2>&1 < /dev/null &
takes_pid=$!; pids+=($takes_pid)
for _ in $(seq 100); do
  curl -sf "$api/status" 2>/dev/null | grep -q '"state" : "recording"' && break
  sleep 0.1
done
sleep 0.5
# (a set's first file may be made ahead, empty, at its name)
idle_files=$(find "$work/takes" -name '*.raw' -size +0 | wc -l)
t1=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$api/record/start")
sleep 1
t2=$(curl -s -o /dev/null -w '%{http_code}' -X POST "$api/record/stop")
t3=$(curl -s -o /dev/null -w '%{http_code}' -X POST -d '{"label": "second"}' "$api/record/start")
sleep 0.7
kill -TERM $takes_pid; wait $takes_pid; tstatus=$?
if [ "$idle_files" != 0 ] || [ "$t1$t2$t3" != 200200200 ] || [ $tstatus -ne 0 ]; then
  echo "FAIL: takes: $idle_files files with data while idle, replies $t1 $t2 $t3, exit $tstatus"; tail -5 "$work/takes.out"; fail=1
elif ! "$info" --json "$work/takes" > "$work/takes.json" || ! $py - "$work/takes.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
t = {x["id"]: x for x in j["takes"]}
assert sorted(t) == ["take-1", "take-2"], sorted(t)
assert t["take-2"]["label"] == "second"
for x in t.values():
    assert x["state"] == "complete", x
    for c in x["cameras"]:
        assert c["frames"] == c["frames-told"] > 0 and c["files"] == 1, c
# take-1 ran about 1 s at 20 fps: each camera about 20 frames
assert all(15 <= c["frames"] <= 25 for c in t["take-1"]["cameras"]), t["take-1"]
assert not j["other-files"], j["other-files"]
PY
then
  echo "FAIL: takes: $(cat "$work/takes.json")"; fail=1
else
  echo "ok: takes without events: nothing while idle, take-1 started and stopped, take-2 to the end, both whole"
fi

$py - "$work" <<'PY' || fail=1
import csv, json, re, sys
work = sys.argv[1]
ok = True
def bad(msg):
    global ok
    ok = False
    print("FAIL:", msg)

# every reply: a 200 has every camera's yes, a 409 no change
made, refused = set(), 0
replies = [l.split(" ", 2) for l in open(f"{work}/replies") if l.strip()]
for code, path, body in replies:
    j = json.loads(body) if body.startswith("{") else {}
    if code == "200" and path in ("/trigger", "/record/start"):
        made.add(j["id"])
    if code == "200" and "cameras" in j:
        no = [n for n, c in j["cameras"].items() if not c["accepted"]]
        if no:
            bad(f"{path} answered 200 with cameras that refused: {no}")
    if code == "409":
        refused += 1
    if code not in ("200", "404", "409"):
        bad(f"{path}: HTTP {code} {body[:200]}")

# each camera's recordings, by their first frames (event_start) and the
# ids the recorder printed in order
out = open(f"{work}/rec.out").read().replace("\r", "\n")
events = {e["id"]: e for e in json.load(open(f"{work}/events.json"))["recordings"]}
for line in re.findall(r"^\S+: \S+ at [0-9.]+ s (?:made late|refused after its check).*$", out, re.M):
    bad(f"a camera took a command otherwise than checked: {line}")
PERIOD, PRE = 50_000_000, 500_000_000
spans, written, phase = {}, {}, {}
for cam in ("left", "center", "right"):
    ids = re.findall(rf"^{cam}: (\S+) started in", out, re.M)
    rows = list(csv.DictReader(open(f"{work}/{cam}.csv")))
    recs = []
    for r in rows:
        rt = int(r["running_time"])
        if r["event_start"] == "1" or not recs:
            recs.append([rt, rt])
        recs[-1][1] = rt
    if len(ids) != len(recs):
        bad(f"{cam}: {len(recs)} recordings on disk, {len(ids)} told started")
    spans[cam] = dict(zip(ids, recs))
    written[cam] = {int(r["running_time"]) for r in rows}
    # a live videotestsrc stamps its frames every 50 ms from its first
    phase[cam] = min(written[cam]) % PERIOD if written[cam] else 0

def grid(cam, a, b):
    """the frames camera cam had in [a, b)"""
    t = a - (a - phase[cam]) % PERIOD
    if t < a:
        t += PERIOD
    while t < b:
        yield t
        t += PERIOD

# a recording on one camera and not on another: the cameras' frames
# come at different instants, so a recording shorter than a frame may
# hold one camera's frame and none of another's - never one the rules
# give that camera
every = set().union(*[set(spans[c]) for c in spans])
for i in sorted(every):
    e = events.get(i)
    have = [c for c in spans if i in spans[c]]
    for cam in spans:
        if i in spans[cam]:
            continue
        if e is None:
            bad(f"{i}: recorded by {have}, not by {cam}, not in /events")
            continue
        s0, e0 = e["running-time"], e["stop-running-time"] or 1 << 62
        live = list(grid(cam, s0, e0))
        held = [t for t in grid(cam, max(s0 - PRE, 0), s0) if t not in written[cam]]
        if live or held:
            bad(f"{i} ({s0} to {e0}): recorded by {have}; {cam} had frames "
                f"{(live + held)[:3]} for it and recorded none")
for i in every:
    have = [c for c in spans if i in spans[c]]
    for c in have[1:]:
        a, b = spans[c][i], spans[have[0]][i]
        if abs(a[0] - b[0]) > PERIOD or abs(a[1] - b[1]) > PERIOD:
            bad(f"{i}: {c} from {a[0]} to {a[1]}, {have[0]} from {b[0]} to {b[1]}")
for i in sorted(made - every):
    e = events.get(i)
    if e is None:
        continue        # cancelled by a later stop at or before its start
    s0, e0 = e["running-time"], e["stop-running-time"] or 1 << 62
    for cam in spans:
        if list(grid(cam, s0, e0)):
            bad(f"{i} replied made ({s0} to {e0}), {cam} had a frame in it, "
                "and no camera recorded it")
if not every <= made:
    bad(f"recorded but no reply made them: {sorted(every - made)}")
if not every <= set(events):
    bad(f"/events misses {sorted(every - set(events))}")
ref = every
st = json.load(open(f"{work}/status.json"))
if st["events-made"] + st["takes-made"] < len(made):
    bad(f"/status counts {st['events-made']} events and {st['takes-made']} takes for {len(made)} made")
if ok:
    print(f"ok: {len(replies)} replies ({refused} refused): {len(ref)} "
          f"recordings, each the same on the three cameras, each made by a 200")
sys.exit(0 if ok else 1)
PY
exit $fail
