#!/usr/bin/env bash
# The shipped alerting rules (examples/prometheus/rtframe-alerts.yml)
# through promtool's unit tests: two continuous rigs and two event rigs
# (tests/prometheus/*.test.yml), each alert silent and firing at the edge
# of its `for:`.  Then the checks themselves: every alert left out, and
# rules planted wrong (the not-writing rule as it was before it asked
# what a camera should be doing, matched on the camera alone, a
# per-camera disk figure, `for:` changed, ...) must fail the tests - a
# unit test that passes them could not tell a false alert from a true one.
# Args: <source dir>.  Skips (77) without promtool.
set -u
py=/usr/bin/python3
src=$(readlink -f "$1")
rules="$src/examples/prometheus/rtframe-alerts.yml"
if ! command -v promtool >/dev/null; then
  echo "SKIP: no promtool (apt-get install prometheus)"; exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0

run_tests() {  # rules file: promtool's unit tests against it
  cp "$src"/tests/prometheus/*.test.yml "$work/"
  cp "$1" "$work/rtframe-alerts.yml"
  (cd "$work" && promtool test rules alerts-continuous.test.yml \
    alerts-events.test.yml)
}

if promtool check rules "$rules" && run_tests "$rules"; then
  echo "ok: the shipped rules pass a continuous and an event rig's tests"
else
  echo "FAIL: the shipped rules fail promtool's unit tests"; fail=1
fi

# planted: each must be caught
mutant() {  # name, sed expression over the rules
  sed -e "$2" "$rules" > "$work/mutant.yml"
  judge "$1"
}
judge() {  # name: the rules in $work/mutant.yml must fail the tests
  if cmp -s "$rules" "$work/mutant.yml"; then
    echo "FAIL: planted '$1' changed nothing in the rules"; fail=1
  elif run_tests "$work/mutant.yml" > "$work/mutant.out" 2>&1; then
    echo "FAIL: planted '$1' passes the unit tests"; fail=1
  else
    echo "ok: planted '$1' caught: $(grep -m1 -o 'alertname: [A-Za-z]*, time: [0-9a-z]*' "$work/mutant.out")"
  fi
}
# each alert left out: every one is tested firing
for alert in $(sed -n 's/^ *- alert: //p' "$rules"); do
  $py - "$rules" "$alert" > "$work/mutant.yml" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
# the rule's block: from its "- alert:" line to the next rule or the end
print(re.sub(r"      - alert: %s\n(?:(?!      - alert:).*\n)*" % sys.argv[2], "",
             text), end="")
PY
  judge "$alert left out"
done
mutant "not writing, whatever the camera's state" \
  '/and on (job, instance, camera) rtframe_camera_state{state="recording"} == 1/d'
mutant "not writing, matched on the camera alone" \
  's/and on (job, instance, camera) rtframe_camera_state{state="recording"}/and on (camera) rtframe_camera_state{state="recording"}/'
mutant "not writing, in any state but armed" \
  's/rtframe_camera_state{state="recording"} == 1/rtframe_camera_state{state!="armed"} == 1/'
mutant "not writing without its 30 s" \
  '/alert: RtframeNotWriting/,/for:/s/for: 30s/for: 0s/'
mutant "not writing after 90 s" \
  '/alert: RtframeNotWriting/,/for:/s/for: 30s/for: 90s/'
mutant "no frames only while recording" \
  's/state=~"armed|recording"/state="recording"/'
mutant "no frames, whatever the camera's state" \
  '/and on (job, instance, camera) rtframe_camera_state{state=~"armed|recording"} == 1/d'
mutant "no frames without its 30 s" \
  '/alert: RtframeNoFrames/,/for:/s/for: 30s/for: 0s/'
mutant "disk time left per camera" \
  's/rtframe_filesystem_time_left_seconds/rtframe_time_left_seconds/'
mutant "disk time left, recycling or not" \
  '/unless on (job, instance, mount) rtframe_filesystem_recycling == 1/d'
mutant "a failed camera, every camera that is not" \
  's/rtframe_camera_state{state="failed"} == 1/rtframe_camera_state{state="failed"} == 0/'
mutant "any command, refused or not" \
  's/rtframe_commands_total{outcome="refused"}/rtframe_commands_total/'
mutant "a location not active for 1 min" \
  '/alert: RtframeLocationNotActive/,/for:/s/for: 10s/for: 1m/'
exit $fail
