#!/usr/bin/env bash
# rtframe-record's HTTP API against the real things: Debian's prometheus
# server scraping the recorder during a recording, asked through its own
# query API for the rate of frames written and for the counters, which
# must be the numbers the bus gave; curl against every endpoint, bad
# requests included (wrong method, bad JSON, unknown fields, a huge body,
# a missing or wrong token: a clear 4xx, nothing recorded changes); idle
# and trickling connections closed, at most 64 at once;
# SIGTERM at the end leaves files that verify.
# Args: <rtframe-record> <build dir>.  Skips (77) without prometheus.
set -u
rec=$(readlink -f "$1")
build_dir=$(readlink -f "$2")
verify="$build_dir/tools/rtframe-verify"
prometheus=$(command -v prometheus || true)
if [ -z "$prometheus" ]; then
  echo "SKIP: no prometheus (apt-get install prometheus)"; exit 77
fi
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done; rm -rf "$work"; }
trap cleanup EXIT
fail=0
py=/usr/bin/python3
. "$(dirname "$0")/lib-recorder-http.sh"

read -r port prom_port < <(free_ports 2)
api="http://127.0.0.1:$port"
caps="video/x-raw,format=GRAY8,width=640,height=480,framerate=20/1"

cat > "$work/rig.conf" <<CONF
[recorder]
dir=$work/rec
events=true
pre-record=0
post-record=30
http=127.0.0.1:$port
# (commands without a token: this test is the only one on its port)
http-control=open

[camera a]
source=videotestsrc is-live=true pattern=ball
caps=$caps

[camera b]
source=videotestsrc is-live=true pattern=snow
caps=$caps
CONF
mkdir -p "$work/rec"
"$rec" --config "$work/rig.conf" > "$work/rec.out" 2>&1 < /dev/null &
rec_pid=$!; pids+=($rec_pid)

expect() {  # name, want status, curl args...: prints the body
  local name=$1 want=$2; shift 2
  local out code
  out=$(curl -s -o "$work/body" -w '%{http_code}' "$@"); code=$out
  if [ "$code" != "$want" ]; then
    echo "FAIL: $name: HTTP $code, not $want: $(cat "$work/body")" >&2; fail=1
  else
    echo "ok: $name: $code $(head -c 200 "$work/body" | tr '\n' ' ')" >&2
  fi
  cat "$work/body"
}

if ! wait_for 10 curl -sf "$api/status"; then
  echo "FAIL: the recorder's API did not come up"; cat "$work/rec.out"; exit 1
fi

prometheus_start "$prom_port" "$port"
query() {  # PromQL: the first result's value, or empty
  curl -s --get "$prom/api/v1/query" --data-urlencode "query=$1" \
    | json 'j["data"]["result"][0]["value"][1] if j["data"]["result"] else ""'
}
echo "ok: prometheus scrapes the recorder"

# ---- the bad requests first: nothing may change -------------------------
# (names and sizes: the sink preallocates its next file meanwhile)
files_now() { (cd "$work/rec" && stat -c '%n %s' -- * .[!.]* 2>/dev/null | sort); }
before=$(files_now)
expect "GET /status" 200 "$api/status" > /dev/null
expect "POST /status (wrong method)" 405 -X POST "$api/status" > /dev/null
expect "GET /record/start (wrong method)" 405 "$api/record/start" > /dev/null
expect "an unknown endpoint" 404 "$api/nothing" > /dev/null
expect "bad JSON" 400 -X POST -d '{"at": now' "$api/record/start" > /dev/null
expect "an unknown field" 400 -X POST -d '{"when": "now"}' "$api/record/start" > /dev/null
expect "at not a time" 400 -X POST -d '{"at": "soon"}' "$api/record/start" > /dev/null
expect "a negative time" 400 -X POST -d '{"at": -5}' "$api/record/start" > /dev/null
expect "a body where none is taken" 400 -X POST -d 'x' "$api/trigger" > /dev/null
head -c 1000000 /dev/zero > "$work/huge"
expect "a huge body" 413 -X POST --data-binary @"$work/huge" "$api/record/start" > /dev/null
# the refusal must reach a client still sending: closed with the body
# unread, the kernel's reset overtook it now and then (CI, Debian 12:
# "HTTP 000"; 18 of 300 here before the lingering close, rtr-http-linger.h)
lost=0
for i in $(seq 1 100); do
  code=$(curl -s -o /dev/null -w '%{http_code}' -X POST \
    --data-binary @"$work/huge" "$api/record/start")
  [ "$code" = 413 ] || lost=$((lost + 1))
