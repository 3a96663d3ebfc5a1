// ksched-guides: ksched with the guides' four plugins compiled in, through the app API, as your own
// scheduler would have yours (ksched/app.h). Everything else is ksched's own command line.
#include "contrib/guides/guides.h"
#include "ksched/app.h"

int main(int argc, char** argv) {
  return ksched::app::Run(argc, argv, {ksched::guides::RegisterGuidePlugins});
}
