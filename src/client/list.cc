#include "src/client/list.h"

#include <cctype>
#include <optional>

#include "fmt/format.h"

namespace ksched::client {

std::string Escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') {
      out += c;
    } else {
      out += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    }
  }
  return out;
}

namespace {

// Finds where the JSON values of a text begin and end without parsing them: it follows strings
// (and their escapes) and the nesting of objects and arrays, and checks nothing else; each item
// is then parsed, and checked, on its own. Hand-written: simdjson 3.0 parses a whole document (its
// on-demand walk first indexes the whole text's structure, an index as large as the text) or a
// stream of documents that blanks separate, not the elements of one array.
class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  // Skips blanks, then takes `c` if it comes next.
  bool Take(char c) {
    SkipBlanks();
    if (at_ == text_.size() || text_[at_] != c) return false;
    ++at_;
    return true;
  }
  // The string that comes next, between its quotes, as written.
  std::optional<std::string_view> String() {
    if (!Take('"')) return std::nullopt;
    const size_t begin = at_;
    if (!SkipString()) return std::nullopt;
    return text_.substr(begin, at_ - 1 - begin);
  }
  // The value that comes next: an object, an array, a string or a scalar.
  std::optional<std::string_view> Value() {
    SkipBlanks();
    const size_t begin = at_;
    if (at_ == text_.size()) return std::nullopt;
    if (text_[at_] == '"') {
      ++at_;
      if (!SkipString()) return std::nullopt;
      return text_.substr(begin, at_ - begin);
    }
    if (text_[at_] == '{' || text_[at_] == '[') {
      int depth = 0;
      while (at_ < text_.size()) {
        const char c = text_[at_++];
        if (c == '"') {
          if (!SkipString()) return std::nullopt;
        } else if (c == '{' || c == '[') {
          ++depth;
        } else if ((c == '}' || c == ']') && --depth == 0) {
          return text_.substr(begin, at_ - begin);
        }
      }
      return std::nullopt;
    }
    while (at_ < text_.size() && !IsBlank(text_[at_]) && text_[at_] != ',' && text_[at_] != '}' &&
           text_[at_] != ']') {
      ++at_;
    }
    if (at_ == begin) return std::nullopt;
    return text_.substr(begin, at_ - begin);
  }
  size_t at() const { return at_; }

 private:
  static bool IsBlank(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }
  void SkipBlanks() {
    while (at_ < text_.size() && IsBlank(text_[at_])) ++at_;
  }
  // Past the closing quote of the string whose opening quote was just taken.
  bool SkipString() {
    while (at_ < text_.size()) {
      const char c = text_[at_++];
      if (c == '\\') {
        ++at_;
      } else if (c == '"') {
        return true;
      }
    }
    return false;
  }

  std::string_view text_;
  size_t at_ = 0;
};

}  // namespace

absl::StatusOr<std::string> ForEachListItem(std::string_view text,
                                            simdjson::dom::parser& item_parser,
                                            const std::function<void(simdjson::dom::element)>& fn) {
  Scanner scan(text);
  auto malformed = [&] {
    return absl::DataLossError(
        fmt::format("the list is no JSON object of items (at byte {})", scan.at()));
  };
  auto failed = [](simdjson::error_code err) {
    return absl::DataLossError(simdjson::error_message(err));
  };
  if (!scan.Take('{')) return malformed();
  std::string version;
  bool has_items = false;
  if (!scan.Take('}')) {
    do {
      std::optional<std::string_view> raw_key = scan.String();
      if (!raw_key || !scan.Take(':')) return malformed();
      std::string_view key = *raw_key;
      std::string unescaped;  // A key written with escapes (never by an API server), as it reads.
      if (key.find('\\') != std::string_view::npos) {
        simdjson::dom::element k;
        std::string_view value;
        unescaped = "\"" + std::string(key) + "\"";
        if (item_parser.parse(unescaped).get(k) != simdjson::SUCCESS ||
            k.get_string().get(value) != simdjson::SUCCESS) {
          return malformed();
        }
        unescaped = std::string(value);
        key = unescaped;
      }
      if (key != "items") {
        std::optional<std::string_view> value = scan.Value();
        if (!value) return malformed();
        simdjson::dom::element meta;
        std::string_view rv;
        if (key == "metadata" &&
            item_parser.parse(value->data(), value->size()).get(meta) == simdjson::SUCCESS &&
            meta["resourceVersion"].get_string().get(rv) == simdjson::SUCCESS) {
          version = std::string(rv);
        }
        continue;
      }
      if (!scan.Take('[')) return malformed();
      has_items = true;
      if (scan.Take(']')) continue;
      do {
        std::optional<std::string_view> item = scan.Value();
        if (!item) return malformed();
        simdjson::dom::element e;
        if (auto err = item_parser.parse(item->data(), item->size()).get(e); err) {
          return failed(err);
        }
        if (!e.is_object()) return malformed();
        fn(e);
      } while (scan.Take(','));
      if (!scan.Take(']')) return malformed();
    } while (scan.Take(','));
    if (!scan.Take('}')) return malformed();
  }
  if (!has_items) return absl::DataLossError("the list has no items");
  return version;
}

}  // namespace ksched::client
