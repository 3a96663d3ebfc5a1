// The whole ksched command line (run, simulate, config print, every flag), plus OnlyLabeled.
#include "ksched/app.h"
#include "only_labeled.h"

int main(int argc, char** argv) {
  return ksched::app::Run(
      argc, argv,
      {ksched::app::WithPlugin(ksched::MakePluginSpec("OnlyLabeled", ParseArgs, ArgsToJson, New))});
}
