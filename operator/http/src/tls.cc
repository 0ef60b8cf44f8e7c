#include "hetbench/http/tls.h"

#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "hetbench/http/openssl_util.h"

namespace hetbench::http {
namespace {

using ossl::Deleter;
using ossl::PkeyPtr;
using ossl::X509Ptr;

using PkeyCtxPtr = std::unique_ptr<EVP_PKEY_CTX, Deleter<EVP_PKEY_CTX_free>>;
using BignumPtr = std::unique_ptr<BIGNUM, Deleter<BN_free>>;
using ExtensionPtr = std::unique_ptr<X509_EXTENSION, Deleter<X509_EXTENSION_free>>;
using GeneralNamesPtr = std::unique_ptr<GENERAL_NAMES, Deleter<GENERAL_NAMES_free>>;
using GeneralNamePtr = std::unique_ptr<GENERAL_NAME, Deleter<GENERAL_NAME_free>>;
using Ia5StringPtr = std::unique_ptr<ASN1_IA5STRING, Deleter<ASN1_IA5STRING_free>>;
using OctetStringPtr = std::unique_ptr<ASN1_OCTET_STRING, Deleter<ASN1_OCTET_STRING_free>>;

constexpr long kBackdateSeconds = 3600;  // tolerates clocks of clients a little behind
constexpr std::chrono::seconds kLifetime = std::chrono::hours(24 * 365);

common::Result<PkeyPtr> generateKey() {
  PkeyCtxPtr ctx(EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr));
  if (!ctx || EVP_PKEY_keygen_init(ctx.get()) != 1 ||
      EVP_PKEY_CTX_set_group_name(ctx.get(), "P-256") != 1) {
    return ossl::error("preparing P-256 key generation");
  }
  EVP_PKEY* raw = nullptr;
  if (EVP_PKEY_generate(ctx.get(), &raw) != 1) return ossl::error("EVP_PKEY_generate");
  return PkeyPtr(raw);
}

common::Status addNameEntry(X509_NAME* name, const char* field, const std::string& value) {
  if (X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8,
                                 reinterpret_cast<const unsigned char*>(value.c_str()), -1, -1,
                                 0) != 1) {
    return ossl::error(std::string("adding ") + field + "=" + value + " to a name");
  }
  return common::okStatus();
}

/// A version 3 certificate for `key` with a random serial number, valid from an hour ago for
/// `lifetime` from now; the caller sets the names and extensions and signs it.
common::Result<X509Ptr> newCertificate(EVP_PKEY* key, std::chrono::seconds lifetime = kLifetime) {
  X509Ptr cert(X509_new());
  if (!cert || X509_set_version(cert.get(), X509_VERSION_3) != 1) {
    return ossl::error("X509_new");
  }
  // 159 random bits keep the serial positive and within RFC 5280's 20 octets.
  BignumPtr serial(BN_new());
  if (!serial || BN_rand(serial.get(), 159, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ODD) != 1 ||
      BN_to_ASN1_INTEGER(serial.get(), X509_get_serialNumber(cert.get())) == nullptr) {
    return ossl::error("setting a random serial number");
  }
  if (X509_gmtime_adj(X509_getm_notBefore(cert.get()), -kBackdateSeconds) == nullptr ||
      X509_gmtime_adj(X509_getm_notAfter(cert.get()), static_cast<long>(lifetime.count())) ==
          nullptr) {
    return ossl::error("setting the validity period");
  }
  if (X509_set_pubkey(cert.get(), key) != 1) return ossl::error("X509_set_pubkey");
  return cert;
}

/// Adds an extension written in OpenSSL's configuration syntax ("critical,CA:TRUE").
common::Status addExtension(X509* issuer, X509* subject, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx(&ctx, issuer, subject, nullptr, nullptr, 0);
  ExtensionPtr ext(X509V3_EXT_nconf_nid(nullptr, &ctx, nid, value));
  if (!ext || X509_add_ext(subject, ext.get(), -1) != 1) {
    return ossl::error(std::string("adding extension ") + OBJ_nid2sn(nid) + "=" + value);
  }
  return common::okStatus();
}

