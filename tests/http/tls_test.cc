#include "hetbench/http/tls.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "hetbench/http/openssl_util.h"
#include "hetbench/http/server.h"
#include "http/test_client.h"

namespace hetbench::http {
namespace {

using namespace std::chrono_literals;
using testing::Mailbox;
using testing::TestConnection;
using testing::TlsClientOptions;

using StorePtr = std::unique_ptr<X509_STORE, ossl::Deleter<X509_STORE_free>>;
using StoreCtxPtr = std::unique_ptr<X509_STORE_CTX, ossl::Deleter<X509_STORE_CTX_free>>;

ServingCertificate servingCertificate() {
  auto cert = generateServingCertificate({"localhost", "kubesim.test"}, {"127.0.0.1", "::1"});
  EXPECT_TRUE(cert.isOk()) << cert.status().toString();
  return cert.isOk() ? cert.value() : ServingCertificate{};
}

ossl::X509Ptr parse(const std::string& pem) {
  auto cert = ossl::readCertificate(pem);
  EXPECT_TRUE(cert.isOk()) << cert.status().toString();
  return cert.isOk() ? std::move(cert).value() : nullptr;
}

/// Verifies `cert` against `ca` for `purpose` (X509_PURPOSE_SSL_SERVER or _CLIENT).
int verify(X509* cert, X509* ca, int purpose) {
  StorePtr store(X509_STORE_new());
  StoreCtxPtr ctx(X509_STORE_CTX_new());
  X509_STORE_add_cert(store.get(), ca);
  X509_STORE_CTX_init(ctx.get(), store.get(), cert, nullptr);
  X509_STORE_CTX_set_purpose(ctx.get(), purpose);
  if (X509_verify_cert(ctx.get()) == 1) return X509_V_OK;
  return X509_STORE_CTX_get_error(ctx.get());
}

/// Seconds from now to an ASN1 time (negative in the past).
long long secondsFromNow(const ASN1_TIME* when) {
  int days = 0;
  int seconds = 0;
  ASN1_TIME_diff(&days, &seconds, nullptr, when);
  return static_cast<long long>(days) * 86400 + seconds;
}

std::unique_ptr<Server> startTlsServer(const ServingCertificate& cert, Handler handler,
                                       std::string clientCaPem = "") {
  ServerOptions options;
  options.tls = cert;
  options.clientCaPem = std::move(clientCaPem);
  auto server = Server::start(std::move(options), std::move(handler));
  EXPECT_TRUE(server.isOk()) << server.status().toString();
  return server.isOk() ? std::move(server).value() : nullptr;
}

/// Answers with the client identity the server saw: "<cn>|<o>,<o>" or "anonymous".
Handler identityHandler() {
  return [](const Request& request, ResponseWriter& writer) {
    std::string body = "anonymous";
    if (request.clientCommonName) {
      body = *request.clientCommonName + "|";
      for (const std::string& group : request.clientOrganizations) body += group + ",";
    }
    writer.send(200, {{"Content-Type", "text/plain"}}, body);
  };
}

std::optional<testing::Response> get(TestConnection& connection, const std::string& target) {
  if (!connection.sendAll(testing::getRequest(target))) return std::nullopt;
  return connection.readResponse();
}

// Verifies the digests against the FIPS 180-2 examples for "abc".
TEST(Digests, KnownAnswers) {
  EXPECT_EQ(ossl::sha256Hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(ossl::sha512Hex("abc"),
            "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
            "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f");
}

// Verifies that the generated CA is a P-256 certificate authority and that the serving
// certificate chains to it for serverAuth with the requested names, valid from an hour ago for
// about a year.
TEST(Tls, ServingCertificateChainsToItsCa) {
  const ServingCertificate serving = servingCertificate();
  auto ca = parse(serving.caCertPem);
  auto cert = parse(serving.certPem);
  ASSERT_TRUE(ca && cert);
  EXPECT_EQ(X509_check_ca(ca.get()), 1);
  EXPECT_NE(X509_get_key_usage(ca.get()) & KU_KEY_CERT_SIGN, 0u);
  EXPECT_EQ(X509_check_ca(cert.get()), 0);
  EXPECT_NE(X509_get_extended_key_usage(cert.get()) & XKU_SSL_SERVER, 0u);
  EXPECT_EQ(verify(cert.get(), ca.get(), X509_PURPOSE_SSL_SERVER), X509_V_OK);

  EXPECT_EQ(X509_check_host(cert.get(), "localhost", 0, 0, nullptr), 1);
  EXPECT_EQ(X509_check_host(cert.get(), "kubesim.test", 0, 0, nullptr), 1);
  EXPECT_EQ(X509_check_host(cert.get(), "example.com", 0, 0, nullptr), 0);
  EXPECT_EQ(X509_check_ip_asc(cert.get(), "127.0.0.1", 0), 1);
  EXPECT_EQ(X509_check_ip_asc(cert.get(), "::1", 0), 1);
  EXPECT_EQ(X509_check_ip_asc(cert.get(), "10.0.0.1", 0), 0);

  EVP_PKEY* key = X509_get0_pubkey(cert.get());
  ASSERT_NE(key, nullptr);
  char group[64] = {};
  ASSERT_EQ(EVP_PKEY_get_group_name(key, group, sizeof(group), nullptr), 1);
  EXPECT_STREQ(group, "prime256v1");

  const long long notBefore = secondsFromNow(X509_get0_notBefore(cert.get()));
  const long long notAfter = secondsFromNow(X509_get0_notAfter(cert.get()));
  EXPECT_LE(notBefore, -3500);
  EXPECT_GE(notBefore, -3700);
  EXPECT_GE(notAfter, 364LL * 86400);
  EXPECT_LE(notAfter, 366LL * 86400);

  auto key2 = ossl::readPrivateKey(serving.keyPem);
  ASSERT_TRUE(key2.isOk());
  EXPECT_EQ(X509_check_private_key(cert.get(), key2->get()), 1);

  // Serial numbers are random, so two generations differ.
  auto other = parse(servingCertificate().certPem);
  ASSERT_TRUE(other);
  EXPECT_NE(
      ASN1_INTEGER_cmp(X509_get0_serialNumber(cert.get()), X509_get0_serialNumber(other.get())), 0);
}

// Verifies that a client certificate carries the user as CN and each group as an O entry, is
// for clientAuth only and chains to the serving CA.
TEST(Tls, ClientCertificateCarriesUserAndGroups) {
  const ServingCertificate serving = servingCertificate();
  auto client = generateClientCertificate(serving, "alice", {"system:masters", "dev team"});
  ASSERT_TRUE(client.isOk()) << client.status().toString();
  auto cert = parse(client->certPem);
  auto ca = parse(serving.caCertPem);
  ASSERT_TRUE(cert && ca);
  const X509_NAME* subject = X509_get_subject_name(cert.get());
  EXPECT_EQ(ossl::nameEntries(subject, NID_commonName), std::vector<std::string>{"alice"});
  EXPECT_EQ(ossl::nameEntries(subject, NID_organizationName),
            (std::vector<std::string>{"system:masters", "dev team"}));
  EXPECT_NE(X509_get_extended_key_usage(cert.get()) & XKU_SSL_CLIENT, 0u);
  EXPECT_EQ(X509_get_extended_key_usage(cert.get()) & XKU_SSL_SERVER, 0u);
  EXPECT_EQ(verify(cert.get(), ca.get(), X509_PURPOSE_SSL_CLIENT), X509_V_OK);
}

// Verifies that bad input is reported as an error value rather than a broken certificate.
TEST(Tls, BadInputIsAnError) {
  auto badIp = generateServingCertificate({"localhost"}, {"not-an-ip"});
  ASSERT_FALSE(badIp.isOk());
  EXPECT_TRUE(badIp.status().isInvalid()) << badIp.status().toString();

  ServingCertificate broken = servingCertificate();
  broken.caKeyPem = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n";
  auto client = generateClientCertificate(broken, "bob", {});
  ASSERT_FALSE(client.isOk());
  EXPECT_TRUE(client.status().isInternal());
  EXPECT_NE(client.status().message().find("private key"), std::string::npos)
      << client.status().message();

  // The CA key of another CA does not match the CA certificate.
  ServingCertificate mismatched = servingCertificate();
  mismatched.caKeyPem = servingCertificate().caKeyPem;
  auto mismatch = generateClientCertificate(mismatched, "bob", {});
  ASSERT_FALSE(mismatch.isOk());
  EXPECT_TRUE(mismatch.status().isInternal());

  ServerOptions options;
  options.tls = ServingCertificate{"x", "x", "not a certificate", "not a key"};
  auto server = Server::start(options, identityHandler());
  ASSERT_FALSE(server.isOk());
  EXPECT_TRUE(server.status().isInternal());
}

// Verifies that HTTPS works with the generated certificate, verified by the generated CA for
// IP 127.0.0.1 and for DNS localhost, with ALPN settling on http/1.1 even when h2 is offered,
// and that a name outside the certificate fails verification.
TEST(TlsServer, HttpsVerifiedByGeneratedCa) {
  const ServingCertificate serving = servingCertificate();
  auto server = startTlsServer(serving, identityHandler());
  ASSERT_NE(server, nullptr);

  TlsClientOptions byIp;
  byIp.caPem = serving.caCertPem;
  byIp.verifyIp = "127.0.0.1";
  std::string error;
  auto ipClient = TestConnection::connectTls(server->port(), byIp, &error);
  ASSERT_NE(ipClient, nullptr) << error;
  EXPECT_EQ(ipClient->alpn(), "http/1.1");
  auto response = get(*ipClient, "/version");
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, "anonymous");
  // Keep-alive works over TLS as well.
  auto again = get(*ipClient, "/version");
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->status, 200);

