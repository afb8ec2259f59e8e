#!/usr/bin/env bash
# Planted bugs the suite must catch: each patch of tests/mutants/ (one
# realistic bug of a class: a silent drop, the retention count, a frame
# reported before its index record, a missing fdatasync, a wrong offset,
# a wrong CRC, the tail block, a frame written twice, a final state
# written before the data is durable, a recording stopped or a request
# answered against the rules) applied alone to a scratch copy of this
# tree, built, and run against the torture test (fresh seeds, until its
# first failing round or for --torture-seconds), when that did not catch
# it the recording rules' randomized test (tests/test-recording-rules.c),
# and then the power-cut test (tests/kernel/power-cut.sh in
# Debian 12's kernel, then every point of its log replayed here).  Prints
# a table: the planted bug, the check that caught it, after how long.
# A planted bug no check catches fails the script: a check that cannot
# fail is a defect.
#
#   tools/mutants.sh [--only NAME]... [--torture-seconds N] [--points N|all]
#                    [--release bookworm|trixie] [--both] [--dir DIR] [--keep]
#
#   --torture-seconds  how long the torture test may take per bug (300)
#   --both             the power-cut test too where the torture test caught
#                      the bug (a row for each)
#   --points           the power-cut points replayed here (all)
#   --dir              where the scratch copy goes (default a new
#                      directory under /var/tmp; --keep leaves it)
# Root (loop devices, Debian's kernel in QEMU).  About 45 minutes on a
# 2-core machine (docs/testing.md has the last table).  Exit 0: every
# planted bug was caught; 1: one lived; 2: it could not run.
set -uo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
only=() torture_s=300 points=all release=bookworm dir= keep= both=
while [ $# -gt 0 ]; do
  case $1 in
    --only) only+=("$2"); shift 2 ;;
    --torture-seconds) torture_s=$2; shift 2 ;;
    --points) points=$2; shift 2 ;;
    --release) release=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    --both) both=1; shift ;;
    -h|--help) sed -n '2,24p' "$0"; exit 0 ;;
    *) echo "mutants: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ "$(id -u)" = 0 ] || { echo "mutants: root only (the torture's filesystems, QEMU's disks)" >&2; exit 2; }

# ---- the scratch copy: this tree as it is, committed, built -------------
[ -n "$dir" ] || dir=$(mktemp -d /var/tmp/rtf-mutants.XXXXXX)
mkdir -p "$dir/tree" "$dir/logs"
cd "$src"
git ls-files --cached --others --exclude-standard | grep -v '^fuzz/corpus/' \
  | cpio -pdmu "$dir/tree" 2>/dev/null
cd "$dir/tree"
git init -q . && git add -A && git -c user.name=mutants -c user.email=mutants@localhost \
  commit -qm "the tree under test" || { echo "mutants: no scratch copy" >&2; exit 2; }
targets="gst/gstrtframe tools/rtframe-verify tools/rtframe-recover tools/rtframe-dump
  tests/torture/torture tests/powercut/powercut-record tests/powercut/powercut-check
  tests/test-recording-rules"
build() {
  # shellcheck disable=SC2086
  meson compile -C build $targets > "$dir/logs/build.txt" 2>&1
}
if ! { meson setup build > "$dir/logs/setup.txt" 2>&1 && build; }; then
  echo "mutants: the unchanged tree does not build:" >&2; tail -20 "$dir/logs/build.txt" >&2
  exit 2
fi

# ---- one planted bug ------------------------------------------------------
# the first problem a check printed, shortened for the table
first_problem() { grep -m1 -E "$2" "$1" | cut -c1-90; }

# torture NAME: "SECONDS WHAT" of the first failing round, or nothing
torture() {
  local log=$dir/logs/$1-torture.txt t0=$SECONDS
  build/tests/torture/torture --seconds "$torture_s" --first-failure \
    --dir "$dir/rounds" > "$log" 2>&1
  # (the summary's line of the failed seed names no round directory)
  if grep -q "^round .* FAILED" "$log"; then
    echo "$((SECONDS - t0)) torture: $(grep -m1 '^  failed: ' "$log" | sed 's/^[^#]*# //' | cut -c1-80)"
  fi
}

