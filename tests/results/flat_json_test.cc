// The metrics lines' JSON scanner (operator/results/src/flat_json.h) against nlohmann::json,
// which it must agree with: what it reads, nlohmann::json reads the same; what it refuses,
// nlohmann::json refuses too.

#include "flat_json.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "event_fields.h"
#include "flat_json_testing.h"
#include "hetbench/results/parser.h"
#include "printers.h"

namespace hetbench::results::internal {
namespace {

using nlohmann::json;

struct ScanCase {
  std::string name;
  std::string text;
  JsonScan want;
};

std::string describe(JsonScan scan) {
  switch (scan) {
    case JsonScan::kObject:
      return "object";
    case JsonScan::kInvalid:
      return "invalid";
    case JsonScan::kUnsupported:
      break;
  }
  return "unsupported";
}

// Verifies every form the scanner reads, refuses or leaves to nlohmann::json, and that it
// agrees with nlohmann::json::parse on each: the same members and values when it reads an
// object, a parse error when it refuses one.
TEST(FlatJson, AgreesWithNlohmann) {
  const std::vector<ScanCase> cases = {
      // Objects read.
      {"empty", "{}", JsonScan::kObject},
      {"whitespace everywhere", " \t\r\n{ \"a\" :\t1 ,\n\"b\":{ } } \r\n", JsonScan::kObject},
      {"an event", R"({"v":1,"event":"epoch","epoch":0,"wall_seconds":1.5,"warmup":false})",
       JsonScan::kObject},
      {"literals", R"({"t":true,"f":false,"n":null})", JsonScan::kObject},
      {"a nested object", R"({"accelerator":{"name":"A100","count":8},"x":{}})", JsonScan::kObject},
      {"duplicate keys: the last counts", R"({"a":1,"b":2,"a":"three"})", JsonScan::kObject},
      {"duplicate objects: the last replaces", R"({"o":{"x":1},"o":{"y":2}})", JsonScan::kObject},
      {"duplicate keys inside an object", R"({"o":{"x":1,"x":null}})", JsonScan::kObject},
      {"the empty key", R"({"":1})", JsonScan::kObject},
      {"escapes", R"({"s":"q\" b\\ s\/ \b\f\n\r\t end"})", JsonScan::kObject},
      {"an escaped key", R"({"\u0076":1,"e\u0076ent":"epoch"})", JsonScan::kObject},
      {"unicode escapes", R"({"s":"\u00e9\u20AC\ud83d\udca5\uFFFF"})", JsonScan::kObject},
      {"an escaped NUL", R"({"s":"a\u0000b"})", JsonScan::kObject},
      {"escapes in several strings", R"({"a\n":"\t","b":"plain","c":"\"\""})", JsonScan::kObject},
      {"UTF-8 of every length", "{\"s\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x92\xa5\xf4\x8f\xbf\xbf\"}",
       JsonScan::kObject},
      {"UTF-8 at the edges of its ranges",
       "{\"s\":\"\xc2\x80\xdf\xbf\xe0\xa0\x80\xed\x9f\xbf\xee\x80\x80\xf0\x90\x80\x80\"}",
       JsonScan::kObject},
      {"DEL is no control character", "{\"s\":\"\x7f\"}", JsonScan::kObject},
      {"zeros", R"({"a":0,"b":-0,"c":0.0,"d":-0.0,"e":0e0})", JsonScan::kObject},
      {"fractions and exponents", R"({"a":1.5,"b":-2.25e-3,"c":1E+5,"d":1e5,"e":123.456e-2})",
       JsonScan::kObject},
      {"int64 and uint64 limits",
       R"({"a":9223372036854775807,"b":9223372036854775808,"c":18446744073709551615,)"
       R"("d":-9223372036854775808})",
       JsonScan::kObject},
      {"integers beyond 64 bits are doubles",
       R"({"a":18446744073709551616,"b":-9223372036854775809,"c":123456789012345678901234567890})",
       JsonScan::kObject},
      {"doubles at their limits",
       R"({"a":1.7976931348623157e308,"b":4.9e-324,"c":2.2250738585072014e-308})",
       JsonScan::kObject},
      {"a long mantissa", R"({"a":0.30000000000000004440892098500626161694526672363281250001})",
       JsonScan::kObject},