done
if [ "$lost" != 0 ]; then
  echo "FAIL: a huge body, 100 times: $lost refusals not received"; fail=1
else
  echo "ok: a huge body, 100 times: every refusal received"
fi
# a client that goes on sending after its refusal is closed within the
# linger time (2 s), the refusal received first
if out=$($py - "$port" <<'PY'
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"POST /record/start HTTP/1.1\r\nHost: x\r\n"
          b"Content-Length: 100000000\r\n\r\n")
t = time.time()
try:
    while time.time() - t < 15:
        s.sendall(b"x" * 1000)
        time.sleep(0.05)
except OSError:
    pass
took = time.time() - t
s.settimeout(5)
got = b""
try:
    while True:
        d = s.recv(4096)
        if not d:
            break
        got += d
except OSError:
    pass
print("%.1f %s" % (took, got.split(b"\r\n")[0].decode()))
sys.exit(0 if took < 5 and b" 413 " in got else 1)
PY
); then
  echo "ok: a client sending on after its refusal: closed after $out"
else
  echo "FAIL: a client sending on after its refusal: $out"; fail=1
fi
# a refused connection reset, and a new one from the same port at once:
# the new one is answered (the linger once found its socket by address
# and port, and shut and drained the new connection instead: 76 of 100)
if out=$($py - "$port" <<'PY'
import socket, struct, sys, time
port = int(sys.argv[1]); lost = 0
for i in range(20):
    a = socket.socket(); a.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    a.bind(("127.0.0.1", 0)); p = a.getsockname()[1]
    a.connect(("127.0.0.1", port)); time.sleep(0.05)
    a.send(b"POST /split HTTP/1.1\r\nHost: x\r\n"); time.sleep(0.05)
    a.send(b"Transfer-Encoding: chunked\r\n\r\n")
    a.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    a.close()
    b = socket.socket(); b.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    b.bind(("127.0.0.1", p)); b.connect(("127.0.0.1", port)); time.sleep(0.2)
    b.send(b"GET /status HTTP/1.1\r\nHost: x\r\n\r\n"); b.settimeout(4)
    try:
        d = b.recv(100)
    except OSError:
        d = b""
    if not d.startswith(b"HTTP/1.1 200"):
        lost += 1
    b.close()
print("%d of 20 unanswered" % lost)
sys.exit(1 if lost else 0)
PY
); then
  echo "ok: a port reused right after a refusal: the new connection answered ($out)"
else
  echo "FAIL: a port reused right after a refusal: $out"; fail=1
fi
# chunked: no length said, refused unread (the adversarial read of issue 25:
# a chunked "[" x 3,000,000 crashed the recorder in json-glib, and 400 MB
# were read before a missing token was refused)
head -c 3000000 /dev/zero | tr '\0' '[' > "$work/nested"
expect "a chunked body" 413 -X POST -H "Transfer-Encoding: chunked" \
  --data-binary @"$work/nested" "$api/record/start" > /dev/null
expect "a small chunked body" 413 -X POST -H "Transfer-Encoding: chunked" \
  -d '{"at": "now"}' "$api/record/start" > /dev/null
if ! curl -sf "$api/status" > /dev/null; then
  echo "FAIL: the recorder is gone after a chunked body"; fail=1
fi
written=$(curl -s "$api/status" | json 'sum(c["frames-written"] for c in j["cameras"])')
if [ "$written" != 0 ] || [ "$(files_now)" != "$before" ]; then
  echo "FAIL: bad requests changed something: $written frames written, files:"
  ls -la "$work/rec"; fail=1
else
  echo "ok: after the bad requests nothing was written, no file changed"
fi