/// Builds subjectAltName from typed entries rather than a configuration string, so that no
/// name can inject further entries.
common::Status addSubjectAltNames(X509* cert, const std::vector<std::string>& dnsNames,
                                  const std::vector<std::string>& ipAddresses) {
  GeneralNamesPtr names(GENERAL_NAMES_new());
  if (!names) return ossl::error("GENERAL_NAMES_new");
  for (const std::string& dns : dnsNames) {
    Ia5StringPtr text(ASN1_IA5STRING_new());
    GeneralNamePtr name(GENERAL_NAME_new());
    if (!text || !name ||
        ASN1_STRING_set(text.get(), dns.data(), static_cast<int>(dns.size())) != 1) {
      return ossl::error("encoding DNS name " + dns);
    }
    GENERAL_NAME_set0_value(name.get(), GEN_DNS, text.release());
    if (sk_GENERAL_NAME_push(names.get(), name.get()) == 0) return ossl::error("adding a name");
    name.release();
  }
  for (const std::string& ip : ipAddresses) {
    OctetStringPtr octets(a2i_IPADDRESS(ip.c_str()));
    if (!octets) {
      ERR_clear_error();
      return common::invalidError("not an IP address: \"" + ip + "\"");
    }
    GeneralNamePtr name(GENERAL_NAME_new());
    if (!name) return ossl::error("GENERAL_NAME_new");
    GENERAL_NAME_set0_value(name.get(), GEN_IPADD, octets.release());
    if (sk_GENERAL_NAME_push(names.get(), name.get()) == 0) return ossl::error("adding a name");
    name.release();
  }
  if (X509_add1_ext_i2d(cert, NID_subject_alt_name, names.get(), 0, X509V3_ADD_DEFAULT) != 1) {
    return ossl::error("adding subjectAltName");
  }
  return common::okStatus();
}

common::Status sign(X509* cert, EVP_PKEY* issuerKey) {
  if (X509_sign(cert, issuerKey, EVP_sha256()) <= 0) return ossl::error("X509_sign");
  return common::okStatus();
}

/// A leaf certificate for a fresh key, issued by `ca`, with the extensions every leaf shares.
common::Result<X509Ptr> newLeaf(X509* ca, EVP_PKEY* key, const char* extendedKeyUsage,
                                std::chrono::seconds lifetime = kLifetime) {
  HETBENCH_ASSIGN_OR_RETURN(X509Ptr cert, newCertificate(key, lifetime));
  if (X509_set_issuer_name(cert.get(), X509_get_subject_name(ca)) != 1) {
    return ossl::error("X509_set_issuer_name");
  }
  HETBENCH_RETURN_IF_ERROR(
      addExtension(ca, cert.get(), NID_basic_constraints, "critical,CA:FALSE"));
  HETBENCH_RETURN_IF_ERROR(
      addExtension(ca, cert.get(), NID_key_usage, "critical,digitalSignature"));
  HETBENCH_RETURN_IF_ERROR(addExtension(ca, cert.get(), NID_ext_key_usage, extendedKeyUsage));
  HETBENCH_RETURN_IF_ERROR(addExtension(ca, cert.get(), NID_subject_key_identifier, "hash"));
  HETBENCH_RETURN_IF_ERROR(
      addExtension(ca, cert.get(), NID_authority_key_identifier, "keyid:always"));
  return cert;
}