      // Not JSON.
      {"trailing garbage", R"({"v":1} x)", JsonScan::kInvalid},
      {"two objects", "{}{}", JsonScan::kInvalid},
      {"a trailing comma", R"({"a":1,})", JsonScan::kInvalid},
      {"a leading comma", R"({,"a":1})", JsonScan::kInvalid},
      {"no colon", R"({"a" 1})", JsonScan::kInvalid},
      {"no comma", R"({"a":1 "b":2})", JsonScan::kInvalid},
      {"no value", R"({"a":})", JsonScan::kInvalid},
      {"an unquoted key", R"({a:1})", JsonScan::kInvalid},
      {"a single-quoted string", R"({"a":'x'})", JsonScan::kInvalid},
      {"unterminated", R"({"a":1)", JsonScan::kInvalid},
      {"unterminated after a key", R"({"a")", JsonScan::kInvalid},
      {"unterminated string", R"({"a":"x)", JsonScan::kInvalid},
      {"unterminated nested object", R"({"a":{"b":1)", JsonScan::kInvalid},
      {"a bad escape", R"({"a":"\x"})", JsonScan::kInvalid},
      {"an escape at the end", "{\"a\":\"\\", JsonScan::kInvalid},
      {"a short unicode escape", R"({"a":"\u12"})", JsonScan::kInvalid},
      {"a unicode escape that is not hex", R"({"a":"\u12g4"})", JsonScan::kInvalid},
      {"a lone high surrogate", R"({"a":"\ud800"})", JsonScan::kInvalid},
      {"a high surrogate and a letter", R"({"a":"\ud800\u0041"})", JsonScan::kInvalid},
      {"a high surrogate and another", R"({"a":"\ud800\ud800"})", JsonScan::kInvalid},
      {"a high surrogate and a short escape", R"({"a":"\ud800\u12"})", JsonScan::kInvalid},
      {"a lone low surrogate", R"({"a":"\udc00"})", JsonScan::kInvalid},
      {"a raw newline", "{\"a\":\"x\ny\"}", JsonScan::kInvalid},
      {"a raw NUL", std::string("{\"a\":\"x\0y\"}", 11), JsonScan::kInvalid},
      {"a raw control character in a key", "{\"\x01\":1}", JsonScan::kInvalid},
      {"a lone continuation byte", "{\"a\":\"\x80\"}", JsonScan::kInvalid},
      {"an overlong 2-byte form", "{\"a\":\"\xc0\x80\"}", JsonScan::kInvalid},
      {"an overlong 3-byte form", "{\"a\":\"\xe0\x9f\xbf\"}", JsonScan::kInvalid},
      {"an overlong 4-byte form", "{\"a\":\"\xf0\x8f\xbf\xbf\"}", JsonScan::kInvalid},
      {"a UTF-8 surrogate", "{\"a\":\"\xed\xa0\x80\"}", JsonScan::kInvalid},
      {"beyond U+10FFFF", "{\"a\":\"\xf4\x90\x80\x80\"}", JsonScan::kInvalid},
      {"a byte never in UTF-8", "{\"a\":\"\xf5\x80\x80\x80\"}", JsonScan::kInvalid},
      {"a truncated sequence", "{\"a\":\"\xe2\x82\"}", JsonScan::kInvalid},
      {"a sequence cut by the end", "{\"a\":\"\xe2\x82", JsonScan::kInvalid},
      {"invalid UTF-8 in a key", "{\"\xff\":1}", JsonScan::kInvalid},
      {"a leading zero", R"({"a":01})", JsonScan::kInvalid},
      {"a minus alone", R"({"a":-})", JsonScan::kInvalid},
      {"a minus and a letter", R"({"a":-a})", JsonScan::kInvalid},
      {"a plus sign", R"({"a":+1})", JsonScan::kInvalid},
      {"a bare point", R"({"a":.5})", JsonScan::kInvalid},
      {"a trailing point", R"({"a":1.})", JsonScan::kInvalid},
      {"an exponent without digits", R"({"a":1e})", JsonScan::kInvalid},
      {"a signed exponent without digits", R"({"a":1e+})", JsonScan::kInvalid},
      {"hexadecimal", R"({"a":0x10})", JsonScan::kInvalid},
      {"NaN", R"({"a":NaN})", JsonScan::kInvalid},
      {"Infinity", R"({"a":-Infinity})", JsonScan::kInvalid},
      {"a misspelt literal", R"({"a":tru})", JsonScan::kInvalid},
      {"a capitalised literal", R"({"a":True})", JsonScan::kInvalid},
      {"a literal with more", R"({"a":nulls})", JsonScan::kInvalid},
      {"a literal cut by the end", R"({"a":nul)", JsonScan::kInvalid},
      {"a number and a letter", R"({"a":1x})", JsonScan::kInvalid},