# ---- a recording started and stopped over HTTP, watched in Prometheus ---
expect "POST /record/start" 200 -X POST -d '{"at": "now"}' "$api/record/start" > /dev/null
sleep 4
expect "POST /record/stop" 200 -X POST "$api/record/stop" > /dev/null
# the stop is at each camera's next frame: until its bus has told it (the
# cameras' streaming threads run apart, so one camera's line says nothing
# of the other's)
for cam in a b; do
  wait_for 10 grep -q "^$cam: take-1 stopped" "$work/rec.out"
  bus=$(tr '\r' '\n' < "$work/rec.out" \
    | sed -n "s/^$cam: take-1 stopped ([a-z-]*): \([0-9]*\) frames.*/\1/p")
  # Prometheus' newest sample of the counter: until it has the final one
  # (the sinks' statistics come once a second)
  has_final() { test "$(query "rtframe_frames_written_total{camera=\"$cam\"}")" = "$bus"; }
  wait_for 10 has_final
  status_n=$(curl -s "$api/status" \
    | json "[c for c in j['cameras'] if c['name']=='$cam'][0]['frames-written']")
  prom_n=$(query "rtframe_frames_written_total{camera=\"$cam\"}")
  # (over 3 s: the sinks' statistics come once a second, and one that
  # comes late on a loaded machine puts two seconds of frames 1 s apart -
  # over 2 s that read as 39/s once)
  rate=$(query "max_over_time(rate(rtframe_frames_written_total{camera=\"$cam\"}[3s])[20s:1s])")
  misses=$(query "rtframe_frames_missed_total{camera=\"$cam\"}")
  status_m=$(curl -s "$api/status" \
    | json "[c for c in j['cameras'] if c['name']=='$cam'][0]['frames-missed']")
  hist=$(query "rtframe_write_latency_seconds_count{camera=\"$cam\"}")
  if [ -z "$bus" ] || [ "$bus" -lt 60 ] || [ "$prom_n" != "$bus" ] \
      || [ "$status_n" != "$bus" ]; then
    echo "FAIL: camera $cam: frames written: bus $bus, /status $status_n, prometheus $prom_n"; fail=1
  else
    echo "ok: camera $cam: $bus frames written, the bus, /status and prometheus agree"
  fi
  if ! $py -c "import sys; r=float('$rate' or 0); sys.exit(not 15 <= r <= 25)"; then
    echo "FAIL: camera $cam: rate(rtframe_frames_written_total) peaked at '$rate', not about 20/s"; fail=1
  else
    echo "ok: camera $cam: prometheus' rate of frames written peaked at $rate/s (20 fps)"
  fi
  if [ "$misses" != "$status_m" ] || [ "$hist" != "$bus" ]; then
    echo "FAIL: camera $cam: misses prometheus '$misses' /status '$status_m'; latency histogram count '$hist' for $bus frames"; fail=1
  else
    echo "ok: camera $cam: misses $misses as /status, the latency histogram counts $hist frames"
  fi
done
# the deadline is a bucket edge
if ! curl -s "$api/metrics" | grep -q 'rtframe_write_latency_seconds_bucket{camera="a",le="0.05"}'; then
  echo "FAIL: the deadline (50 ms) is no bucket edge"; fail=1
fi
# the format as Prometheus' own checker reads it
if command -v promtool >/dev/null; then
  if ! curl -s "$api/metrics" | promtool check metrics > "$work/lint" 2>&1; then
    echo "FAIL: promtool check metrics:"; cat "$work/lint"; fail=1
  else
    echo "ok: promtool check metrics: clean"
  fi
fi

# the examples' scrape config and alerting rules, as Prometheus reads them
if command -v promtool >/dev/null; then
  src=$(dirname "$(readlink -f "$0")")/../examples/prometheus
  if ! promtool check config "$src/prometheus.yml" > "$work/lint" 2>&1; then
    echo "FAIL: promtool check config examples/prometheus:"; cat "$work/lint"; fail=1
  else
    echo "ok: promtool: the example scrape config and its alerting rules"
  fi
fi

expect "POST /split" 200 -X POST "$api/split" > /dev/null
expect "POST /trigger" 200 -X POST "$api/trigger" > /dev/null
sleep 1
kill -TERM $rec_pid; wait $rec_pid; status=$?
if [ $status -ne 0 ]; then
  echo "FAIL: SIGTERM: exit $status"; tail -5 "$work/rec.out"; fail=1
fi
for cam in a b; do
  if ! "$verify" -q "$work/rec/$cam-event-%05d.raw" > "$work/v" 2>&1; then
    echo "FAIL: rtframe-verify $cam:"; cat "$work/v"; fail=1
  else
    echo "ok: camera $cam's events verify"
  fi
done

# ---- a token ------------------------------------------------------------
head -c 24 /dev/urandom | base64 > "$work/token"
chmod 644 "$work/token"
cat > "$work/token.conf" <<CONF
[recorder]
dir=$work/tok
http=127.0.0.1:$port
http-token-file=$work/token

[camera a]
source=videotestsrc is-live=true
caps=$caps
CONF
mkdir -p "$work/tok"
# a token file others may read is refused before anything starts, as ssh
# refuses such a key
"$rec" --config "$work/token.conf" > "$work/tok.out" 2>&1 < /dev/null
code=$?
if [ $code -ne 2 ] || ! grep -q "mode 0644 lets others read or change it" "$work/tok.out"; then
  echo "FAIL: a token file of mode 0644: exit $code: $(cat "$work/tok.out")"; fail=1
else
  echo "ok: a token file of mode 0644 refused (exit 2): $(grep -o 'http token file.*' "$work/tok.out" | head -c 120)"
fi
chmod 600 "$work/token"
"$rec" --config "$work/token.conf" > "$work/tok.out" 2>&1 < /dev/null &
tok_pid=$!; pids+=($tok_pid)
asks_token() { test "$(curl -s -o /dev/null -w '%{http_code}' "$api/status")" = 401; }
wait_for 10 asks_token
expect "no token" 401 "$api/status" > /dev/null
expect "a wrong token" 401 -H "Authorization: Bearer wrong-token-wrong-token" "$api/status" > /dev/null
expect "the token" 200 -H "Authorization: Bearer $(cat "$work/token")" "$api/status" > /dev/null
expect "the token, /metrics" 200 -H "Authorization: Bearer $(cat "$work/token")" "$api/metrics" > /dev/null
# no token and a large body: refused before the body is read, whatever
# its encoding (the recorder's memory stays small)
head -c 50000000 /dev/zero > "$work/big"
expect "no token, a 50 MB chunked body" 401 -X POST -H "Transfer-Encoding: chunked" \
  --data-binary @"$work/big" "$api/split" > /dev/null
rss=$(awk '/^VmRSS/ {print $2}' /proc/$tok_pid/status)
if [ "${rss:-0}" -gt 200000 ]; then
  echo "FAIL: the recorder holds $rss kB after a refused 50 MB body"; fail=1
else
  echo "ok: the recorder holds $rss kB after a refused 50 MB body"
fi
# the same without "Expect: 100-continue" (curl sends it; a raw client
# need not), and lengths libsoup cannot read: libsoup 3.2 read such bodies
# into memory after the refusal (the second adversarial read, H1: 1 GB
# took the recorder to 1.7 GB and frames missed their deadlines)
if ! out=$($py - "$port" "$(cat "$work/token")" <<'PY' 2>&1
import socket, sys, time
port, token = int(sys.argv[1]), sys.argv[2]
for auth, length, want in (("", "1000000000", b"HTTP/1.1 401"),
                           ("Authorization: Bearer %s\r\n" % token, "-1",
                            b"HTTP/1.1 413"),
                           ("Authorization: Bearer %s\r\n" % token,
                            "99999999999999999999999", b"HTTP/1.1 413")):
    s = socket.create_connection(("127.0.0.1", port)); s.settimeout(5)
    t = time.time()
    s.sendall(("POST /split HTTP/1.1\r\nHost: x\r\n%sContent-Length: %s\r\n"
               "\r\n" % (auth, length)).encode())
    sent = 0
    try:
        while sent < 300 and time.time() - t < 3:
            s.sendall(b"\0" * (1 << 20)); sent += 1
    except OSError:
        pass
    got = s.recv(12)
    assert got == want, "Content-Length %s: %r after %d MB" % (length, got, sent)
    assert time.time() - t < 3, "Content-Length %s: %.1f s" % (length, time.time() - t)
print("401/413 at once, without Expect")
PY
); then
  echo "FAIL: refusals without Expect: $out"; fail=1
else
  echo "ok: refusals without Expect: $out"
fi
rss=$(awk '/^VmRSS/ {print $2}' /proc/$tok_pid/status)
if [ "${rss:-0}" -gt 200000 ]; then
  echo "FAIL: the recorder holds $rss kB after refusals without Expect"; fail=1
else
  echo "ok: the recorder holds $rss kB after refusals without Expect"
fi
# a camera with one file names it in /status once it holds a frame (it
# said null: file-opened is posted for a set's files only)
sleep 1
file=$(curl -s -H "Authorization: Bearer $(cat "$work/token")" "$api/status" |
  json 'j["cameras"][0]["file"]')
if [ "$file" != "$work/tok/a.raw" ]; then
  echo "FAIL: /status names file '$file' for the one-file camera"; fail=1
else
  echo "ok: /status names the one-file camera's file"
fi
kill -TERM $tok_pid; wait $tok_pid

# a directory whose name is not UTF-8: /status is still JSON (it was not:
# the byte went out raw), the byte shown as U+FFFD
odd=$work/$'caf\xe9'
mkdir -p "$odd"
"$rec" --source "videotestsrc is-live=true" --caps "$caps" --dir "$odd" \
  --http 127.0.0.1:$port --seconds 4 > /dev/null 2>&1 < /dev/null &
odd_pid=$!; pids+=($odd_pid)
wait_for 10 curl -sf "$api/status"
sleep 1
# without a token nor http-control=open a command is refused (403), unread,
# and changes nothing: anyone on the machine reaches 127.0.0.1
files=$(ls "$odd")
expect "POST /split without a token or http-control=open" 403 -X POST \
  "$api/split" > /dev/null
expect "POST /record/stop without a token or http-control=open" 403 -X POST \
  "$api/record/stop" > /dev/null
if ! grep -q "http-control=open" "$work/body" || [ "$(ls "$odd")" != "$files" ]; then
  echo "FAIL: a closed command: $(cat "$work/body"); files $(ls "$odd")"; fail=1
fi
loc=$(curl -s "$api/status" | json 'j["cameras"][0]["location"]')
if [ "$loc" != "$work/caf"$'\xef\xbf\xbd'"/cam0.raw" ]; then
  echo "FAIL: /status with a directory that is not UTF-8: '$loc'"; fail=1
else
  echo "ok: /status with a directory that is not UTF-8 is JSON: $loc"
fi
wait $odd_pid

# connections that do nothing, or send a byte now and then, are closed
# after http-idle-timeout; beyond 64 at once new ones are closed as they
# come; the API answers again once they are gone (before the gate, 1,000
# idle connections used up the descriptors and the API never answered)
mkdir -p "$work/idle"
"$rec" --source "videotestsrc is-live=true" --caps "$caps" --dir "$work/idle" \
  --http 127.0.0.1:$port --http-idle-timeout 2 --seconds 20 \
  > "$work/idle.out" 2>&1 < /dev/null &
idle_pid=$!; pids+=($idle_pid)
wait_for 10 curl -sf "$api/status"
if ! out=$($py - "$port" <<'PY' 2>&1
import socket, sys, time
port = int(sys.argv[1])
def connect():
    s = socket.create_connection(("127.0.0.1", port)); s.settimeout(5); return s
held = [connect() for _ in range(64)]
time.sleep(0.3)
extra = connect()
assert extra.recv(1) == b"", "a 65th connection was kept"
t = time.time()
assert held[0].recv(1) == b"", "an idle connection got data"
waited = time.time() - t
assert waited < 4, "an idle connection was kept %.1f s" % waited
trickle = connect()
cut = False
for b in b"GET /status HTTP/1.1\r\nHost: x\r\n":
    try:
        trickle.sendall(bytes([b])); time.sleep(0.5)
    except OSError:
        cut = True; break
assert cut, "a request sent a byte every 0.5 s was never cut"
time.sleep(0.5)
s = connect(); s.sendall(b"GET /status HTTP/1.1\r\nHost: x\r\n\r\n")
assert s.recv(12) == b"HTTP/1.1 200", "the API did not answer afterwards"
print("65th closed, idle closed after %.1f s, a trickle cut, then 200" % waited)
PY
); then
  echo "FAIL: idle connections: $out"; fail=1
else
  echo "ok: idle connections: $out"
fi
if ! grep -q "64 connections open, the most held at once" "$work/idle.out"; then
  echo "FAIL: the recorder did not say it closed a 65th connection"; fail=1
fi
kill -TERM $idle_pid; wait $idle_pid
if ! "$verify" -q "$work/idle/cam0.raw" > "$work/v" 2>&1; then
  echo "FAIL: the recording under idle connections does not verify:"
  cat "$work/v"; fail=1
fi

# the address it listens on, as a URL: PORT alone is 127.0.0.1's
mkdir -p "$work/url"
out=$(cd "$work/url" && "$rec" --http $port --seconds 1 --dir "$work/url" 2>&1)
if ! grep -q "control and metrics: http://127.0.0.1:$port/status, http://127.0.0.1:$port/metrics" <<<"$out"; then
  echo "FAIL: --http $port: $(grep control <<<"$out")"; fail=1
else
  echo "ok: --http $port: $(grep control <<<"$out")"
fi

# listening beyond the machine without a token: refused before recording
out=$("$rec" --http 0.0.0.0:$port --seconds 1 2>&1); status=$?
if [ $status -ne 2 ] || ! grep -q "give a token file" <<<"$out"; then
  echo "FAIL: 0.0.0.0 without a token: exit $status: $out"; fail=1
else
  echo "ok: 0.0.0.0 without a token: $out"
fi
# a port taken: exit 2, nothing recorded (--overwrite: the token run's
# files are there)
"$rec" --config "$work/token.conf" --overwrite > /dev/null 2>&1 < /dev/null &
pids+=($!)
wait_for 10 curl -s "$api/status"
out=$(cd "$work" && "$rec" --http 127.0.0.1:$port --seconds 1 --dir "$work/taken" 2>&1); status=$?
if [ $status -ne 2 ] || [ -e "$work/taken" ]; then
  echo "FAIL: a port taken: exit $status: $out"; fail=1
else
  echo "ok: a port taken: $out"
fi
exit $fail
