#include "kubeconfig.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace hetbench::kubesim {
namespace {

std::string base64(const std::string& in) {
  static const char* chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const unsigned v = static_cast<unsigned char>(in[i]) << 16 |
                       static_cast<unsigned char>(in[i + 1]) << 8 |
                       static_cast<unsigned char>(in[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out += chars[(v >> s) & 63];
  }
  if (i < in.size()) {
    unsigned v = static_cast<unsigned char>(in[i]) << 16;
    if (i + 1 < in.size()) v |= static_cast<unsigned char>(in[i + 1]) << 8;
    out += chars[(v >> 18) & 63];
    out += chars[(v >> 12) & 63];
    out += i + 1 < in.size() ? chars[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

}  // namespace

std::string renderKubeconfig(const KubeconfigSpec& spec) {
  std::string out = "apiVersion: v1\nkind: Config\nclusters:\n- name: kubesim\n  cluster:\n";
  out += "    server: " + spec.server + "\n";
  if (!spec.caPem.empty()) out += "    certificate-authority-data: " + base64(spec.caPem) + "\n";
  out += "contexts:\n- name: kubesim\n  context:\n    cluster: kubesim\n    user: kubesim\n";
  out += "    namespace: default\ncurrent-context: kubesim\nusers:\n- name: kubesim\n  user:";
  bool any = false;
  if (!spec.token.empty()) {
    out += "\n    token: " + spec.token;
    any = true;
  }
  if (!spec.clientCertPem.empty()) {
    out += "\n    client-certificate-data: " + base64(spec.clientCertPem);
    out += "\n    client-key-data: " + base64(spec.clientKeyPem);
    any = true;
  }
  out += any ? "\n" : " {}\n";
  return out;
}

common::Status writeFileAtomically(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    return common::invalidError("cannot write " + tmp + ": " + std::strerror(errno));
  }
  std::size_t done = 0;
  while (done < content.size()) {
    const ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      ::close(fd);
      return common::invalidError("cannot write " + tmp + ": " + std::strerror(errno));
    }
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    return common::invalidError("cannot rename " + tmp + " to " + path + ": " +
                                std::strerror(errno));
  }
  return common::okStatus();
}

}  // namespace hetbench::kubesim
