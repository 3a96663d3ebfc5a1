#include "src/extender/go_json.h"

#include <cctype>

#include "fmt/format.h"

namespace ksched::extender {
namespace {

// Go's quoteChar: the byte as strconv.Quote shows it (as the rune of its value), in single quotes.
std::string QuoteChar(unsigned char c) {
  switch (c) {
    case '\'':
      return R"('\'')";
    case '"':
      return "'\"'";
    case '\\':
      return R"('\\')";
    case '\a':
      return R"('\a')";
    case '\b':
      return R"('\b')";
    case '\f':
      return R"('\f')";
    case '\n':
      return R"('\n')";
    case '\r':
      return R"('\r')";
    case '\t':
      return R"('\t')";
    case '\v':
      return R"('\v')";
    default:
      break;
  }
  if (c < 0x20 || c == 0x7f) return fmt::format("'\\x{:02x}'", c);
  if (c >= 0x80 && (c <= 0xa0 || c == 0xad)) return fmt::format("'\\u{:04x}'", c);
  if (c >= 0x80) {  // Printable Latin-1, in UTF-8.
    return fmt::format("'{}{}'", static_cast<char>(0xc0 | (c >> 6)),
                       static_cast<char>(0x80 | (c & 0x3f)));
  }
  return fmt::format("'{}'", static_cast<char>(c));
}

struct UnexpectedEof {};
struct SyntaxError {
  std::string message;
};

class Scanner {
 public:
  explicit Scanner(std::string_view text) : s_(text) {}

  size_t Value() {
    SkipSpace();
    const unsigned char c = Next();
    switch (c) {
      case '{':
      case '[':
        // Go's decoder stops at 10000 levels (maxNestingDepth); so does the stack here.
        if (++depth_ > 10000) Fail(c, "exceeded max depth");
        c == '{' ? Object() : Array();
        --depth_;
        break;
      case '"':
        String();
        break;
      case 't':
        Literal("true");
        break;
      case 'f':
        Literal("false");
        break;
      case 'n':
        Literal("null");
        break;
      default:
        if (c == '-' || (c >= '0' && c <= '9')) {
          Number(c);
          break;
        }
        Fail(c, "looking for beginning of value");
    }
    return i_;
  }
  bool AtEnd() {
    SkipSpace();
    return i_ >= s_.size();
  }

 private:
  [[noreturn]] static void Fail(unsigned char c, std::string_view context) {
    throw SyntaxError{fmt::format("invalid character {} {}", QuoteChar(c), context)};
  }
  unsigned char Peek() {
    if (i_ >= s_.size()) throw UnexpectedEof{};
    return static_cast<unsigned char>(s_[i_]);
  }
  unsigned char Next() {
    const unsigned char c = Peek();
    ++i_;
    return c;
  }
  void SkipSpace() {
    while (i_ < s_.size() &&
           (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) {
      ++i_;
    }
  }
  // Whether `close` comes next, past spaces (an empty object or array), taking it.
  bool Empty(unsigned char close) {
    SkipSpace();
    if (Peek() != close) return false;
    ++i_;
    return true;
  }
  void Object() {
    if (Empty('}')) return;
    for (;;) {
      SkipSpace();
      if (unsigned char c = Next(); c != '"') Fail(c, "looking for beginning of object key string");
      String();
      SkipSpace();
      if (unsigned char c = Next(); c != ':') Fail(c, "after object key");
      Value();
      SkipSpace();
      const unsigned char c = Next();
      if (c == '}') return;
      if (c != ',') Fail(c, "after object key:value pair");
    }
  }
  void Array() {
    if (Empty(']')) return;
    for (;;) {
      Value();
      SkipSpace();
      const unsigned char c = Next();
      if (c == ']') return;
      if (c != ',') Fail(c, "after array element");
    }
  }
  void String() {  // After the opening quote.
    for (;;) {
      const unsigned char c = Next();
      if (c == '"') return;
      if (c < 0x20) Fail(c, "in string literal");
      if (c != '\\') continue;
      const unsigned char e = Next();
      if (e == 'u') {
        for (int k = 0; k < 4; ++k) {
          const unsigned char h = Next();
          if (!std::isxdigit(h)) Fail(h, "in \\u hexadecimal character escape");
        }
      } else if (std::string_view("\"\\/bfnrt").find(static_cast<char>(e)) ==
                 std::string_view::npos) {
        Fail(e, "in string escape code");
      }
    }
  }
  // The digits, fraction and exponent after the first character; what ends the number is the
  // caller's to read. At the text's end a number is whole, as the Decoder takes it.
  void Number(unsigned char first) {
    auto digit = [](unsigned char c) { return c >= '0' && c <= '9'; };
    auto more = [&] { return i_ < s_.size(); };
    if (first == '-') {
      const unsigned char c = Next();
      if (!digit(c)) Fail(c, "in numeric literal");
      first = c;
    }
    if (first != '0') {
      while (more() && digit(Peek())) ++i_;
    }
    if (more() && Peek() == '.') {
      ++i_;
      const unsigned char c = Next();
      if (!digit(c)) Fail(c, "after decimal point in numeric literal");
      while (more() && digit(Peek())) ++i_;
    }
    if (more() && (Peek() == 'e' || Peek() == 'E')) {
      ++i_;
      unsigned char c = Next();
      if (c == '+' || c == '-') c = Next();
      if (!digit(c)) Fail(c, "in exponent of numeric literal");
      while (more() && digit(Peek())) ++i_;
    }
  }
  void Literal(std::string_view word) {  // After its first letter.
    for (size_t k = 1; k < word.size(); ++k) {
      const unsigned char c = Next();
      if (c != static_cast<unsigned char>(word[k])) {
        Fail(c, fmt::format("in literal {} (expecting '{}')", word, word[k]));
      }
    }
  }

  std::string_view s_;
  size_t i_ = 0;
  int depth_ = 0;
};

}  // namespace

GoJsonScan ScanFirstJsonValue(std::string_view text) {
  Scanner scanner(text);
  if (scanner.AtEnd()) return {.error = "EOF"};
  try {
    return {.end = scanner.Value()};
  } catch (const UnexpectedEof&) {
    return {.error = "unexpected EOF"};
  } catch (const SyntaxError& e) {
    return {.error = e.message};
  }
}

}  // namespace ksched::extender
