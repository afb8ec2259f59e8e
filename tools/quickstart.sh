#!/usr/bin/env bash
# Quick start, step 1: install what is missing, build, and record a few
# seconds of the user's workload - 3 streams of P010_10LE 2048x928 at 20 fps
# (5,701,632-byte frames, 342 MB/s together) - into demo/, then print what
# was written.
#   tools/quickstart.sh [seconds] [directory]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-5}
out=${2:-demo}

tools/install-deps.sh
tools/build.sh

export GST_PLUGIN_PATH_1_0="$PWD/build/gst${GST_PLUGIN_PATH_1_0:+:$GST_PLUGIN_PATH_1_0}"
mkdir -p "$out"
rm -f "$out"/cam*.raw
frames=$((seconds * 20))
caps="video/x-raw,format=P010_10LE,width=2048,height=928,framerate=20/1"
pipeline=()
for s in 0 1 2; do
  pipeline+=(videotestsrc is-live=true num-buffers=$frames pattern=ball foreground-color=$((0xff000000 + (0xff << (8 * s))))
    "!" "$caps" "!" rtframesink name=cam$s location="$out/cam$s.raw")
done

echo "quickstart: recording ${seconds}s of 3 streams ($caps) to $out/"
log=$(mktemp)
start=$(date +%s.%N)
gst-launch-1.0 -m -e "${pipeline[@]}" >"$log" 2>&1 || { cat "$log"; exit 1; }
end=$(date +%s.%N)

echo
printf '%-24s %7s %12s %10s %7s %9s %7s %6s\n' file frames bytes zero-copy copied engine direct align
ok=1
for s in 0 1 2; do
  line=$(grep "rtframesink-stats" "$log" | grep "\"cam$s\"\|cam$s.raw" | tail -1)
  get() { sed -n "s/.*$1=([a-z0-9]*)\([^,;]*\).*/\1/p" <<<"$line"; }
  f="$out/cam$s.raw"
  size=$(stat -c %s "$f")
  written=$(get frames-written)
  printf '%-24s %7s %12s %10s %7s %9s %7s %6s\n' "$f" "$written" "$size" \
    "$(get frames-zero-copy)" "$(get frames-copied)" "$(get io-engine)" \
    "$(get direct)" "$(get write-alignment)"
  [ "$written" = "$frames" ] && [ "$size" = $((frames * 5701632)) ] || ok=0
done
rm -f "$log"
echo
awk -v t0="$start" -v t1="$end" -v n="$frames" 'BEGIN {
  mb = 3 * n * 5701632 / 1e6; printf "%.0f MB in %.2f s: %.0f MB/s\n", mb, t1 - t0, mb / (t1 - t0) }'
if [ $ok = 1 ]; then
  echo "quickstart: every stream has all $frames frames, exactly $frames x 5701632 bytes"
else
  echo "quickstart: FAILED: a stream is missing frames" >&2
  exit 1
fi
echo "play one back:  GST_PLUGIN_PATH_1_0=$PWD/build/gst gst-launch-1.0 filesrc location=$out/cam0.raw ! rawvideoparse format=p010-10le width=2048 height=928 framerate=20/1 ! videoconvert ! autovideosink"