# rules NAME: the same for the recording rules' randomized test (the
# sink's requests against a second model: tests/test-recording-rules.c)
rules() {
  local log=$dir/logs/$1-rules.txt t0=$SECONDS
  if ! GST_PLUGIN_PATH_1_0=$PWD/build/gst \
      GST_REGISTRY_1_0=$dir/rules-registry.bin RTF_RULES_DRAWS=60 \
      build/tests/test-recording-rules > "$log" 2>&1; then
    echo "$((SECONDS - t0)) rules test: $(first_problem "$log" ':F:' | sed 's/.*:F:[^:]*:[^:]*:[0-9]*: //' | cut -c1-80)"
  fi
}

# power_cut NAME: the same for the power-cut test
power_cut() {
  local log=$dir/logs/$1-power-cut.txt out=$dir/power-cut-$1 t0=$SECONDS
  rm -rf "$out"
  (cd "$dir/tree" && tools/test-kernel.sh "$release" --disk-mb 1200 --disks 4 \
      --cache writeback --out "$out" --keep-disks -- \
      tests/kernel/power-cut.sh "$dir/tree/build") > "$log" 2>&1
  if [ -f "$out/disk1.img" ]; then
    RTFRAME_POWERCUT_POINTS=$points RTFRAME_POWERCUT_SUBSETS=40 \
      tests/powercut/replay-on-host.sh "$out" "$dir/tree/build" "$release" >> "$log" 2>&1
  fi
  rm -rf "$out"
  if grep -q "^FAIL point" "$log"; then
    echo "$((SECONDS - t0)) power-cut: $(grep -m1 -A1 '^FAIL point' "$log" | tail -1 | cut -c1-80)"
  elif grep -q "^FAIL" "$log"; then
    echo "$((SECONDS - t0)) power-cut: $(first_problem "$log" '^FAIL')"
  fi
}

rows=() lived=0
for patch in "$src"/tests/mutants/*.patch; do
  name=$(basename "$patch" .patch)
  if [ ${#only[@]} -gt 0 ] && [[ " ${only[*]} " != *" $name "* ]]; then continue; fi
  class=$(sed -n 's/^# class: //p' "$patch")
  git checkout -q . && git clean -qfd -e build
  if ! patch -s -p1 < "$patch" || ! build; then
    echo "mutants: $name does not apply or build" >&2
    rows+=("$name|$class|(does not apply or build)|-"); lived=1; continue
  fi
  echo "mutants: $name ($class): the torture test, up to $torture_s s"
  caught=$(torture "$name")
  [ -n "$caught" ] && rows+=("$name|$class|${caught#* }|${caught%% *} s")
  if [ -z "$caught" ]; then
    echo "mutants: $name: the recording rules' test"
    caught=$(rules "$name")
    [ -n "$caught" ] && rows+=("$name|$class|${caught#* }|${caught%% *} s")
  fi
  if [ -z "$caught" ] || [ -n "$both" ]; then
    echo "mutants: $name: the power-cut test"
    pc=$(power_cut "$name")
    [ -n "$pc" ] && rows+=("$name|$class|${pc#* }|${pc%% *} s")
    caught=$caught$pc
  fi
  if [ -z "$caught" ]; then
    rows+=("$name|$class|LIVED: no check failed|-"); lived=1
  fi
  echo "mutants: $name: ${caught:-LIVED}"
done
git checkout -q . 2>/dev/null

printf '\n%-22s %-42s %-8s %s\n' "planted bug" "class" "after" "caught by"
for r in "${rows[@]}"; do
  IFS='|' read -r n c w t <<< "$r"
  printf '%-22s %-42s %-8s %s\n' "$n" "$c" "$t" "$w"
done
echo "logs: $dir/logs"
[ -z "$keep" ] && [ $lived -eq 0 ] && rm -rf "$dir/tree" "$dir/rounds"
exit $lived