  TlsClientOptions byDns;
  byDns.caPem = serving.caCertPem;
  byDns.verifyDns = "localhost";
  byDns.alpn = {};
  auto dnsClient = TestConnection::connectTls(server->port(), byDns, &error);
  ASSERT_NE(dnsClient, nullptr) << error;
  EXPECT_EQ(dnsClient->alpn(), "");
  response = get(*dnsClient, "/version");
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 200);

  TlsClientOptions wrongName = byDns;
  wrongName.verifyDns = "example.com";
  EXPECT_EQ(TestConnection::connectTls(server->port(), wrongName), nullptr);

  TlsClientOptions wrongCa = byIp;
  wrongCa.caPem = servingCertificate().caCertPem;
  EXPECT_EQ(TestConnection::connectTls(server->port(), wrongCa), nullptr);
}

// Verifies that a client certificate signed by the client CA is reported as the request's
// identity, while one from a different CA, or none, leaves the request anonymous.
TEST(TlsServer, ClientCertificateIdentity) {
  const ServingCertificate serving = servingCertificate();
  auto server = startTlsServer(serving, identityHandler(), serving.caCertPem);
  ASSERT_NE(server, nullptr);
  auto alice = generateClientCertificate(serving, "alice", {"system:masters", "dev"});
  ASSERT_TRUE(alice.isOk());
  const ServingCertificate stranger = servingCertificate();
  auto mallory = generateClientCertificate(stranger, "mallory", {"system:masters"});
  ASSERT_TRUE(mallory.isOk());

  struct Case {
    std::string certPem;
    std::string keyPem;
    std::string want;
  };
  const std::vector<Case> cases = {
      {alice->certPem, alice->keyPem, "alice|system:masters,dev,"},
      {mallory->certPem, mallory->keyPem, "anonymous"},
      {"", "", "anonymous"},
  };
  for (const Case& c : cases) {
    TlsClientOptions options;
    options.caPem = serving.caCertPem;
    options.verifyIp = "127.0.0.1";
    options.certPem = c.certPem;
    options.keyPem = c.keyPem;
    std::string error;
    auto client = TestConnection::connectTls(server->port(), options, &error);
    ASSERT_NE(client, nullptr) << error;
    auto response = get(*client, "/api");
    ASSERT_TRUE(response.has_value()) << c.want;
    EXPECT_EQ(response->status, 200);
    EXPECT_EQ(response->body, c.want);
  }
}

