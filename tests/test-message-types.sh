#!/bin/bash
# Runs test-message-types.py as an application would: Debian's Python with
# PyGObject (skips, 77, without it), in a scratch directory it removes.
# (with a plugin built with AddressSanitizer: asan-prefix.sh)
here=$(dirname "$0")
python=/usr/bin/python3
if ! $python -c 'import gi; gi.require_version("Gst", "1.0")' 2>/dev/null; then
  echo "skipped: /usr/bin/python3 has no gi (apt-get install python3-gi gir1.2-gstreamer-1.0)"
  exit 77
fi
. "$here/asan-prefix.sh"
dir=$(mktemp -d "${TMPDIR:-/tmp}/rtf-message-types.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
"${asan[@]}" $python "$here/test-message-types.py" "$dir"