common::Result<ServingCertificate> generateServing(const std::vector<std::string>& dnsNames,
                                                   const std::vector<std::string>& ipAddresses) {
  HETBENCH_ASSIGN_OR_RETURN(PkeyPtr caKey, generateKey());
  HETBENCH_ASSIGN_OR_RETURN(X509Ptr ca, newCertificate(caKey.get()));
  HETBENCH_RETURN_IF_ERROR(addNameEntry(X509_get_subject_name(ca.get()), "CN", "hetbench-ca"));
  if (X509_set_issuer_name(ca.get(), X509_get_subject_name(ca.get())) != 1) {
    return ossl::error("X509_set_issuer_name");
  }
  HETBENCH_RETURN_IF_ERROR(
      addExtension(ca.get(), ca.get(), NID_basic_constraints, "critical,CA:TRUE"));
  HETBENCH_RETURN_IF_ERROR(
      addExtension(ca.get(), ca.get(), NID_key_usage, "critical,keyCertSign,cRLSign"));
  HETBENCH_RETURN_IF_ERROR(addExtension(ca.get(), ca.get(), NID_subject_key_identifier, "hash"));
  HETBENCH_RETURN_IF_ERROR(sign(ca.get(), caKey.get()));

  HETBENCH_ASSIGN_OR_RETURN(PkeyPtr key, generateKey());
  HETBENCH_ASSIGN_OR_RETURN(X509Ptr cert, newLeaf(ca.get(), key.get(), "serverAuth"));
  const std::string commonName = dnsNames.empty() ? "hetbench" : dnsNames.front();
  HETBENCH_RETURN_IF_ERROR(addNameEntry(X509_get_subject_name(cert.get()), "CN", commonName));
  HETBENCH_RETURN_IF_ERROR(addSubjectAltNames(cert.get(), dnsNames, ipAddresses));
  HETBENCH_RETURN_IF_ERROR(sign(cert.get(), caKey.get()));

  ServingCertificate out;
  HETBENCH_ASSIGN_OR_RETURN(out.caCertPem, ossl::certificatePem(ca.get()));
  HETBENCH_ASSIGN_OR_RETURN(out.caKeyPem, ossl::privateKeyPem(caKey.get()));
  HETBENCH_ASSIGN_OR_RETURN(out.certPem, ossl::certificatePem(cert.get()));
  HETBENCH_ASSIGN_OR_RETURN(out.keyPem, ossl::privateKeyPem(key.get()));
  return out;
}

common::Result<ClientCertificate> generateClient(const ServingCertificate& ca,
                                                 const std::string& user,
                                                 const std::vector<std::string>& groups,
                                                 std::chrono::seconds lifetime) {
  HETBENCH_ASSIGN_OR_RETURN(X509Ptr caCert, ossl::readCertificate(ca.caCertPem));
  HETBENCH_ASSIGN_OR_RETURN(PkeyPtr caKey, ossl::readPrivateKey(ca.caKeyPem));
  if (X509_check_private_key(caCert.get(), caKey.get()) != 1) {
    return ossl::error("matching the CA key to the CA certificate");
  }
  HETBENCH_ASSIGN_OR_RETURN(PkeyPtr key, generateKey());
  HETBENCH_ASSIGN_OR_RETURN(X509Ptr cert, newLeaf(caCert.get(), key.get(), "clientAuth", lifetime));
  // Kubernetes reads groups from O= entries, in order, and the user from CN.
  X509_NAME* subject = X509_get_subject_name(cert.get());
  for (const std::string& group : groups) {
    HETBENCH_RETURN_IF_ERROR(addNameEntry(subject, "O", group));
  }
  HETBENCH_RETURN_IF_ERROR(addNameEntry(subject, "CN", user));
  HETBENCH_RETURN_IF_ERROR(sign(cert.get(), caKey.get()));

  ClientCertificate out;
  HETBENCH_ASSIGN_OR_RETURN(out.certPem, ossl::certificatePem(cert.get()));
  HETBENCH_ASSIGN_OR_RETURN(out.keyPem, ossl::privateKeyPem(key.get()));
  return out;
}

}  // namespace

common::Result<ServingCertificate> generateServingCertificate(
    const std::vector<std::string>& dnsNames, const std::vector<std::string>& ipAddresses) {
  // Errors from an earlier, unrelated call must not end up in this call's messages.
  ERR_clear_error();
  try {
    common::Result<ServingCertificate> result = generateServing(dnsNames, ipAddresses);
    ERR_clear_error();
    return result;
  } catch (const std::exception& e) {
    ERR_clear_error();
    return common::internalError(std::string("generating a serving certificate: ") + e.what());
  }
}

common::Result<ClientCertificate> generateClientCertificate(const ServingCertificate& ca,
                                                            const std::string& user,
                                                            const std::vector<std::string>& groups,
                                                            std::chrono::seconds lifetime) {
  ERR_clear_error();
  try {
    common::Result<ClientCertificate> result = generateClient(ca, user, groups, lifetime);
    ERR_clear_error();
    return result;
  } catch (const std::exception& e) {
    ERR_clear_error();
    return common::internalError(std::string("generating a client certificate: ") + e.what());
  }
}

}  // namespace hetbench::http
