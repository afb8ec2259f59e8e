#!/usr/bin/env bash
# Installs what rtframe needs to build, test and demo on Debian 12 (or newer),
# skipping what is already there.  Run as root, or with sudo available.
# Aravis (0.8.26 on Debian 12, 0.8.34 on 13; the same package names):
# libaravis-0.8-0 has the aravissrc element, aravis-tools the simulated
# GigE Vision camera the test records from (arv-fake-gv-camera-0.8),
# gir1.2-aravis-0.8 Aravis for Python; iproute2 brings up the loopback of
# the test's own network namespace.  rtframe-record's API: libsoup 3 and
# JSON-GLib (as GStreamer itself uses), libsystemd (sd_notify); its test
# scrapes it with Debian's prometheus server and talks to it with curl.
# gstreamer1.0-plugins-base-apps: gst-play-1.0, which the URI test plays a
# recording with (rtframe://).  rtframe-export's Matroska output:
# avenc_ffv1 (gstreamer1.0-libav) and matroskamux (gstreamer1.0-plugins-good);
# its test decodes with avdec_ffv1 and matroskademux, and reads the stills'
# depth with file(1).  groff-base: the man-pages test formats every page
# (a minimal Debian root has no groff, and the test then skipped).
# systemd: systemd-analyze, with which the units' tests verify them and
# rate their sandbox.
set -euo pipefail

packages=(
  meson ninja-build pkg-config gcc python3 python3-gi gir1.2-gstreamer-1.0
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  gstreamer1.0-plugins-base gstreamer1.0-plugins-base-apps gstreamer1.0-tools
  gstreamer1.0-libav gstreamer1.0-plugins-good file
  liburing-dev
  xfsprogs e2fsprogs util-linux mount fio gnuplot-nox
  valgrind indent groff-base
  libaravis-0.8-0 aravis-tools gir1.2-aravis-0.8 iproute2
  libsoup-3.0-dev libjson-glib-dev libsystemd-dev curl prometheus systemd
)
# --deb: what tools/build-deb.sh needs besides (debian/control's
# Build-Depends are all above)
if [ "${1:-}" = --deb ]; then
  packages+=(build-essential debhelper dpkg-dev fakeroot lintian)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: everything is installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: run as root (missing: ${missing[*]})" >&2; exit 1; }
  SUDO=sudo
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
