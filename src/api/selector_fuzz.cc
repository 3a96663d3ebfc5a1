// Fuzzes the selector decoder and matcher: decoding a NodeSelector or LabelSelector from arbitrary
// JSON never crashes, and a selector that decodes is evaluated against fixed labels without error.
#include <cstddef>
#include <cstdint>

#include "ksched/api/selectors.h"
#include "src/api/decode.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ksched::api;
  simdjson::dom::parser parser;
  simdjson::dom::element e;
  if (parser.parse(reinterpret_cast<const char*>(data), size).get(e)) return 0;
  Node node;
  node.metadata.name = "node-1";
  node.metadata.labels = {{"app", "web"}, {"cores", "8"}, {"zone", "a"}};
  NodeSelector ns;
  if (DecodeNodeSelector(e, &ns).ok()) (void)Matches(ns, node);
  LabelSelector ls;
  if (DecodeLabelSelector(e, &ls).ok()) (void)Matches(ls, node.metadata.labels);
  return 0;
}
