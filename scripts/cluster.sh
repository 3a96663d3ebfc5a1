#!/usr/bin/env bash
# A real control plane on loopback: etcd and kube-apiserver, built by scripts/k8s/build.sh.
#
#   scripts/cluster.sh up        starts one in a new temporary directory, waits for /readyz and prints
#                                the admin kubeconfig path (the directory is the kubeconfig's parent)
#   scripts/cluster.sh env [DIR] prints `export` lines for a shell: KSCHED_CLUSTER=DIR, KUBECONFIG,
#                                KSCHED_K8S_BIN (the built binaries) and PATH with that folder first
#   scripts/cluster.sh down [DIR] stops the processes `up` started, by pid, and removes DIR
#   scripts/cluster.sh restart-apiserver [DIR]
#                                kills kube-apiserver (-9) and starts it again, as it was; etcd keeps the data
#   scripts/cluster.sh restart-etcd [DIR]
#                                kills etcd (-9) and starts it again on its data; waits for the API server
#
# With KSCHED_CLUSTER_AUDIT=1, kube-apiserver writes an audit log, DIR/audit.log (JSON lines): every
# write of a binding or a Lease, with the Lease's body, for the chaos soak's invariant checker.
# With KSCHED_CLUSTER_KWOK=1, `up` also starts kwok, a fake kubelet that moves pods bound to the
# nodes of scripts/fake-nodes.sh to Running (and deleted ones away), as a benchmark needs; its
# stages are KSCHED_CLUSTER_KWOK_STAGES, or else those scripts/k8s/build.sh wrote.
# With KSCHED_CLUSTER_KCM=1, `up` also starts kube-controller-manager with its default controllers
# (the PV binder, namespaces, service accounts, garbage collection, disruption, ReplicaSets,
# ephemeral volumes, ...), as a real cluster runs them, and KSCHED_CLUSTER_KCM_FLAGS after its own.
# KSCHED_CLUSTER_APISERVER_FLAGS go to kube-apiserver after its own (--feature-gates=...).
#
# DIR is the directory `up` made, or the kubeconfig in it; it defaults to $KSCHED_CLUSTER. Several
# control planes can run at once: each has its own directory and free ports. With
# KSCHED_CLUSTER_OWNER=PID, `up` also starts a watcher that runs `down` once that process is gone,
# so a test binary that crashes leaves nothing running.
set -euo pipefail
source "$(dirname "$0")/k8s/paths.sh"
script=$(cd "$(dirname "$0")" && pwd)/cluster.sh

die() { echo "cluster.sh: $*" >&2; exit 1; }

# Prints a TCP port nobody listens on, from 20000-32767 (below Linux's ephemeral range).
free_port() {
  local port
  for port in $(shuf -i 20000-32767 -n 50); do
    [[ " ${taken[*]-} " == *" $port "* ]] && continue
    if [ -z "$(ss -Htln "sport = :$port")" ]; then taken+=("$port"); echo "$port"; return; fi
  done
  die "no free port found"
}

# Writes a CA and a serving certificate for 127.0.0.1, the service-account key pair and the token.
make_pki() {
  local pki=$1
  mkdir -p "$pki"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 \
    -subj /CN=ksched-ca -keyout "$pki/ca.key" -out "$pki/ca.crt" 2>/dev/null
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 \
    -subj /CN=kube-apiserver -CA "$pki/ca.crt" -CAkey "$pki/ca.key" \
    -addext basicConstraints=critical,CA:FALSE -addext "subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes.default.svc" \
    -keyout "$pki/apiserver.key" -out "$pki/apiserver.crt" 2>/dev/null
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:prime256v1 -out "$pki/sa.key"
  openssl pkey -in "$pki/sa.key" -pubout -out "$pki/sa.pub"
  echo "$(openssl rand -hex 16),admin,admin,system:masters" >"$pki/tokens.csv"
}

write_kubeconfig() {
  local dir=$1 port=$2 token
  token=$(cut -d, -f1 "$dir/pki/tokens.csv")
  cat >"$dir/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: ksched
  cluster: {server: "https://127.0.0.1:$port", certificate-authority: "$dir/pki/ca.crt"}
users:
- name: admin
  user: {token: "$token"}
contexts:
- name: ksched
  context: {cluster: ksched, user: admin}
current-context: ksched
EOF
}

