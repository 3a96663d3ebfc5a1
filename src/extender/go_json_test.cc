// The first JSON value of an answer as Go's json.Decoder reads it: each case's words are what Go
// 1.26's decoder said of the same bytes.
#include "src/extender/go_json.h"

#include <gtest/gtest.h>

#include <string>

namespace ksched::extender {
namespace {

struct Case {
  std::string text;
  std::string error;
  size_t end = 0;
};

TEST(GoJsonTest, SyntaxErrorsAreGosWords) {
  const Case cases[] = {
      {"{not json", "invalid character 'n' looking for beginning of object key string"},
      {"", "EOF"},
      {"  \n", "EOF"},
      {R"({"a":)", "unexpected EOF"},
      {"[1,2", "unexpected EOF"},
      {R"({"a" 1})", "invalid character '1' after object key"},
      {"tru", "unexpected EOF"},
      {R"({"a":1,})", "invalid character '}' looking for beginning of object key string"},
      {"\"abc\x01\"", R"(invalid character '\x01' in string literal)"},
      {R"({"a":"\q"})", "invalid character 'q' in string escape code"},
      {"-x", "invalid character 'x' in numeric literal"},
      {"1.e", "invalid character 'e' after decimal point in numeric literal"},
      {"<html>", "invalid character '<' looking for beginning of value"},
      {R"({"a":tx})", "invalid character 'x' in literal true (expecting 'r')"},
      {R"({"a":"\u12g4"})", R"(invalid character 'g' in \u hexadecimal character escape)"},
      {"1.5e+x", "invalid character 'x' in exponent of numeric literal"},
      {"\xff", "invalid character '\xc3\xbf' looking for beginning of value"},
      {"'", R"(invalid character '\'' looking for beginning of value)"},
      {"[1 2]", "invalid character '2' after array element"},
      {R"({"a":1 "b"})", R"(invalid character '"' after object key:value pair)"},
      {"\"abc", "unexpected EOF"},
      {"nulx", "invalid character 'x' in literal null (expecting 'l')"},
      {"-", "unexpected EOF"},
      {"[01]", "invalid character '1' after array element"},
      {"\x7f", R"(invalid character '\x7f' looking for beginning of value)"},
      {"\xa0", R"(invalid character '\u00a0' looking for beginning of value)"},
      {"\xad", R"(invalid character '\u00ad' looking for beginning of value)"},
      {"\xe9", "invalid character '\xc3\xa9' looking for beginning of value"},
      {"\\", R"(invalid character '\\' looking for beginning of value)"},
      {std::string(10001, '['), "invalid character '[' exceeded max depth"},
      // Whole: what follows the first value is not read.
      {"{} trailing", "", 2},
      {"01", "", 1},
      {R"({"a":[true,false,null,-0.5e-3,"\u00e9\n"]})", "", 42},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text.substr(0, 40));
    const GoJsonScan scan = ScanFirstJsonValue(c.text);
    EXPECT_EQ(scan.error, c.error);
    if (c.error.empty()) {
      EXPECT_EQ(scan.end, c.end);
    }
  }
}

}  // namespace
}  // namespace ksched::extender
