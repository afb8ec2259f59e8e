#!/usr/bin/env bash
# The shipped alerting rules (examples/prometheus/rtframe-alerts.yml)
# through promtool's unit tests: a continuous rig and an event rig
# (tests/prometheus/*.test.yml).  Then the checks themselves: the rules
# as they were before they asked what a camera should be doing, and as
# a per-camera disk figure would make them, must fail the tests - a unit
# test that passes them could not tell a false alert from a true one.
# Args: <source dir>.  Skips (77) without promtool.
set -u
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
  if cmp -s "$rules" "$work/mutant.yml"; then
    echo "FAIL: planted '$1' changed nothing in the rules"; fail=1
  elif run_tests "$work/mutant.yml" > "$work/mutant.out" 2>&1; then
    echo "FAIL: planted '$1' passes the unit tests"; fail=1
  else
    echo "ok: planted '$1' caught: $(grep -m1 -o 'alertname: [A-Za-z]*, time: [0-9a-z]*' "$work/mutant.out")"
  fi
}
mutant "not writing, whatever the camera's state" \
  '/and on (job, instance, camera) rtframe_camera_state{state="recording"} == 1/d'
mutant "disk time left per camera" \
  's/rtframe_filesystem_time_left_seconds/rtframe_time_left_seconds/'
mutant "no frames only while recording" \
  's/state=~"armed|recording"/state="recording"/'
exit $fail
