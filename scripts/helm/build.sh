#!/usr/bin/env bash
# Builds helm, pinned by this folder's go.mod, into $KSCHED_CACHE/helm-<version>/helm and prints
# its path; with a warm cache it does nothing. `make test` renders deploy/helm/ksched with it.
set -euo pipefail
source "$(dirname "$0")/../k8s/paths.sh"
cd "$(dirname "$0")"
export GOTOOLCHAIN=local GOFLAGS=-mod=readonly
version=$(grep -Eo 'helm.sh/helm/v4 v[0-9.]+' go.mod | cut -d' ' -f2)
dir=$k8s_cache/helm-$version
stamp="$(cat go.mod go.sum | sha256sum | cut -c1-16) $(go env GOVERSION)"
mkdir -p "$dir"
exec 9>"$dir/.lock"
flock 9
if [ "$(cat "$dir/.stamp" 2>/dev/null)" != "$stamp" ] || [ ! -x "$dir/helm" ]; then
  echo "build.sh: building helm $version into $dir; a cold build takes about 2 minutes on 2 cores" >&2
  go build -trimpath -ldflags "-s -w -X helm.sh/helm/v4/internal/version.version=$version" \
    -o "$dir/helm.new" helm.sh/helm/v4/cmd/helm
  mv "$dir/helm.new" "$dir/helm"
  echo "$stamp" >"$dir/.stamp"
fi
echo "$dir/helm"
