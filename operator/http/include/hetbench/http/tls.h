#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "hetbench/common/status.h"

namespace hetbench::http {

/// PEM material of a serving certificate and the CA that signed it.
struct ServingCertificate {
  std::string caCertPem;
  std::string caKeyPem;  // kept so that tests can sign client certificates
  std::string certPem;
  std::string keyPem;
};

/// A client certificate (CN = user, O = groups) signed by a ServingCertificate's CA.
struct ClientCertificate {
  std::string certPem;
  std::string keyPem;
};

/// Generates a fresh CA and a server certificate signed by it, valid for one year, with the
/// given DNS names and IP addresses as subjectAltNames. Keys are ECDSA P-256.
common::Result<ServingCertificate> generateServingCertificate(
    const std::vector<std::string>& dnsNames, const std::vector<std::string>& ipAddresses);

/// Signs a client certificate for `user` in `groups` with the CA of `ca`, valid from an hour
/// ago for `lifetime` from now (tests give a short one to see it expire).
common::Result<ClientCertificate> generateClientCertificate(
    const ServingCertificate& ca, const std::string& user, const std::vector<std::string>& groups,
    std::chrono::seconds lifetime = std::chrono::hours(24 * 365));

}  // namespace hetbench::http