      // Left to nlohmann::json.
      {"not an object", "[1,2]", JsonScan::kUnsupported},
      {"a string", "\"epoch\"", JsonScan::kUnsupported},
      {"nothing", "", JsonScan::kUnsupported},
      {"only whitespace", " \t", JsonScan::kUnsupported},
      {"a byte order mark", "\xef\xbb\xbf{\"v\":1}", JsonScan::kUnsupported},
      // nlohmann::json stops at a NUL byte after the value (found by fuzz_json).
      {"a NUL after the object", std::string("{} \0 x\xff", 7), JsonScan::kUnsupported},
      {"a NUL inside the object", std::string("{\"a\":1\0}", 8), JsonScan::kInvalid},
      {"an array member", R"({"a":[1,2]})", JsonScan::kUnsupported},
      {"an object two levels deep", R"({"a":{"b":{"c":1}}})", JsonScan::kUnsupported},
      {"an array inside an object", R"({"a":{"b":[]}})", JsonScan::kUnsupported},
      {"a double overflow", R"({"a":1e400})", JsonScan::kUnsupported},
      {"a double underflow", R"({"a":1e-400})", JsonScan::kUnsupported},
      {"a huge integer", R"({"a":)" + std::string(400, '9') + "}", JsonScan::kUnsupported},
  };
  FlatJson scanner;
  FlatJson dom;
  for (const ScanCase& c : cases) {
    const JsonScan got = scanner.scan(c.text);
    EXPECT_EQ(describe(got), describe(c.want)) << c.name;
    if (got == JsonScan::kObject) {
      json parsed;
      ASSERT_NO_THROW(parsed = json::parse(c.text)) << c.name;
      dom.assign(parsed);
      EXPECT_EQ(differences(scanner.root(), dom.root()), "") << c.name;
    } else if (got == JsonScan::kInvalid) {
      EXPECT_FALSE(json::accept(c.text)) << c.name;
    }
  }
}

// Verifies the values read, including the integer kinds that nlohmann::json tells apart.
TEST(FlatJson, Values) {
  FlatJson scanner;
  ASSERT_EQ(scanner.scan(R"({"s":"a\tb","n":-3,"u":3,"big":18446744073709551616,"d":0.5,)"
                         R"("t":true,"z":null,"o":{"k":"v"},"s":"last"})"),
            JsonScan::kObject);
  const FlatObject root = scanner.root();
  ASSERT_NE(root.find("s"), nullptr);
  EXPECT_EQ(root.find("s")->string, "last");
  EXPECT_EQ(root.find("n")->type, FlatType::kInteger);
  EXPECT_EQ(root.find("n")->integer, -3);
  EXPECT_EQ(root.find("u")->type, FlatType::kUnsigned);
  EXPECT_EQ(root.find("u")->unsignedInteger, 3u);
  EXPECT_EQ(root.find("big")->type, FlatType::kFloat);
  EXPECT_EQ(root.find("big")->number, 18446744073709551616.0);
  EXPECT_EQ(root.find("d")->number, 0.5);
  EXPECT_TRUE(root.find("t")->boolean);
  EXPECT_EQ(root.find("z")->type, FlatType::kNull);
  EXPECT_EQ(root.find("missing"), nullptr);
  ASSERT_EQ(root.find("o")->type, FlatType::kObject);
  const FlatObject o = root.child(*root.find("o"));
  ASSERT_EQ(o.members().size(), 1u);
  EXPECT_EQ(o.find("k")->string, "v");
  EXPECT_EQ(o.find("s"), nullptr);
}