// Verifies that streaming and closed() work over TLS: chunks arrive, and a client that goes
// away is noticed without consuming TLS records.
TEST(TlsServer, StreamingAndClosedOverTls) {
  const ServingCertificate serving = servingCertificate();
  Mailbox<bool> sawClose;
  auto server = startTlsServer(serving, [&](const Request&, ResponseWriter& writer) {
    writer.startStream(200, {});
    writer.write("first");
    Mailbox<int> events;
    const auto deadline = std::chrono::steady_clock::now() + testing::kTimeout;
    while (!writer.closed() && std::chrono::steady_clock::now() < deadline) {
      (void)events.take(5ms);
    }
    sawClose.put(writer.closed());
  });
  ASSERT_NE(server, nullptr);
  TlsClientOptions options;
  options.caPem = serving.caCertPem;
  options.verifyIp = "127.0.0.1";
  auto client = TestConnection::connectTls(server->port(), options);
  ASSERT_NE(client, nullptr);
  ASSERT_TRUE(client->sendAll(testing::getRequest("/watch")));
  auto head = client->readHead();
  ASSERT_TRUE(head.has_value());
  EXPECT_EQ(head->header("transfer-encoding"), "chunked");
  EXPECT_EQ(client->readChunk(), "first");
  client->close();
  EXPECT_EQ(sawClose.take(), true);
}

