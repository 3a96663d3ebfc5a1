#!/usr/bin/env bash
# Generates C++ (protoc, from Debian) for the pinned k8s.io/api's core/v1 protobuf schema and the
# apimachinery schemas it imports, into $1: the types kube-scheduler's protobuf client decodes.
# The modules are go.mod's, checked against go.sum. For bench/decode_bench.
set -euo pipefail
source "$(dirname "$0")/paths.sh"
out=$(mkdir -p "$1" && cd "$1" && pwd)
cd "$k8s_module_dir"
export GOTOOLCHAIN=local GOFLAGS=-mod=readonly
go mod download k8s.io/api k8s.io/apimachinery
mkdir -p "$out/proto/k8s.io"
for m in api apimachinery; do
  ln -sfn "$(go list -m -f '{{.Dir}}' "k8s.io/$m")" "$out/proto/k8s.io/$m"
done
protoc -I "$out/proto" --cpp_out="$out" k8s.io/api/core/v1/generated.proto \
  k8s.io/apimachinery/pkg/{api/resource,apis/meta/v1,runtime,runtime/schema,util/intstr}/generated.proto
