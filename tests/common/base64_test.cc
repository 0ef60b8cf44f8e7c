#include "hetbench/common/base64.h"

#include <gtest/gtest.h>

namespace hetbench::common {
namespace {

// Verifies the RFC 4648 test vectors both ways.
TEST(Base64, Rfc4648Vectors) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", ""},
      {"f", "Zg=="},
      {"fo", "Zm8="},
      {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="},
      {"fooba", "Zm9vYmE="},
      {"foobar", "Zm9vYmFy"},
  };
  for (const auto& [plain, encoded] : cases) {
    EXPECT_EQ(base64Encode(plain), encoded);
    EXPECT_EQ(base64Decode(encoded), plain) << encoded;
  }
  const std::string binary("\0\xff\x10\x80", 4);
  EXPECT_EQ(base64Decode(base64Encode(binary)), binary);
}

// Verifies that line breaks are skipped and malformed input is refused.
TEST(Base64, SkipsLineBreaksAndRejectsMalformed) {
  EXPECT_EQ(base64Decode("Zm9v\nYmFy\r\n"), "foobar");
  for (const char* bad : {"Zm9", "Zm9v!", "Z=9v", "Zg==Zg==", "Zm 9v", "%%%"}) {
    EXPECT_FALSE(base64Decode(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace hetbench::common
