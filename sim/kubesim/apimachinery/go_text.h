#pragma once

// Text as Go prints it: the API server's messages come from Go's fmt and strconv, and kubesim
// must word them the same way.

#include <cstddef>
#include <string>
#include <string_view>

namespace hetbench::kubesim {

/// Decodes one UTF-8 sequence at s[i] into `rune`; its length, or 0 when the bytes are invalid
/// (overlong forms, surrogates and code points past U+10FFFF included).
std::size_t decodeUtf8(std::string_view s, std::size_t i, char32_t* rune);

/// strconv.Quote (fmt's %q of a string): a double-quoted Go string literal, with invalid bytes as
/// \xNN and non-printable runes escaped.
std::string goQuote(std::string_view s);

}  // namespace hetbench::kubesim
