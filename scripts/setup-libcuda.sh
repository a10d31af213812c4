#!/usr/bin/env bash
# Provides libcuda.so for *linking* cust on machines without the NVIDIA driver.
# Downloads Debian's non-free libcuda1 package with a sources list and package
# lists of our own (the system's apt configuration is not touched) and unpacks
# it into .libcuda/ with dpkg-deb -x; nothing is installed system-wide.
# At run time without a GPU, cuInit then reports "no device" and GPU tests skip.
# Prints the directory to use as CUDA_LIBRARY_PATH.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/.libcuda"
if [ -e "$dest/lib64/libcuda.so" ]; then echo "$dest"; exit 0; fi

work="$dest/apt"
mkdir -p "$work/lists/partial" "$work/archives/partial" "$dest/lib64"
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
# The Debian mirror the machine's own apt configuration names for its
# release (one-line or deb822 sources), with the non-free components that
# libcuda1 is in; deb.debian.org only if none is configured.
mirror=$({ cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null || true; } | awk -v suite="$codename" '
  /^deb / { for (i = 2; i <= NF; i++) if ($i !~ /^\[/) { if ($(i + 1) == suite) { print $i; exit } break } }
  /^URIs:/ { uri = $2 } /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == suite && uri != "") { print uri; exit } }
  /^$/ { uri = "" }')
echo "deb ${mirror:-http://deb.debian.org/debian} $codename main contrib non-free non-free-firmware" > "$work/sources.list"
apt_opts=(-o "Dir::Etc::SourceList=$work/sources.list" -o "Dir::Etc::SourceParts=/dev/null"
          -o "Dir::State::Lists=$work/lists" -o "Dir::Cache::Archives=$work/archives"
          -o "Dir::Cache::pkgcache=$work/pkgcache.bin" -o "Dir::Cache::srcpkgcache=$work/srcpkgcache.bin"
          -o "APT::Architecture=amd64")
apt-get "${apt_opts[@]}" -qq update >&2
(cd "$work" && apt-get "${apt_opts[@]}" -qq download libcuda1 >&2)
dpkg-deb -x "$work"/libcuda1_*.deb "$dest/unpacked"
lib=$(find "$dest/unpacked" -name 'libcuda.so.1' | head -n 1)
[ -n "$lib" ] || { echo "setup-libcuda: libcuda.so.1 not found in the libcuda1 package" >&2; exit 1; }
cp -L "$lib" "$dest/lib64/libcuda.so.1"
ln -sf libcuda.so.1 "$dest/lib64/libcuda.so"
rm -rf "$dest/unpacked" "$work/archives"
echo "$dest"
