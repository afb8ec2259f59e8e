#!/usr/bin/env bash
# Formats C files the way GStreamer 1.22's gst-indent does (GNU indent, run
# twice because one pass is not stable).  No arguments: every .c file.  Like
# GStreamer's pre-commit hook it leaves headers as written (indent mangles
# G_BEGIN_DECLS).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v indent >/dev/null || { echo "gst-indent: apt-get install indent" >&2; exit 1; }
files=("$@")
[ ${#files[@]} -gt 0 ] || mapfile -t files < <(git ls-files '*.c')
for f in "${files[@]}"; do
  for pass in 1 2; do
    indent --braces-on-if-line --case-brace-indentation0 --case-indentation2 \
      --braces-after-struct-decl-line --line-length80 --no-tabs --cuddle-else \
      --dont-line-up-parentheses --continuation-indentation4 --honour-newlines \
      --tab-size8 --indent-level2 --leave-preprocessor-space "$f" -o "$f.indent"
    mv "$f.indent" "$f"
  done
done
