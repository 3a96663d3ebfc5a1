#!/usr/bin/env bash
# Builds Abseil and oneTBB from Debian's own source packages (the versions installed) with
# ThreadSanitizer into $KSCHED_CACHE/tsan and prints that prefix. TSan sees the happens-before of
# a lock or a task only in instrumented code, and Debian's libabsl and libtbb are not instrumented:
# without this, every absl::Mutex and every parallel_for would be reported as a race.
# With a warm cache it does nothing.
set -euo pipefail

cache="${KSCHED_CACHE:-$HOME/.cache/ksched}"
prefix="$cache/tsan"
[ -f "$prefix/.done" ] && { echo "$prefix"; exit 0; }

work="$cache/tsan-src"
rm -rf "$work" && mkdir -p "$work/lists/partial" "$work/parts"
# A private deb-src list, so the machine's apt sources stay as they are.
cat >"$work/parts/src.sources" <<SRC
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
apt_src=(-o Dir::Etc::SourceParts="$work/parts" -o Dir::Etc::SourceList=/dev/null
  -o Dir::State::Lists="$work/lists")
cd "$work"
apt-get "${apt_src[@]}" update -qq >&2
version() { dpkg-query -W -f='${Version}' "$1"; }
apt-get "${apt_src[@]}" source -qq "abseil=$(version libabsl-dev)" "onetbb=$(version libtbb-dev)" >&2

flags="-fsanitize=thread -g -O1"
# Abseil as Debian configures it (C++17, its options.h patched by Debian), static.
cmake -S abseil-*/ -B build-absl -G Ninja -DCMAKE_CXX_STANDARD=17 -DBUILD_SHARED_LIBS=OFF \
  -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_INSTALL_PREFIX="$prefix" >&2
ninja -C build-absl install >&2
cmake -S onetbb-*/ -B build-tbb -G Ninja -DTBB_TEST=OFF -DTBB_SANITIZE=thread -DTBB_STRICT=OFF \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_INSTALL_PREFIX="$prefix" >&2
ninja -C build-tbb install >&2
touch "$prefix/.done"
echo "$prefix"
