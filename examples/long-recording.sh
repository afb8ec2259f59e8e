#!/usr/bin/env bash
# A long recording, end to end, from the documented commands
# (docs/recording.md): 3 streams recorded into sets of 1-second files with
# checksums, the recorder killed (SIGKILL) in the middle, each set
# recovered and verified, then played back with rtframesrc and accurate
# seeks to frames.
#   examples/long-recording.sh [directory] [caps]
# Needs a built tree (tools/build.sh; another one: RTFRAME_BUILD=<dir>).
# Exit 0 when every step did what it should.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-demo-long}
caps=${2:-video/x-raw,format=P010_10LE,width=2048,height=928,framerate=20/1}
build=${RTFRAME_BUILD:-$PWD/build}
export GST_PLUGIN_PATH_1_0="$build/gst${GST_PLUGIN_PATH_1_0:+:$GST_PLUGIN_PATH_1_0}"
python=/usr/bin/python3
mkdir -p "$dir"
rm -f "$dir"/cam*-*.raw "$dir"/cam*-*.raw.idx

echo "== record 3 streams into 1-second files, killed after 3.5 s"
"$build/recorder/rtframe-record" --streams 3 --seconds 10 --dir "$dir" \
  --rotate 1 --caps "$caps" --sink-props "checksums=true" > "$dir/record.log" 2>&1 &
pid=$!
sleep 3.5
kill -KILL $pid
wait $pid 2>/dev/null || true
ls "$dir" | grep -c '\.raw$' | xargs echo "files on disk:"

for s in 0 1 2; do
  set_="$dir/cam$s-%05d.raw"
  echo "== stream $s: rtframe-recover, then rtframe-verify"
  "$build/tools/rtframe-recover" "$set_"
  "$build/tools/rtframe-verify" -q "$set_"
  "$build/tools/rtframe-verify" "$set_" | tail -4
done

echo "== play stream 0 back with rtframesrc: seek to frames 0, 27 and 5, then to 1.0 s and 2.26 s"
$python examples/rtframe-seek.py "$dir/cam0-%05d.raw" 0 27 5
$python examples/rtframe-seek.py --time "$dir/cam0-%05d.raw" 1.0 2.26
echo "long-recording: recorded, recovered, verified and played back"
