//go:build tools

// Package tools pins helm, which `make test` uses to render deploy/helm/ksched and check it
// against the kustomize base (build.sh builds it).
package tools

import _ "helm.sh/helm/v4/cmd/helm"
