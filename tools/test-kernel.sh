#!/usr/bin/env bash
# Runs a command on Debian's own kernel in QEMU, with this machine's root
# filesystem shared read-only (9p) and chrooted into, so the guest runs the
# GStreamer, tools and build tree of this machine on the block layer,
# filesystems and drivers of that kernel: XFS realtime, md RAID0,
# dm-delay and dm-flakey, which this machine's kernel may not have.
#   tools/test-kernel.sh [RELEASE] [--disks N] [--disk-mb MB] -- COMMAND...
#     RELEASE    bookworm (Debian 12, the default) or trixie (Debian 13)
#     --disks    raw disk images the guest sees as /dev/vda, /dev/vdb, ...
#                (default 2, each --disk-mb, default 1024, sparse files)
#     --out DIR  where the guest's $RTFRAME_KERNEL_OUT is copied at the end
#     --cache MODE  QEMU's cache mode for the disks (default none: O_DIRECT
#                on this machine's file; writeback: through its page cache)
#     --queues N  the virtio queues of each disk (default: QEMU's, one a
#                CPU); 1 completes every request in the order the disk
#                finished it, as dm-log-writes needs (tests/kernel/power-cut.sh)
#     --keep-disks  the disk images go to DIR too (disk0.img, ...), for a
#                check on this machine after the guest (a log the guest
#                recorded); without it they are deleted
#     COMMAND    run in the guest as root, cwd the directory this was run
#                from; its exit status is this script's.  The guest writes
#                only its own tmpfs, its disks and $RTFRAME_KERNEL_OUT.
#   RTFRAME_KERNELS  where kernels are kept (default /var/tmp/rtf-kernels)
# Without /dev/kvm QEMU emulates the CPU (TCG): a boot takes seconds, the
# guest's CPU is slow, so times taken inside mean little; the block layer
# and the filesystems are the real kernel's.  Root only (debootstrap'd
# roots, apt-get download).
set -euo pipefail
release=bookworm
disks=2
disk_mb=1024
out=
keep_disks=
cache=none
queues=
while [ $# -gt 0 ]; do
  case $1 in
    bookworm|trixie) release=$1; shift ;;
    --disks) disks=$2; shift 2 ;;
    --disk-mb) disk_mb=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --keep-disks) keep_disks=1; shift ;;
    --cache) cache=$2; shift 2 ;;
    --queues) queues=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "test-kernel: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ $# -gt 0 ] || { echo "test-kernel: no command (-- COMMAND...)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "SKIP: test-kernel: root only (apt-get download, QEMU's disks)"; exit 77; }
kernels=${RTFRAME_KERNELS:-/var/tmp/rtf-kernels}
here=$(cd "$(dirname "$0")/.." && pwd)
cwd=$PWD

# what it needs, installed as tools/install-deps.sh installs (busybox-static:
# the initramfs has no libc)
missing=()
for p in qemu-system-x86 busybox-static kmod cpio xz-utils zstd mdadm dmsetup; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "test-kernel: installing ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null
fi

