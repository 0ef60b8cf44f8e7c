#pragma once

// Text as Go prints it. The API server's messages come from Go's fmt and strconv; kubesim must
// word them the same way, and the controller words its own field errors like the server's.

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace hetbench::common {

/// Decodes one UTF-8 sequence at s[i] into `rune`; its length, or 0 when the bytes are invalid
/// (overlong forms, surrogates and code points past U+10FFFF included).
std::size_t decodeUtf8(std::string_view s, std::size_t i, char32_t* rune);

/// strconv.Quote (fmt's %q of a string): a double-quoted Go string literal, with invalid bytes as
/// \xNN and non-printable runes escaped. The result is always valid UTF-8.
std::string goQuote(std::string_view s);

/// `text` cut to at most `maxBytes` bytes at a rune boundary, "..." appended when cut.
std::string cutText(std::string_view text, std::size_t maxBytes);

/// goQuote of at most the first 80 bytes of `text` (cut at a rune boundary, "..." after the
/// closing quote when cut): for text a workload controls, such as log values in diagnostics.
std::string quote(std::string_view text);

/// fmt's %v of a float64 ("1", "0.5", "1e+06").
std::string goFloat(double v);
/// fmt's %v of a JSON number as the API server decodes it (int64, else float64).
std::string goNumber(const nlohmann::json& v);
/// fmt's %#v of a decoded JSON value ("map[string]interface {}{\"a\":1}").
std::string goSharpV(const nlohmann::json& v);

}  // namespace hetbench::common