// Verifies that a failed handshake closes only that connection and the server keeps serving.
TEST(TlsServer, HandshakeFailureClosesOnlyThatConnection) {
  const ServingCertificate serving = servingCertificate();
  auto server = startTlsServer(serving, identityHandler());
  ASSERT_NE(server, nullptr);
  auto plain = TestConnection::connect(server->port());
  ASSERT_NE(plain, nullptr);
  ASSERT_TRUE(plain->sendAll(testing::getRequest("/not-tls")));
  EXPECT_FALSE(plain->readResponse().has_value());

  TlsClientOptions options;
  options.caPem = serving.caCertPem;
  options.verifyIp = "127.0.0.1";
  auto client = TestConnection::connectTls(server->port(), options);
  ASSERT_NE(client, nullptr);
  auto response = get(*client, "/ok");
  ASSERT_TRUE(response.has_value());
  EXPECT_EQ(response->status, 200);
}

/// The path of `program` on PATH, or "" when it is not installed.
std::string findProgram(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string_view dirs = path == nullptr ? "/usr/bin:/bin" : path;
  while (!dirs.empty()) {
    const std::size_t colon = dirs.find(':');
    const std::filesystem::path candidate = std::filesystem::path(dirs.substr(0, colon)) / program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    if (colon == std::string_view::npos) break;
    dirs.remove_prefix(colon + 1);
  }
  return "";
}

// Verifies interoperability with curl: it verifies the server against the CA, negotiates
// HTTP/1.1 and presents a client certificate that the server reports.
TEST(TlsServer, CurlInterop) {
  const std::string curl = findProgram("curl");
  if (curl.empty()) GTEST_SKIP() << "curl is not installed";
  const ServingCertificate serving = servingCertificate();
  auto alice = generateClientCertificate(serving, "alice", {"dev"});
  ASSERT_TRUE(alice.isOk());
  auto server = startTlsServer(serving, identityHandler(), serving.caCertPem);
  ASSERT_NE(server, nullptr);

  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("kubesim-http-curl-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto write = [&](const char* name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  const std::string ca = write("ca.pem", serving.caCertPem);
  const std::string cert = write("client.pem", alice->certPem);
  const std::string key = write("client-key.pem", alice->keyPem);

  const std::string command = curl + " --silent --show-error --max-time 10 --cacert " + ca +
                              " --cert " + cert + " --key " + key +
                              " --write-out ' %{http_code} %{http_version}' https://localhost:" +
                              std::to_string(server->port()) + "/api?q=a+b 2>&1";
  std::string output;
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  char buf[512];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof(buf), pipe)) > 0;) output.append(buf, n);
  const int status = ::pclose(pipe);
  std::filesystem::remove_all(dir);
  EXPECT_EQ(status, 0) << output;
  EXPECT_EQ(output, "alice|dev, 200 1.1");
}

}  // namespace
}  // namespace hetbench::http