# ---- the kernel package of the release ----------------------------------
fetch_kernel() {
  local dir=$kernels/$release pkg deb
  mkdir -p "$dir"
  case $release in
    bookworm)
      pkg=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
      [ -n "$pkg" ] || { echo "test-kernel: no linux-image-amd64 in this machine's apt lists" >&2; exit 1; }
      deb=$(ls "$dir"/"$pkg"_*.deb 2>/dev/null | head -1 || true)
      if [ -z "$deb" ]; then
        (cd "$dir" && apt-get download "$pkg" >/dev/null 2>&1)
        deb=$(ls "$dir"/"$pkg"_*.deb | head -1)
      fi ;;
    trixie)
      # through the Debian 13 root tools/test-debian.sh makes (its apt lists)
      local root=${RTFRAME_ROOTS:-/var/tmp/rtf-roots}/trixie
      [ -x "$root/usr/bin/apt-get" ] || { echo "test-kernel: no Debian 13 root at $root (tools/test-debian.sh trixie makes it)" >&2; exit 1; }
      pkg=$(chroot "$root" apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
      deb=$(ls "$dir"/"$pkg"_*.deb 2>/dev/null | head -1 || true)
      if [ -z "$deb" ]; then
        chroot "$root" sh -c "cd /tmp && apt-get download $pkg" >/dev/null 2>&1
        mv "$root"/tmp/"$pkg"_*.deb "$dir"/
        deb=$(ls "$dir"/"$pkg"_*.deb | head -1)
      fi ;;
  esac
  tree=$dir/${pkg}.tree
  if [ ! -d "$tree" ]; then
    rm -rf "$tree.tmp"; dpkg -x "$deb" "$tree.tmp"; mv "$tree.tmp" "$tree"
  fi
  version=${pkg#linux-image-}
  vmlinuz=$tree/boot/vmlinuz-$version
  # (Debian 13 keeps them under /usr, compressed)
  modbase=$tree
  [ -d "$tree/lib/modules/$version" ] || modbase=$tree/usr
  moddir=$modbase/lib/modules/$version
  [ -f "$moddir/modules.dep" ] || depmod -b "$modbase" "$version"
}

# ---- the initramfs: busybox, the modules, /init -------------------------
# (crc32c_generic: libcrc32c asks the crypto API for crc32c, which would
# load it through modprobe, which the initramfs has not)
wanted="virtio_pci virtio_blk 9pnet_virtio 9p crc32c_generic xfs ext4 raid0 dm-delay dm-flakey dm-log-writes loop"

module_order() {  # every wanted module after what it needs, once each
  local dep=$moddir/modules.dep seen=" "
  visit() {
    local path line d
    path=$(awk -F: -v m="$1" '{ f = $1; sub(/\.(xz|zst|gz)$/, "", f) }
        f ~ ("/" m "\\.ko$") {print $1; exit}' "$dep")
    [ -n "$path" ] || return 0    # built in
    case $seen in *" $path "*) return 0 ;; esac
    line=$(grep -m1 "^$path:" "$dep" | cut -d: -f2-)
    for d in $line; do d=$(basename "$d"); visit "${d%%.ko*}"; done
    seen="$seen$path "
    echo "$path"
  }
  local m
  for m in $wanted; do visit "$m"; done
}

make_initramfs() {
  local img=$kernels/$release/initramfs-$version.cpio.gz work
  [ -f "$img" ] && [ "$img" -nt "$0" ] && { initramfs=$img; return; }
  work=$(mktemp -d)
  mkdir -p "$work"/{bin,proc,sys,dev,host,hostro,job,lib/modules}
  cp /bin/busybox "$work/bin/busybox"
  module_order > "$work/modules.order"
  # (uncompressed: busybox's insmod reads plain .ko)
  while read -r m; do
    mkdir -p "$work/lib/modules/$(dirname "$m")"
    case $m in
      *.xz) xz -dc "$moddir/$m" > "$work/lib/modules/${m%.xz}" ;;
      *.zst) zstd -qdc "$moddir/$m" > "$work/lib/modules/${m%.zst}" ;;
      *.gz) gzip -dc "$moddir/$m" > "$work/lib/modules/${m%.gz}" ;;
      *) cp "$moddir/$m" "$work/lib/modules/$m" ;;
    esac
  done < "$work/modules.order"
  sed -i 's/\.\(xz\|zst\|gz\)$//' "$work/modules.order"
  cat > "$work/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc; mount -t sysfs sys /sys; mount -t devtmpfs dev /dev
while read -r m; do insmod "/lib/modules/$m" || echo "init: insmod $m failed"; done < /modules.order
# (the 9p channels come once their virtio devices are probed)
for i in $(seq 100); do
  mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,ro host /host 2>/dev/null && break
  sleep 0.1
done
mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 job /job
mount -t proc proc /host/proc
mount -t sysfs sys /host/sys
mount -t devtmpfs dev /host/dev
# (the guest's /tmp is its own: the host's directories under /tmp the job
# needs - a clone in /tmp, its build - are bound back from the share)
mkdir -p /hostro/tmp
mount -o bind /host/tmp /hostro/tmp
mount -t tmpfs -o size=75% tmp /host/tmp
while read -r d; do
  mkdir -p "/host$d" && mount -o bind "/hostro$d" "/host$d"
done < /job/binds
mount -t tmpfs run /host/run
mount -o bind /job /host/mnt
chroot /host /bin/sh /mnt/job.sh > /job/console.log 2>&1
echo $? > /job/status
sync
poweroff -f
INIT
  chmod +x "$work/init"
  (cd "$work" && find . | cpio -o -H newc 2>/dev/null | gzip -1) > "$img.tmp"
  mv "$img.tmp" "$img"
  rm -rf "$work"
  initramfs=$img
}