// Verifies that the strings of one scan stay valid while later strings are unescaped, and that
// a scan after a long line still reads correctly.
TEST(FlatJson, BuffersReused) {
  FlatJson scanner;
  std::string many = "{";
  for (int i = 0; i < 200; ++i) {
    if (i > 0) many += ',';
    many += "\"k" + std::to_string(i) + "\":\"v\\n" + std::to_string(i) + "\"";
  }
  many += '}';
  ASSERT_EQ(scanner.scan(many), JsonScan::kObject);
  const FlatObject root = scanner.root();
  ASSERT_EQ(root.members().size(), 200u);
  for (int i = 0; i < 200; ++i) {
    EXPECT_EQ(root.find("k" + std::to_string(i))->string, "v\n" + std::to_string(i));
  }
  ASSERT_EQ(scanner.scan(R"({"a":"\u00e9"})"), JsonScan::kObject);
  EXPECT_EQ(scanner.root().find("a")->string, "\xc3\xa9");
  EXPECT_EQ(scanner.root().members().size(), 1u);
}

// Verifies that a field's error reads the same whether the line was scanned or, having
// something the scanner leaves to nlohmann::json, parsed by it.
TEST(FlatJson, SameErrorsEitherWay) {
  const std::vector<std::string> lines = {
      R"({"v":1,"event":"epoch","epoch":0,"rank":0,"samples":1,"wall_seconds":-1e-5,)"
      R"("io_seconds":0,"compute_seconds":1})",
      R"({"v":1,"event":"epoch","epoch":0,"rank":0,"samples":1,"wall_seconds":1,)"
      R"("io_seconds":-123456789.125,"compute_seconds":1})",
      R"({"v":1,"event":"epoch","epoch":-9223372036854775808,"rank":0})",
      R"({"v":1,"event":"epoch","epoch":0,"rank":18446744073709551615})",
      R"({"v":1,"event":"epoch","epoch":0,"rank":1e3})",
      R"({"v":1,"event":"epoch","epoch":0,"rank":0,"samples":1,"wall_seconds":1,)"
      R"("io_seconds":-0.0000001,"compute_seconds":1})",
      R"({"v":1,"event":"epoch","epoch":0,"rank":0,"samples":1,"wall_seconds":-5,)"
      R"("io_seconds":0,"compute_seconds":1})",
      R"({"v":1,"event":"run_start","accelerator":{"name":7}})",
      R"({"v":1,"event":"run_start","accelerator":[]})",
      R"({"v":1,"event":{"x":1}})",
      R"({"v":1,"event":"epoch","warmup":null,"epoch":"1"})",
  };
  const std::string marker = std::string(kHetbenchMarker) + " ";
  for (const std::string& line : lines) {
    // The same line with an array the scanner does not read, so that nlohmann::json parses it.
    const std::string parsed = line.substr(0, line.size() - 1) + R"(,"unknown":[1]})";
    const auto scanned = makeHetbenchParser();
    const auto viaDom = makeHetbenchParser();
    scanned->consume("w0", marker + line);
    viaDom->consume("w0", marker + parsed);
    const ParsedLog a = scanned->result();
    const ParsedLog b = viaDom->result();
    ASSERT_EQ(a.errors.size(), 1u) << line;
    EXPECT_EQ(a.errors, b.errors) << line;
  }
}

}  // namespace
}  // namespace hetbench::results::internal
