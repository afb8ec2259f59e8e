# Sourced by the shell tests that start a GStreamer program (gst-launch-1.0,
# gst-play-1.0, gst-inspect-1.0, Python) on the plugin built here.  A
# plugin built with AddressSanitizer (tools/test.sh --sanitize) loads only
# into a process that has the ASan runtime first: with such a plugin,
# `asan` is a command prefix that preloads it (leaks not checked: the
# program's own are not ours to judge); an empty array otherwise.
asan=()
if ldd "${GST_PLUGIN_PATH_1_0%%:*}/libgstrtframe.so" 2>/dev/null |
    grep -q libasan; then
  asan=(env LD_PRELOAD="$(gcc -print-file-name=libasan.so)"
    ASAN_OPTIONS=detect_leaks=0:abort_on_error=1)
fi
