#include "hetbench/http/transport.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <cerrno>
#include <cstring>

#include "hetbench/http/openssl_util.h"

namespace hetbench::http::detail {
namespace {

class PlainTransport : public Transport {
 public:
  explicit PlainTransport(int fd) : fd_(fd) {}

  std::size_t read(char* data, std::size_t size) override {
    for (;;) {
      const ssize_t n = ::recv(fd_, data, size, 0);
      if (n >= 0) return static_cast<std::size_t>(n);
      if (errno != EINTR) return 0;
    }
  }

  bool writeAll(std::string_view data) override {
    while (!data.empty()) {
      const ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EINTR) continue;
        return false;
      }
      data.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }

 private:
  int fd_;
};

class TlsTransport : public Transport {
 public:
  explicit TlsTransport(ossl::SslPtr ssl) : ssl_(std::move(ssl)) {}

  std::size_t read(char* data, std::size_t size) override {
    if (failed_) return 0;
    ERR_clear_error();
    std::size_t got = 0;
    if (SSL_read_ex(ssl_.get(), data, size, &got) == 1) return got;
    noteFailure(SSL_get_error(ssl_.get(), 0));
    return 0;
  }

  bool writeAll(std::string_view data) override {
    if (failed_) return false;
    while (!data.empty()) {
      ERR_clear_error();
      std::size_t written = 0;
      if (SSL_write_ex(ssl_.get(), data.data(), data.size(), &written) != 1) {
        noteFailure(SSL_get_error(ssl_.get(), 0));
        return false;
      }
      data.remove_prefix(written);
    }
    return true;
  }

  void finish() override {
    // OpenSSL forbids SSL_shutdown after a fatal error, and a second call would wait for the
    // peer's close_notify.
    if (!failed_ && !finished_) {
      ERR_clear_error();
      (void)SSL_shutdown(ssl_.get());
    }
    finished_ = true;
    ERR_clear_error();
  }

 private:
  void noteFailure(int sslError) {
    // A clean close_notify from the peer still allows ours; anything else is fatal.
    if (sslError != SSL_ERROR_ZERO_RETURN) failed_ = true;
    ERR_clear_error();
  }

  ossl::SslPtr ssl_;
  bool failed_ = false;
  bool finished_ = false;
};

/// Selects http/1.1 when the client offers it; a client that offers only h2 gets no ALPN answer
/// and then speaks HTTP/1.1 anyway or gives up.
int selectAlpn(SSL* /*ssl*/, const unsigned char** out, unsigned char* outLength,
               const unsigned char* in, unsigned int inLength, void* /*arg*/) {
  static constexpr std::string_view kHttp11 = "http/1.1";
  unsigned int i = 0;
  while (i < inLength) {
    const unsigned int length = in[i];
    if (length == 0 || length > inLength - i - 1) break;
    const std::string_view name(reinterpret_cast<const char*>(in + i + 1), length);
    if (name == kHttp11) {
      *out = in + i + 1;
      *outLength = static_cast<unsigned char>(length);
      return SSL_TLSEXT_ERR_OK;
    }
    i += 1 + length;
  }
  return SSL_TLSEXT_ERR_NOACK;
}

/// Accepts every chain during the handshake: like kube-apiserver, an unverifiable client
/// certificate leaves the request anonymous instead of failing the connection. The outcome is
/// read afterwards with SSL_get_verify_result.
int acceptAnyChain(int /*preverifyOk*/, X509_STORE_CTX* /*ctx*/) { return 1; }

class OpenSslContext : public TlsContext {
 public:
  OpenSslContext(ossl::SslCtxPtr ctx, bool verifyClients)
      : ctx_(std::move(ctx)), verifyClients_(verifyClients) {}

  std::unique_ptr<Transport> accept(int fd, PeerIdentity& identity) override {
    ERR_clear_error();
    ossl::SslPtr ssl(SSL_new(ctx_.get()));
    if (!ssl || SSL_set_fd(ssl.get(), fd) != 1 || SSL_accept(ssl.get()) != 1) {
      ERR_clear_error();
      return nullptr;
    }
    if (verifyClients_) {
      X509* peer = SSL_get0_peer_certificate(ssl.get());
      if (peer != nullptr && SSL_get_verify_result(ssl.get()) == X509_V_OK) {
        const X509_NAME* subject = X509_get_subject_name(peer);
        std::vector<std::string> names = ossl::nameEntries(subject, NID_commonName);
        if (!names.empty()) identity.commonName = names.back();
        identity.organizations = ossl::nameEntries(subject, NID_organizationName);
      }
    }
    return std::make_unique<TlsTransport>(std::move(ssl));
  }

