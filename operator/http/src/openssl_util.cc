#include "hetbench/http/openssl_util.h"

#include <openssl/err.h>
#include <openssl/pem.h>

#include <climits>

namespace hetbench::http::ossl {
namespace {

common::Result<BioPtr> memoryBio(std::string_view text) {
  if (text.size() > static_cast<std::size_t>(INT_MAX)) {
    return common::invalidError("PEM text too large");
  }
  BioPtr bio(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())));
  if (!bio) return error("BIO_new_mem_buf");
  return bio;
}

common::Result<std::string> drain(BIO* bio) {
  const std::size_t size = BIO_ctrl_pending(bio);
  std::string out(size, '\0');
  std::size_t got = 0;
  if (size > 0 && (BIO_read_ex(bio, out.data(), size, &got) != 1 || got != size)) {
    return error("BIO_read_ex");
  }
  return out;
}

std::string digestHex(std::string_view text, const EVP_MD* digestType) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(text.data(), text.size(), digest, &size, digestType, nullptr) != 1) return {};
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < size; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 0xf];
  }
  return out;
}

}  // namespace

std::string sha256Hex(std::string_view text) { return digestHex(text, EVP_sha256()); }

std::string sha512Hex(std::string_view text) { return digestHex(text, EVP_sha512()); }

common::Status error(std::string_view what) {
  std::string message(what);
  message += " failed";
  const char* sep = ": ";
  char buf[256];
  for (unsigned long code = ERR_get_error(); code != 0; code = ERR_get_error()) {
    ERR_error_string_n(code, buf, sizeof(buf));
    message += sep;
    message += buf;
    sep = "; ";
  }
  return common::internalError(std::move(message));
}

common::Result<std::vector<X509Ptr>> readCertificates(std::string_view pem) {
  HETBENCH_ASSIGN_OR_RETURN(BioPtr bio, memoryBio(pem));
  std::vector<X509Ptr> certs;
  for (;;) {
    X509Ptr cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
    if (!cert) break;
    certs.push_back(std::move(cert));
  }
  // Reading stops with "no start line" at the end of the text; only a first failure is an error.
  if (certs.empty()) return error("reading a PEM certificate");
  ERR_clear_error();
  return certs;
}

common::Result<X509Ptr> readCertificate(std::string_view pem) {
  HETBENCH_ASSIGN_OR_RETURN(std::vector<X509Ptr> certs, readCertificates(pem));
  return std::move(certs.front());
}

common::Result<PkeyPtr> readPrivateKey(std::string_view pem) {
  HETBENCH_ASSIGN_OR_RETURN(BioPtr bio, memoryBio(pem));
  PkeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  if (!key) return error("reading a PEM private key");
  return key;
}

common::Result<std::string> certificatePem(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_X509(bio.get(), cert) != 1) return error("PEM_write_bio_X509");
  return drain(bio.get());
}

common::Result<std::string> privateKeyPem(EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio ||
      PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    return error("PEM_write_bio_PrivateKey");
  }
  return drain(bio.get());
}

std::vector<std::string> nameEntries(const X509_NAME* name, int nid) {
  std::vector<std::string> values;
  for (int i = X509_NAME_get_index_by_NID(name, nid, -1); i >= 0;
       i = X509_NAME_get_index_by_NID(name, nid, i)) {
    const ASN1_STRING* data = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, i));
    unsigned char* utf8 = nullptr;
    const int len = ASN1_STRING_to_UTF8(&utf8, data);
    if (len < 0) {
      ERR_clear_error();
      continue;
    }
    values.emplace_back(reinterpret_cast<const char*>(utf8), static_cast<std::size_t>(len));
    OPENSSL_free(utf8);
  }
  return values;
}

}  // namespace hetbench::http::ossl
