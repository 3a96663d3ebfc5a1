#!/usr/bin/env bash
# Builds scheduler-plugins' kube-scheduler (kube-scheduler with Coscheduling and the other
# out-of-tree plugins compiled in) into $KSCHED_CACHE/scheduler-plugins-<version>/kube-scheduler and
# prints its path; with a warm cache it does nothing. The Coscheduling comparison test runs it
# beside ksched. Its go.mod has replace directives, so `go install ...@version` cannot build it: the
# module is downloaded and built as the main module. v0.33.5 is the newest release whose every
# module the proxy serves (v0.34.7's k8s.io/csi-translation-lib and v0.35.7 answer 403).
set -euo pipefail
source "$(dirname "$0")/../k8s/paths.sh"
version=$sp_version
dir=$(dirname "$sp_bin")
export GOTOOLCHAIN=local
stamp="$version $(go env GOVERSION)"
mkdir -p "$dir"
exec 9>"$dir/.lock"
flock 9
if [ "$(cat "$dir/.stamp" 2>/dev/null)" != "$stamp" ] || [ ! -x "$dir/kube-scheduler" ]; then
  echo "build.sh: building scheduler-plugins $version into $dir; a cold build takes about 4 minutes on 2 cores" >&2
  src=$(cd "$dir" && go mod download -json "sigs.k8s.io/scheduler-plugins@$version" |
    sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  rm -rf "$dir/src" && cp -r "$src" "$dir/src" && chmod -R u+w "$dir/src"
  (cd "$dir/src" && GOFLAGS=-mod=mod go build -trimpath -ldflags "-s -w" -o "$dir/kube-scheduler.new" ./cmd/scheduler)
  mv "$dir/kube-scheduler.new" "$dir/kube-scheduler"
  rm -rf "$dir/src"
  echo "$stamp" >"$dir/.stamp"
fi
echo "$dir/kube-scheduler"