 private:
  ossl::SslCtxPtr ctx_;
  bool verifyClients_;
};

common::Status configureClientVerification(SSL_CTX* ctx, const std::string& clientCaPem) {
  HETBENCH_ASSIGN_OR_RETURN(std::vector<ossl::X509Ptr> cas, ossl::readCertificates(clientCaPem));
  X509_STORE* store = SSL_CTX_get_cert_store(ctx);
  STACK_OF(X509_NAME)* names = sk_X509_NAME_new_null();
  if (names == nullptr) return ossl::error("sk_X509_NAME_new_null");
  for (const ossl::X509Ptr& ca : cas) {
    X509_NAME* name = X509_NAME_dup(X509_get_subject_name(ca.get()));
    if (X509_STORE_add_cert(store, ca.get()) != 1 || name == nullptr ||
        sk_X509_NAME_push(names, name) == 0) {
      X509_NAME_free(name);
      sk_X509_NAME_pop_free(names, X509_NAME_free);
      return ossl::error("adding a client CA");
    }
  }
  // Tells clients (Go's among them) which CAs their certificate must chain to.
  SSL_CTX_set_client_CA_list(ctx, names);
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, acceptAnyChain);
  return common::okStatus();
}

common::Result<std::unique_ptr<TlsContext>> createContext(const ServingCertificate& cert,
                                                          const std::string& clientCaPem) {
  ossl::SslCtxPtr ctx(SSL_CTX_new(TLS_server_method()));
  if (!ctx) return ossl::error("SSL_CTX_new");
  if (SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION) != 1) {
    return ossl::error("SSL_CTX_set_min_proto_version");
  }
  HETBENCH_ASSIGN_OR_RETURN(std::vector<ossl::X509Ptr> chain, ossl::readCertificates(cert.certPem));
  HETBENCH_ASSIGN_OR_RETURN(ossl::PkeyPtr key, ossl::readPrivateKey(cert.keyPem));
  if (SSL_CTX_use_certificate(ctx.get(), chain.front().get()) != 1) {
    return ossl::error("SSL_CTX_use_certificate");
  }
  for (std::size_t i = 1; i < chain.size(); ++i) {
    if (SSL_CTX_add1_chain_cert(ctx.get(), chain[i].get()) != 1) {
      return ossl::error("SSL_CTX_add1_chain_cert");
    }
  }
  if (SSL_CTX_use_PrivateKey(ctx.get(), key.get()) != 1 ||
      SSL_CTX_check_private_key(ctx.get()) != 1) {
    return ossl::error("using the serving key");
  }
  // Session resumption with client verification needs a session id context.
  static constexpr unsigned char kSessionContext[] = "hetbench";
  if (SSL_CTX_set_session_id_context(ctx.get(), kSessionContext, sizeof(kSessionContext) - 1) !=
      1) {
    return ossl::error("SSL_CTX_set_session_id_context");
  }
  SSL_CTX_set_alpn_select_cb(ctx.get(), selectAlpn, nullptr);
  const bool verifyClients = !clientCaPem.empty();
  if (verifyClients) HETBENCH_RETURN_IF_ERROR(configureClientVerification(ctx.get(), clientCaPem));
  return std::unique_ptr<TlsContext>(
      std::make_unique<OpenSslContext>(std::move(ctx), verifyClients));
}

}  // namespace

std::unique_ptr<Transport> makePlainTransport(int fd) {
  return std::make_unique<PlainTransport>(fd);
}

common::Result<std::unique_ptr<TlsContext>> TlsContext::create(const ServingCertificate& cert,
                                                               const std::string& clientCaPem) {
  ERR_clear_error();
  common::Result<std::unique_ptr<TlsContext>> result = createContext(cert, clientCaPem);
  ERR_clear_error();
  return result;
}

}  // namespace hetbench::http::detail
