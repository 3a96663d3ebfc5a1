#!/usr/bin/env bash
# Creates COUNT fake nodes in the cluster $KUBECONFIG points at, from scheduler_perf's node template:
# cpu 4, memory 32Gi, pods 110, condition Ready, with kubernetes.io/hostname and
# topology.kubernetes.io/zone labels. No kubelet runs: the API server keeps the status given on
# create, as it does when a kubelet registers its node.
#
#   scripts/fake-nodes.sh [-p PREFIX] [-s START] [-z ZONES] [-b BATCH] [-j JOBS] COUNT
#
# Nodes are PREFIX<i> for i in START..START+COUNT-1 (default node-0 ...), in zone-<i % ZONES>
# (default 3 zones). They go to kubectl as Lists of BATCH nodes (default 100, fewer when that
# leaves a job idle), JOBS kubectl processes at a time (default 8). 5000 nodes take about 8 s on
# 2 cores, where the API server's CPU is the limit. Exits non-zero if any node was not created.
set -euo pipefail

prefix=node- start=0 zones=3 batch= jobs=8
while getopts p:s:z:b:j: opt; do
  case $opt in
    p) prefix=$OPTARG ;;
    s) start=$OPTARG ;;
    z) zones=$OPTARG ;;
    b) batch=$OPTARG ;;
    j) jobs=$OPTARG ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || { echo "usage: fake-nodes.sh [-p PREFIX] [-s START] [-z ZONES] [-b BATCH] [-j JOBS] COUNT" >&2; exit 2; }
count=$1
per_job=$(((count + jobs - 1) / jobs))
batch=${batch:-$((per_job < 100 ? per_job : 100))}
source "$(dirname "$0")/k8s/paths.sh"
kubectl=$k8s_bin/kubectl  # the client of the control plane's release, if built
[ -x "$kubectl" ] || kubectl=kubectl

now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
node() {  # node NAME ZONE: one Node as JSON
  local resources='{"cpu": "4", "memory": "32Gi", "pods": "110"}'
  printf '{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "%s", "labels": {"kubernetes.io/hostname": "%s", "topology.kubernetes.io/zone": "%s"}, "annotations": {"kwok.x-k8s.io/node": "fake"}}, "status": {"capacity": %s, "allocatable": %s, "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady", "lastHeartbeatTime": "%s", "lastTransitionTime": "%s"}], "phase": "Running"}}' \
    "$1" "$1" "$2" "$resources" "$resources" "$now" "$now"
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for ((first = start; first < start + count; first += batch)); do
  {
    printf '{"apiVersion": "v1", "kind": "List", "items": ['
    for ((i = first; i < first + batch && i < start + count; i++)); do
      [ "$i" -eq "$first" ] || printf ','
      node "$prefix$i" "zone-$((i % zones))"
    done
    printf ']}\n'
  } >"$work/$first.json"
done
find "$work" -name '*.json' -print0 | xargs -0 -n 1 -P "$jobs" "$kubectl" create --validate=false -o name -f >/dev/null
