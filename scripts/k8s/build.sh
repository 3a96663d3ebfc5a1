#!/usr/bin/env bash
# Builds the pinned control plane (kube-apiserver, etcd, kube-controller-manager, kube-scheduler,
# kubectl, kwok) and toxiproxy-server, the fault proxy of the chaos soak, from go.mod into
# $KSCHED_CACHE/k8s-<version>/bin and prints that directory. With a warm cache it does nothing.
# Needs Go (the version go.mod names, or a newer 1.x) and the module proxy. Every module is checked
# against the committed go.sum, so the checksum database is not needed.
set -euo pipefail
source "$(dirname "$0")/paths.sh"
cd "$k8s_module_dir"

go_wanted=$(awk '$1 == "go" { print $2 }' go.mod)
command -v go >/dev/null || {
  echo "build.sh: Go is not installed. The control plane is built from source and needs Go $go_wanted or newer: https://go.dev/dl" >&2
  exit 1
}
# -mod=readonly: a module missing from go.sum is an error, never a checksum-database lookup.
export GOTOOLCHAIN=local GOFLAGS=-mod=readonly

# The version ldflags of hack/lib/version.sh (buildDate is added below, from the release tag).
ldflags=(-s -w)
set_var() {
  ldflags+=("-X k8s.io/component-base/version.$1=$2" "-X k8s.io/client-go/pkg/version.$1=$2")
}
minor=${k8s_version#v1.}
set_var gitVersion "$k8s_version"
set_var gitMajor 1
set_var gitMinor "${minor%%.*}"
set_var gitTreeState clean

# The stamp names everything the binaries depend on; a cache with the same stamp is up to date.
stamp="$(cat go.mod go.sum <(echo "${ldflags[*]}") | sha256sum | cut -c1-16) $(go env GOVERSION)"
outputs=("${k8s_binaries[@]}" kwok-stages.yaml)
up_to_date() {
  [ "$(cat "$k8s_bin/.stamp" 2>/dev/null)" = "$stamp" ] || return 1
  for f in "${outputs[@]}"; do [ -e "$k8s_bin/$f" ] || return 1; done
}
mkdir -p "$k8s_bin"
exec 9>"$k8s_bin/.lock"
flock 9  # concurrent builds (two checkouts, two make runs) wait for each other
if up_to_date; then
  echo "$k8s_bin"
  exit 0
fi

# Dated from the release tag, so that two builds of one go.mod are the same.
set_var buildDate "$(go list -m -f '{{.Time.UTC.Format "2006-01-02T15:04:05Z"}}' k8s.io/kubernetes)"
echo "build.sh: building the control plane $k8s_version into $k8s_bin; a cold build takes about 10 minutes on 2 cores" >&2
out=$(mktemp -d "$k8s_bin/.build.XXXXXX")
trap 'rm -rf "$out"' EXIT
go build -trimpath -ldflags "${ldflags[*]}" -o "$out/" \
  k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
  k8s.io/kubernetes/cmd/kube-scheduler \
  k8s.io/kubernetes/cmd/kubectl go.etcd.io/etcd/server/v3 sigs.k8s.io/kwok/cmd/kwok
mv "$out/server" "$out/etcd"  # go names the binary of go.etcd.io/etcd/server/v3 "server"
go build -trimpath -ldflags "-s -w" -o "$out/toxiproxy-server" github.com/Shopify/toxiproxy/v2/cmd/server
# kwok's "fast" stages: a node that is not Ready becomes Ready, a bound pod Running, a deleted pod
# goes away, all at once. Nodes are not heartbeated: nothing here would mark them unhealthy.
stages=$(go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)/kustomize/stage
for f in node/fast/node-initialize pod/fast/pod-ready pod/fast/pod-complete pod/fast/pod-delete; do
  cat "$stages/$f.yaml"
  echo ---
done >"$out/kwok-stages.yaml"
for f in "${outputs[@]}"; do mv "$out/$f" "$k8s_bin/$f"; done
echo "$stamp" >"$k8s_bin/.stamp"
echo "$k8s_bin"
