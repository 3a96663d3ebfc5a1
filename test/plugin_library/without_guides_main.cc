// ksched_without_guides: ksched with only kube-scheduler's in-tree plugins, so that the guides'
// plugins can be loaded from libksched_guides.so under their own names, as a user's are.
#include "src/cli/app_internal.h"
#include "src/plugins/registry.h"

int main(int argc, char** argv) {
  return ksched::app::RunWithInTree(ksched::plugins::NewUpstreamRegistry(), argc, argv, {});
}
