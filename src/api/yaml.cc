#include "src/api/yaml.h"

#include <charconv>
#include <regex>
#include <set>
#include <string>

#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "yaml-cpp/yaml.h"

namespace ksched::api {
namespace {

bool IsOneOf(std::string_view s, std::initializer_list<std::string_view> options) {
  for (std::string_view o : options) {
    if (s == o) return true;
  }
  return false;
}

// A plain (unquoted) scalar as JSON: YAML 1.1 resolution, as go-yaml v2 does it.
std::string PlainScalarToJson(const std::string& s) {
  if (IsOneOf(s, {"", "~", "null", "Null", "NULL"})) return "null";
  if (IsOneOf(s, {"y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"})) {
    return "true";
  }
  if (IsOneOf(s, {"n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"})) {
    return "false";
  }
  static const std::regex kJsonNumber(R"(-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?)");
  if (std::regex_match(s, kJsonNumber)) return s;
  static const std::regex kInt(R"([-+]?[0-9]+)");
  static const std::regex kFloat(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
  const char* begin = s.data() + (s[0] == '+' ? 1 : 0);
  const char* end = s.data() + s.size();
  if (std::regex_match(s, kInt)) {
    int64_t v = 0;
    auto res = std::from_chars(begin, end, v);
    if (res.ec == std::errc() && res.ptr == end) return std::to_string(v);
  } else if (std::regex_match(s, kFloat)) {
    double d = std::strtod(std::string(begin, end).c_str(), nullptr);
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, d);
    return std::string(buf, res.ptr);
  }
  return nlohmann::json(s).dump();
}

void AppendJson(const YAML::Node& node, std::string* out) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      out->append("null");
      return;
    case YAML::NodeType::Scalar:
      if (node.Tag() == "?") {
        out->append(PlainScalarToJson(node.Scalar()));
      } else {
        out->append(nlohmann::json(node.Scalar()).dump());
      }
      return;
    case YAML::NodeType::Sequence: {
      out->push_back('[');
      bool first = true;
      for (const YAML::Node& item : node) {
        if (!first) out->push_back(',');
        first = false;
        AppendJson(item, out);
      }
      out->push_back(']');
      return;
    }
    case YAML::NodeType::Map: {
      out->push_back('{');
      bool first = true;
      std::set<std::string, std::less<>> keys;
      for (const auto& kv : node) {
        // A repeated key is an error, as in sigs.k8s.io/yaml's strict decoding.
        if (!keys.insert(kv.first.Scalar()).second) {
          throw YAML::ParserException(
              kv.first.Mark(),
              fmt::format("key {} already set in map", nlohmann::json(kv.first.Scalar()).dump()));
        }
        if (!first) out->push_back(',');
        first = false;
        out->append(nlohmann::json(kv.first.Scalar()).dump());
        out->push_back(':');
        AppendJson(kv.second, out);
      }
      out->push_back('}');
      return;
    }
  }
}

// Splits a stream at its "---" lines, as kubectl's YAML reader (apimachinery's NewYAMLReader)
// does. Each document is then loaded on its own: yaml-cpp 0.7's LoadAll can loop forever on some
// malformed streams (yaml-cpp PR #1319), and Load cannot.
std::vector<std::pair<std::string, int>> SplitDocuments(std::string_view yaml) {
  std::vector<std::pair<std::string, int>> docs(1, {std::string(), 0});  // text, first line
  int line = 0;
  while (!yaml.empty()) {
    size_t eol = yaml.find('\n');
    std::string_view l = yaml.substr(0, eol == std::string_view::npos ? yaml.size() : eol + 1);
    yaml.remove_prefix(l.size());
    std::string_view trimmed = l.substr(0, l.find_last_not_of(" \t\r\n") + 1);
    if (trimmed == "---" || l.starts_with("--- ")) {
      docs.emplace_back(l.starts_with("--- ") ? std::string(l.substr(4)) : std::string(), line);
    } else {
      docs.back().first.append(l);
    }
    ++line;
  }
  return docs;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> YamlToJson(std::string_view yaml) {
  std::vector<std::string> out;
  for (const auto& [text, first_line] : SplitDocuments(yaml)) {
    try {
      YAML::Node doc = YAML::Load(text);
      if (doc.IsNull()) continue;
      std::string json;
      AppendJson(doc, &json);
      out.push_back(std::move(json));
    } catch (const nlohmann::json::type_error& e) {  // A scalar that is not valid UTF-8.
      return absl::InvalidArgumentError(fmt::format("invalid YAML: {}", e.what()));
    } catch (const YAML::Exception& e) {
      return absl::InvalidArgumentError(fmt::format(
          "line {}, column {}: {}", first_line + e.mark.line + 1, e.mark.column + 1, e.msg));
    }
  }
  return out;
}

bool LooksLikeJson(std::string_view text) {
  size_t i = text.find_first_not_of(" \t\r\n");
  return i != std::string_view::npos && (text[i] == '{' || text[i] == '[');
}

namespace {

void EmitYaml(YAML::Emitter& out, const nlohmann::json& j) {
  if (j.is_object()) {
    if (j.empty()) {
      out << YAML::Flow << YAML::BeginMap << YAML::EndMap;
      return;
    }
    out << YAML::BeginMap;
    for (const auto& [key, value] : j.items()) {
      out << YAML::Key << key << YAML::Value;
      EmitYaml(out, value);
    }
    out << YAML::EndMap;
  } else if (j.is_array()) {
    if (j.empty()) {
      out << YAML::Flow << YAML::BeginSeq << YAML::EndSeq;
      return;
    }
    out << YAML::BeginSeq;
    for (const nlohmann::json& v : j) EmitYaml(out, v);
    out << YAML::EndSeq;
  } else if (j.is_string()) {
    // Quoted when the plain scalar would read back as something else ("10", "True", "null").
    const std::string& v = j.get_ref<const std::string&>();
    if (PlainScalarToJson(v) != j.dump()) out << YAML::DoubleQuoted;
    out << v;
  } else if (j.is_null()) {
    out << YAML::Null;
  } else {
    out << j.dump();  // Numbers and booleans as JSON writes them.
  }
}

}  // namespace

std::string JsonToYaml(const nlohmann::json& doc) {
  YAML::Emitter out;
  out.SetIndent(2);
  out.SetSeqFormat(YAML::Block);
  EmitYaml(out, doc);
  return std::string(out.c_str()) + "\n";
}

}  // namespace ksched::api
