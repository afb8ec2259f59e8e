#!/bin/sh
# Runs test-message-types.py as an application would: Debian's Python with
# PyGObject (skips, 77, without it), in a scratch directory it removes.
# A plugin built with AddressSanitizer loads only into a process that has
# the ASan runtime: preloaded then (Python's own leaks are not ours).
here=$(dirname "$0")
python=/usr/bin/python3
if ! $python -c 'import gi; gi.require_version("Gst", "1.0")' 2>/dev/null; then
  echo "skipped: /usr/bin/python3 has no gi (apt-get install python3-gi gir1.2-gstreamer-1.0)"
  exit 77
fi
plugin="${GST_PLUGIN_PATH_1_0%%:*}/libgstrtframe.so"
dir=$(mktemp -d "${TMPDIR:-/tmp}/rtf-message-types.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
if ldd "$plugin" 2>/dev/null | grep -q libasan; then
  LD_PRELOAD="$(gcc -print-file-name=libasan.so)" \
    ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
    $python "$here/test-message-types.py" "$dir"
else
  $python "$here/test-message-types.py" "$dir"
fi