# Starts a detached process logging to DIR/NAME.log and records its pid in DIR/NAME.pid.
start() {
  local dir=$1 name=$2
  shift 2
  setsid "$@" </dev/null >"$dir/$name.log" 2>&1 &
  echo $! >"$dir/$name.pid"
}

# Waits until /readyz passes and the system namespaces controller has made the default namespace.
wait_ready() {
  local dir=$1 port=$2 started=$3 token
  token=$(cut -d, -f1 "$dir/pki/tokens.csv")
  until curl -sf --cacert "$dir/pki/ca.crt" -H "Authorization: Bearer $token" \
      "https://127.0.0.1:$port/readyz" -o /dev/null &&
    curl -sf --cacert "$dir/pki/ca.crt" -H "Authorization: Bearer $token" \
      "https://127.0.0.1:$port/api/v1/namespaces/default" -o /dev/null; do
    for name in etcd kube-apiserver; do
      kill -0 "$(cat "$dir/$name.pid")" 2>/dev/null || { echo "cluster.sh: $name exited" >&2; false; }
    done
    [ $((SECONDS - started)) -lt "${KSCHED_CLUSTER_TIMEOUT:-90}" ] || { echo "cluster.sh: not ready in time" >&2; false; }
    sleep 0.5
  done
}

up() {
  for b in etcd kube-apiserver; do
    [ -x "$k8s_bin/$b" ] && continue
    command -v go >/dev/null || die "$k8s_bin/$b is missing, and Go, which builds it, is not installed (https://go.dev/dl)"
    die "$k8s_bin/$b is missing: build the control plane with 'make k8s' (scripts/k8s/build.sh)"
  done
  local etcd_port api_port started=$SECONDS
  dir=$(mktemp -d "${TMPDIR:-/tmp}/ksched-cluster.XXXXXX")  # global: the EXIT trap needs it
  touch "$dir/.ksched-cluster"  # marks the directory as one `down` may remove
  # On any failure from here on: show the logs, stop what was started, remove the directory.
  trap 'tail -n 30 "$dir"/*.log >&2 2>/dev/null; "$script" down "$dir" || true' EXIT
  taken=()
  etcd_port=$(free_port)
  api_port=$(free_port)
  make_pki "$dir/pki"
  write_kubeconfig "$dir" "$api_port"

  local audit=()
  if [ "${KSCHED_CLUSTER_AUDIT:-0}" = 1 ]; then
    cat >"$dir/audit-policy.yaml" <<EOF
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Request
  verbs: [create, update, patch]
  resources: [{group: coordination.k8s.io, resources: [leases]}]
- level: Metadata
  verbs: [create]
  resources: [{group: "", resources: [bindings, pods/binding]}]
- level: None
EOF
    audit=(--audit-policy-file "$dir/audit-policy.yaml" --audit-log-path "$dir/audit.log" --audit-log-maxsize 0)
  fi
  start "$dir" etcd "$k8s_bin/etcd" --data-dir "$dir/etcd" --log-level warn \
    --listen-client-urls "http://127.0.0.1:$etcd_port" --advertise-client-urls "http://127.0.0.1:$etcd_port" \
    --listen-peer-urls http://127.0.0.1:0 --unsafe-no-fsync
  # The admission plugins that need kube-controller-manager are off; Priority stays on. Since 1.37
  # the endpoint reconciler refuses a loopback address: nothing here needs the kubernetes Service's
  # endpoints.
  start "$dir" kube-apiserver "$k8s_bin/kube-apiserver" \
    --etcd-servers "http://127.0.0.1:$etcd_port" \
    --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$api_port" \
    --endpoint-reconciler-type none \
    --tls-cert-file "$dir/pki/apiserver.crt" --tls-private-key-file "$dir/pki/apiserver.key" \
    --client-ca-file "$dir/pki/ca.crt" --token-auth-file "$dir/pki/tokens.csv" \
    --authorization-mode RBAC --allow-privileged \
    --service-account-issuer https://kubernetes.default.svc \
    --service-account-key-file "$dir/pki/sa.pub" --service-account-signing-key-file "$dir/pki/sa.key" \
    --service-cluster-ip-range 10.96.0.0/16 \
    --disable-admission-plugins ServiceAccount,TaintNodesByCondition "${audit[@]}" \
    ${KSCHED_CLUSTER_APISERVER_FLAGS:-}
  if [ "${KSCHED_CLUSTER_KWOK:-0}" = 1 ]; then
    start "$dir" kwok "$k8s_bin/kwok" --kubeconfig "$dir/kubeconfig" \
      --config "${KSCHED_CLUSTER_KWOK_STAGES:-$k8s_bin/kwok-stages.yaml}" --manage-all-nodes=false \
      --manage-nodes-with-annotation-selector kwok.x-k8s.io/node=fake
  fi
  if [ "${KSCHED_CLUSTER_KCM:-0}" = 1 ]; then
    start "$dir" kube-controller-manager "$k8s_bin/kube-controller-manager" \
      --kubeconfig "$dir/kubeconfig" --leader-elect=false --secure-port 0 \
      --service-account-private-key-file "$dir/pki/sa.key" --root-ca-file "$dir/pki/ca.crt" \
      ${KSCHED_CLUSTER_KCM_FLAGS:-}
  fi
  if [ -n "${KSCHED_CLUSTER_OWNER:-}" ]; then
    start "$dir" owner-watch bash -c \
      "while kill -0 $KSCHED_CLUSTER_OWNER 2>/dev/null && [ -d '$dir' ]; do sleep 1; done; '$script' down '$dir'"
  fi

  wait_ready "$dir" "$api_port" "$started"
  trap - EXIT
  echo "cluster.sh: ready in $((SECONDS - started))s at https://127.0.0.1:$api_port; stop it with: $script down $dir" >&2
  echo "$dir/kubeconfig"
}

