#!/usr/bin/env bash
# Builds upstream's [sig-scheduling] e2e tests (e2e/e2e_test.go: k8s.io/kubernetes/test/e2e/scheduling
# of the pinned release, in a suite of their own) into $KSCHED_CACHE/k8s-<version>/bin/e2e.test and
# prints its path. With a warm cache it does nothing. Needs what build.sh needs.
set -euo pipefail
source "$(dirname "$0")/paths.sh"
cd "$k8s_module_dir"
export GOTOOLCHAIN=local GOFLAGS=-mod=readonly

stamp="$(cat go.mod go.sum e2e/*.go | sha256sum | cut -c1-16) $(go env GOVERSION)"
mkdir -p "$k8s_bin"
exec 9>"$k8s_bin/.e2e-lock"
flock 9
if [ "$(cat "$k8s_bin/.e2e-stamp" 2>/dev/null)" = "$stamp" ] && [ -x "$k8s_bin/e2e.test" ]; then
  echo "$k8s_bin/e2e.test"
  exit 0
fi
echo "build-e2e.sh: building the e2e tests of $k8s_version into $k8s_bin; a cold build takes about 5 minutes on 2 cores" >&2
# -vet=off: vet's checks of upstream's code take several times as long as the build.
go test -c -vet=off -trimpath -ldflags "-s -w" -o "$k8s_bin/.e2e.test.new" ./e2e
mv "$k8s_bin/.e2e.test.new" "$k8s_bin/e2e.test"
echo "$stamp" >"$k8s_bin/.e2e-stamp"
echo "$k8s_bin/e2e.test"
