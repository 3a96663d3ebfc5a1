#!/usr/bin/env bash
# Installs the Debian packages ksched builds and tests with, and only those that are missing.
# Idempotent: runs `apt-get update` only when something has to be installed.
set -euo pipefail

packages=(
  cmake ninja-build g++ make pkg-config ccache
  libsimdjson-dev libyaml-cpp-dev nlohmann-json3-dev libabsl-dev libtbb-dev
  libspdlog-dev libfmt-dev libcli11-dev libcurl4-openssl-dev libcpp-httplib-dev libssl-dev
  libmicrohttpd-dev libnghttp2-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-14-dev clang-format clang-tidy
  openssl curl iproute2  # scripts/cluster.sh: certificates, readiness, free ports
  gnuplot-nox            # the plots of the side-by-side bench
  protobuf-compiler libprotobuf-dev  # bench/decode_bench: protobuf against JSON
  chromium               # the test of `simulate --html`'s page, rendered headless
  podman                 # make image, and its test
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "install-deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
