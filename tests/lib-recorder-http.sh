# Sourced by the tests that run rtframe-record's HTTP API against a real
# Prometheus (test-rtframe-record-http.sh, test-rtframe-record-metrics.sh):
# free ports, waiting, JSON, and a Prometheus server scraping the
# recorder.  Needs: $work (a scratch directory), $py, the array pids (what
# the test kills at its end).

free_ports() {  # n: that many free loopback ports, on one line
  $py -c '
import socket, sys
s = [socket.socket() for _ in range(int(sys.argv[1]))]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])' "$1"
}

wait_for() {  # seconds, command...: until it succeeds
  local n=$(( $1 * 10 )); shift
  for _ in $(seq $n); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
  return 1
}

json() {  # the JSON on stdin, a Python expression over it as j
  $py -c "import json,sys; j=json.load(sys.stdin); print($1)"
}

# prometheus_start PORT RECORDER_PORT [RULE_FILE...]: Debian's prometheus
# on 127.0.0.1:PORT scraping the recorder every second (rule files, in
# $work, evaluated every second); $prom is its URL.  Exits 1 when it does
# not come up or does not scrape the recorder within 20 s.
prometheus_start() {
  local port=$1 target=$2 rules=""
  shift 2
  [ $# -eq 0 ] || rules="rule_files: [$(IFS=,; echo "$*")]"
  cat > "$work/prometheus.yml" <<PROM
global:
  scrape_interval: 1s
  evaluation_interval: 1s
$rules
scrape_configs:
  - job_name: rtframe
    static_configs:
      - targets: ['127.0.0.1:$target']
PROM
  prometheus --config.file="$work/prometheus.yml" \
    --storage.tsdb.path="$work/prom" --web.listen-address="127.0.0.1:$port" \
    > "$work/prom.out" 2>&1 &
  pids+=($!)
  disown                        # (killed at the end: no word of it)
  prom="http://127.0.0.1:$port"
  if ! wait_for 30 curl -sf "$prom/-/ready"; then
    echo "FAIL: prometheus did not come up"; tail -5 "$work/prom.out"; exit 1
  fi
  if ! wait_for 20 prometheus_scraped; then
    echo "FAIL: prometheus does not scrape the recorder"
    curl -s "$prom/api/v1/targets" | head -c 600; exit 1
  fi
}

prometheus_scraped() {
  curl -s --get "$prom/api/v1/query" --data-urlencode 'query=up{job="rtframe"} == 1' |
    grep -q '"value"'
}

prometheus_results() {  # PromQL: every result as "labels value" lines
  curl -s --get "$prom/api/v1/query" --data-urlencode "query=$1" | $py -c '
import json, sys
for r in json.load(sys.stdin)["data"]["result"]:
    m = r["metric"]; m.pop("__name__", None)
    print(",".join("%s=%s" % kv for kv in sorted(m.items())), r["value"][1])'
}
