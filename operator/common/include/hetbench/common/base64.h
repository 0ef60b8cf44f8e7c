#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace hetbench::common {

/// Standard base64 (RFC 4648, with padding), as Kubernetes uses for Secret data, kubeconfig
/// `-data` fields and certificates.
std::string base64Encode(std::string_view bytes);

/// Decodes standard base64 with padding; CR and LF are skipped as Go's decoder does. nullopt for
/// any other character outside the alphabet, a bad length or misplaced padding.
std::optional<std::string> base64Decode(std::string_view text);

}  // namespace hetbench::common
