#!/usr/bin/env bash
# `make image`: ksched's image, from what `make build` built and Debian's packages, without a
# registry. The root is gathered into BUILD/image-root: the ksched binary, DRA's CEL library
# (when built), the plugin libraries of contrib/ (Coscheduling's, in /usr/local/lib/ksched/plugins),
# the Debian 12 libraries they load (also those opened at run time: libcurl,
# libmicrohttpd, libgnutls) with the dynamic loader, the CA bundle of ca-certificates, and a
# passwd naming user 65532; nothing else, so no shell and no package manager. Containerfile puts it
# on an empty image. The packages the libraries came from are listed in the image, in
# /usr/share/doc/ksched/debian-packages.txt.
#   scripts/image.sh BUILD_DIR IMAGE      (podman or docker, whichever is installed)
set -euo pipefail
build=$1 image=$2
root=$build/image-root
rm -rf "$root"
mkdir -p "$root/usr/local/bin" "$root/usr/local/lib" "$root/etc/ssl/certs" "$root/tmp" \
  "$root/usr/share/doc/ksched"
strip --strip-debug -o "$root/usr/local/bin/ksched" "$build/ksched"
objects=("$build/ksched")
if [ -e "$build/libksched_cel.so" ]; then
  cp "$build/libksched_cel.so" "$root/usr/local/lib/"
  objects+=("$build/libksched_cel.so")
fi
if [ -e "$build/libksched_coscheduling.so" ]; then
  mkdir -p "$root/usr/local/lib/ksched/plugins"
  strip --strip-debug -o "$root/usr/local/lib/ksched/plugins/libksched_coscheduling.so" \
    "$build/libksched_coscheduling.so"
  objects+=("$build/libksched_coscheduling.so")
fi
for soname in libcurl.so.4 libmicrohttpd.so.12 libgnutls.so.30; do
  objects+=("$(ldconfig -p | awk -v s="$soname" '$1 == s && /x86-64|x86_64|AArch64/ { print $NF; exit }')")
done
libs=$(for o in "${objects[@]}"; do ldd "$o" | awk '$3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'; done |
  sort -u)
libs=$(printf '%s\n' $libs "${objects[@]:1}" | grep -v "^$build" | sort -u)
for l in $libs; do cp -L --parents "$l" "$root"; done
cp -L /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/"
printf 'root:x:0:0:root:/:/nonexistent\nnonroot:x:65532:65532:nonroot:/:/nonexistent\n' >"$root/etc/passwd"
printf 'root:x:0:\nnonroot:x:65532:\n' >"$root/etc/group"
chmod 1777 "$root/tmp"
{ echo ca-certificates; for l in $libs; do dpkg -S "$(readlink -f "$l")" 2>/dev/null || dpkg -S "$l"; done |
  cut -d: -f1; } | sort -u | xargs dpkg-query -W -f='${Package} ${Version}\n' >"$root/usr/share/doc/ksched/debian-packages.txt"

if command -v podman >/dev/null; then
  engine=(podman)
  podman info >/dev/null 2>&1 || engine+=(--storage-driver=vfs)  # no overlay mounts here
elif command -v docker >/dev/null; then
  engine=(docker)
else
  echo "image.sh: needs podman or docker" >&2
  exit 1
fi
old=$("${engine[@]}" image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)
"${engine[@]}" build -f "$(dirname "$0")/../Containerfile" -t "$image" "$root"
# The image this tag named before is left with no name: removed, so that builds do not pile up.
new=$("${engine[@]}" image inspect --format '{{.Id}}' "$image")
if [ -n "$old" ] && [ "$old" != "$new" ]; then "${engine[@]}" rmi "$old" >/dev/null 2>&1 || true; fi