cluster_dir() {
  local dir=${1:-${KSCHED_CLUSTER:-}}
  [ -n "$dir" ] || die "which cluster? pass the directory 'up' made, or set KSCHED_CLUSTER"
  [ -f "$dir" ] && dir=$(dirname "$dir")
  [ -f "$dir/.ksched-cluster" ] || die "$dir is not a cluster directory made by 'up'"
  cd "$dir" && pwd
}

# Stops each recorded process if it is still the one `up` started (its command line names DIR).
down() {
  local dir pid pidfile
  dir=$(cluster_dir "${1:-}")
  for pidfile in "$dir"/{owner-watch,kube-controller-manager,kwok,kube-apiserver,etcd}.pid; do
    [ -f "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    grep -qF "$dir" "/proc/$pid/cmdline" 2>/dev/null || continue
    # The owner watcher runs `down` itself, as its child or, once bash execs it, as itself.
    [ "$pid" = "$$" ] || [ "$pid" = "$PPID" ] && continue
    kill "$pid"
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
  done
  rm -rf "$dir"
}

# restart NAME [DIR]: kills NAME (-9), as a crash would (a graceful stop of kube-apiserver waits up
# to a minute for open requests), and starts it again with the same flags, then waits until the
# API server is ready. etcd keeps the data. A test of what clients do when either goes away.
restart() {
  local name=$1 dir pid args port
  dir=$(cluster_dir "${2:-}")
  pid=$(cat "$dir/$name.pid")
  mapfile -d '' args <"/proc/$pid/cmdline"
  kill -KILL "$pid"
  while kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
  mv "$dir/$name.log" "$dir/$name.log.1"
  start "$dir" "$name" "${args[@]}"
  port=$(grep -o 'https://127.0.0.1:[0-9]*' "$dir/kubeconfig" | cut -d: -f3)
  wait_ready "$dir" "$port" "$SECONDS"
}

env_of() {
  local dir
  dir=$(cluster_dir "${1:-}")
  echo "export KSCHED_CLUSTER=$dir"
  echo "export KUBECONFIG=$dir/kubeconfig"
  echo "export KSCHED_K8S_BIN=$k8s_bin"
  echo "export PATH=$k8s_bin:\$PATH"
}

case "${1:-}" in
  up) up ;;
  down) down "${2:-}" ;;
  env) env_of "${2:-}" ;;
  restart-apiserver) restart kube-apiserver "${2:-}" ;;
  restart-etcd) restart etcd "${2:-}" ;;
  *) die "usage: cluster.sh up | env [DIR] | down [DIR] | restart-apiserver [DIR] | restart-etcd [DIR]" ;;
esac
