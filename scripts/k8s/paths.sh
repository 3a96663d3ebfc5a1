# Sourced by the control-plane scripts: where the binaries built from this folder's go.mod live.
# KSCHED_CACHE overrides the cache root (default ~/.cache/ksched); KSCHED_K8S_BIN overrides the
# bin directory itself, for binaries built some other way.
k8s_module_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
k8s_version=$(awk '$1 == "k8s.io/kubernetes" { print $2 }' "$k8s_module_dir/go.mod")
k8s_cache=${KSCHED_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ksched}
k8s_bin=${KSCHED_K8S_BIN:-$k8s_cache/k8s-$k8s_version/bin}
# scheduler-plugins' kube-scheduler (scripts/scheduler-plugins/build.sh), for the Coscheduling
# comparisons.
sp_version=v0.33.5
sp_bin=$k8s_cache/scheduler-plugins-$sp_version/kube-scheduler
k8s_binaries=(kube-apiserver etcd kube-controller-manager kube-scheduler kubectl kwok toxiproxy-server)