fetch_kernel
make_initramfs

# ---- the job: disks, the command, QEMU ----------------------------------
job=$(mktemp -d "${TMPDIR:-/tmp}/rtf-kernel.XXXXXX")
mkdir -p "$job/out"
drives=()
for i in $(seq 0 $((disks - 1))); do
  truncate -s "${disk_mb}M" "$job/disk$i.img"
  drives+=(-drive "file=$job/disk$i.img,if=none,id=disk$i,format=raw,cache=$cache,aio=threads"
    -device "virtio-blk-pci,drive=disk$i${queues:+,num-queues=$queues}")
done
# host directories under /tmp the guest must see (its /tmp is a tmpfs)
# (a file there: its directory)
for d in "$cwd" "$@"; do
  case $d in
    /tmp/*) [ -d "$d" ] || d=$(dirname "$d")
      [ -d "$d" ] && readlink -f "$d" || true ;;
  esac
done | sort -u > "$job/binds"
{
  echo "#!/bin/sh"
  echo "export HOME=/tmp PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
  echo "export GST_REGISTRY_1_0=/tmp/gst-registry.bin GST_REGISTRY_FORK=no"
  echo "export RTFRAME_KERNEL_OUT=/mnt/out RTFRAME_KERNEL_RELEASE=$release"
  echo "cd '$cwd' || exit 1"
  printf '%q ' "$@"; echo
} > "$job/job.sh"
# Does this kernel boot under KVM here?  It prints "Linux version" within
# a second or two when it does.  On some hosts it does not: nested KVM on
# an AMD EPYC machine (2026-12-06) aborted QEMU 7.2 with "failed to set
# MSR 0x10a" (-cpu host passes IA32_ARCH_CAPABILITIES through), and
# without that MSR the guest hung before its first message with every CPU
# model tried (host, EPYC, Skylake-Client, qemu64) while TCG booted it.
# The answer is kept for this boot of the machine, per kernel.
kvm_boots() {
  local probe=$kernels/kvm-$(cat /proc/sys/kernel/random/boot_id)-$version
  local log=$job/kvm-probe.log pid i
  [ -f "$probe" ] && { [ "$(cat "$probe")" = yes ]; return; }
  qemu-system-x86_64 -machine q35,accel=kvm -cpu host,-arch-capabilities \
    -smp 1 -m 512 -nographic -no-reboot -kernel "$vmlinuz" \
    -append "console=ttyS0 panic=-1" > "$log" 2>&1 &
  pid=$!
  for i in $(seq 300); do
    grep -q "Linux version" "$log" && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  if grep -q "Linux version" "$log"; then
    echo yes > "$probe"
    return 0
  fi
  echo "test-kernel: this kernel does not boot under KVM here ($(grep -m1 \
    -o 'error: .*' "$log" || echo 'no message in 30 s')): QEMU emulates the" \
    "CPU (TCG)"
  echo no > "$probe"
  return 1
}

accel=tcg cpu=max
# -cpu host without its ARCH_CAPABILITIES MSR (above); the guest only
# loses the CPU's own report of which speculation flaws it lacks
[ -w /dev/kvm ] && kvm_boots && accel=kvm cpu=host,-arch-capabilities
echo "test-kernel: Debian $release's kernel $version in QEMU ($accel), $disks disks of $disk_mb MB"
set +e
timeout 1800 qemu-system-x86_64 -machine q35,accel=$accel -cpu $cpu -smp 2 -m 3072 \
  -nographic -no-reboot -kernel "$vmlinuz" -initrd "$initramfs" \
  -append "console=ttyS0 quiet panic=-1" \
  -virtfs local,path=/,mount_tag=host,security_model=none,readonly=on \
  -virtfs local,path="$job",mount_tag=job,security_model=none \
  "${drives[@]}" > "$job/qemu.log" 2>&1
qemu=$?
set -e
cat "$job/console.log" 2>/dev/null || true
if [ ! -f "$job/status" ]; then
  echo "test-kernel: the guest ended without a status (QEMU exit $qemu):"
  tail -30 "$job/qemu.log"
  exit 1
fi
status=$(cat "$job/status")
if [ -n "$out" ]; then
  mkdir -p "$out" && cp -a "$job/out/." "$out/"
  [ -n "$keep_disks" ] && mv "$job"/disk*.img "$out/"
fi
rm -f "$job"/disk*.img
echo "test-kernel: exit $status"
exit "$status"
