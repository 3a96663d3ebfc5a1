// Upstream's [sig-scheduling] e2e tests (k8s.io/kubernetes/test/e2e/scheduling), and its DRA tests
// (k8s.io/kubernetes/test/e2e/dra, of which `make e2e` runs those of the control plane: the rig's
// nodes have no kubelet), in a suite of their own: upstream's test/e2e/e2e_test.go, with only those
// tests, the framework's reconfiguration and the manifests the DRA test driver deploys.
package e2e

import (
	"flag"
	"os"
	"testing"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"k8s.io/kubernetes/test/e2e/framework"
	"k8s.io/kubernetes/test/e2e/framework/config"
	"k8s.io/kubernetes/test/e2e/framework/testfiles"
	e2etestingmanifests "k8s.io/kubernetes/test/e2e/testing-manifests"

	_ "k8s.io/kubernetes/test/e2e/dra"
	_ "k8s.io/kubernetes/test/e2e/feature"
	_ "k8s.io/kubernetes/test/e2e/framework/debug/init"
	_ "k8s.io/kubernetes/test/e2e/framework/metrics/init"
	_ "k8s.io/kubernetes/test/e2e/framework/node/init"
	_ "k8s.io/kubernetes/test/e2e/scheduling"
	_ "k8s.io/kubernetes/test/utils/ktesting/format"
)

func TestMain(m *testing.M) {
	config.CopyFlags(config.Flags, flag.CommandLine)
	framework.RegisterCommonFlags(flag.CommandLine)
	framework.RegisterClusterFlags(flag.CommandLine)
	flag.Parse()
	framework.AfterReadingAllFlags(&framework.TestContext)
	// The DRA test driver's manifests, compiled in as upstream's suite has them.
	testfiles.AddFileSource(e2etestingmanifests.GetE2ETestingManifestsFS())
	os.Exit(m.Run())
}

func TestE2E(t *testing.T) {
	gomega.RegisterFailHandler(framework.Fail)
	ginkgo.RunSpecs(t, "ksched: upstream's [sig-scheduling] and DRA e2e tests")
}
