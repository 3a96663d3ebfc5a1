// The first JSON value of an extender's answer, as Go's json.Decoder reads it: where it ends (what
// follows it is not read), or the syntax error in Go's words, which kube-scheduler's pods then
// show ("invalid character 'n' looking for beginning of object key string", "unexpected EOF").
// Hand-written: the JSON libraries (simdjson, nlohmann) word their errors their own ways.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ksched::extender {

struct GoJsonScan {
  std::string error;  // Empty when the first value is whole.
  size_t end = 0;     // Where the first value ends.
};

GoJsonScan ScanFirstJsonValue(std::string_view text);

}  // namespace ksched::extender
