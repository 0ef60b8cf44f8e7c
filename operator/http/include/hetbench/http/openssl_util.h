#pragma once

// Helpers over OpenSSL shared by tls.cc, the TLS transport, the tests, the operator's
// authorizer and kubesim: owning pointers for OpenSSL objects, conversions between PEM text and
// those objects, and SHA-256 and SHA-512.

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "hetbench/common/status.h"

namespace hetbench::http::ossl {

template <auto Free>
struct Deleter {
  template <typename T>
  void operator()(T* p) const {
    Free(p);
  }
};

using BioPtr = std::unique_ptr<BIO, Deleter<BIO_free_all>>;
using PkeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY_free>>;
using X509Ptr = std::unique_ptr<X509, Deleter<X509_free>>;
using SslCtxPtr = std::unique_ptr<SSL_CTX, Deleter<SSL_CTX_free>>;
using SslPtr = std::unique_ptr<SSL, Deleter<SSL_free>>;

/// The SHA-256 of `text` in lower-case hex; "" in the unlikely case that OpenSSL fails.
std::string sha256Hex(std::string_view text);
/// The SHA-512 of `text` in lower-case hex; "" in the unlikely case that OpenSSL fails.
std::string sha512Hex(std::string_view text);

/// An Internal status carrying `what` and the thread's OpenSSL error queue (which it clears),
/// so that a failure says which call failed and why.
common::Status error(std::string_view what);

/// The certificates of a PEM bundle in order; Internal when it holds none or is malformed.
common::Result<std::vector<X509Ptr>> readCertificates(std::string_view pem);
/// The first certificate of a PEM text.
common::Result<X509Ptr> readCertificate(std::string_view pem);
/// A private key in any PEM form OpenSSL reads (PKCS#8, SEC1, PKCS#1).
common::Result<PkeyPtr> readPrivateKey(std::string_view pem);

common::Result<std::string> certificatePem(X509* cert);
/// PKCS#8 "PRIVATE KEY" PEM, unencrypted.
common::Result<std::string> privateKeyPem(EVP_PKEY* key);

/// The UTF-8 values of every `nid` entry of a name (e.g. NID_organizationName), in order.
std::vector<std::string> nameEntries(const X509_NAME* name, int nid);

}  // namespace hetbench::http::ossl
