// Command featuregates prints, as JSON, every feature gate the pinned kube-scheduler registers,
// with its versioned specs and its dependencies, as kube-scheduler's own gate holds them: ksched's
// --feature-gates and --emulated-version read that file (src/features/feature_gates.json; `make
// feature-gates` writes it).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"

	"runtime/debug"

	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"

	// kube-scheduler's command registers the logging and metrics gates beside the kube ones.
	_ "k8s.io/kubernetes/cmd/kube-scheduler/app"
)

type spec struct {
	Version                 string `json:"version"`
	Default                 bool   `json:"default"`
	LockToDefault           bool   `json:"lockToDefault,omitempty"`
	PreRelease              string `json:"preRelease"`
	MinCompatibilityVersion string `json:"minCompatibilityVersion,omitempty"`
}

func main() {
	gate := utilfeature.DefaultMutableFeatureGate
	out := struct {
		Release      string              `json:"release"`
		Gates        map[string][]spec   `json:"gates"`
		Dependencies map[string][]string `json:"dependencies"`
	}{Gates: map[string][]spec{}, Dependencies: map[string][]string{}}
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, m := range info.Deps {
			if m.Path == "k8s.io/kubernetes" {
				out.Release = m.Version
			}
		}
	}
	for name, specs := range gate.GetAllVersioned() {
		for _, s := range specs {
			o := spec{Version: s.Version.String(), Default: s.Default, LockToDefault: s.LockToDefault,
				PreRelease: string(s.PreRelease)}
			if s.MinCompatibilityVersion != nil {
				o.MinCompatibilityVersion = s.MinCompatibilityVersion.String()
			}
			out.Gates[string(name)] = append(out.Gates[string(name)], o)
		}
	}
	if d, ok := gate.(interface {
		Dependencies() map[featuregate.Feature][]featuregate.Feature
	}); ok {
		for name, deps := range d.Dependencies() {
			var names []string
			for _, dep := range deps {
				names = append(names, string(dep))
			}
			if len(names) == 0 {
				continue
			}
			sort.Strings(names)
			out.Dependencies[string(name)] = names
		}
	}
	b, err := json.MarshalIndent(out, "", " ")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Stdout.Write(append(b, '\n'))
}
