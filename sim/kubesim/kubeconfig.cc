#include "kubeconfig.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "hetbench/common/base64.h"

namespace hetbench::kubesim {
std::string renderKubeconfig(const KubeconfigSpec& spec) {
  std::string out = "apiVersion: v1\nkind: Config\nclusters:\n- name: kubesim\n  cluster:\n";
  out += "    server: " + spec.server + "\n";
  if (!spec.caPem.empty())
    out += "    certificate-authority-data: " + common::base64Encode(spec.caPem) + "\n";
  out += "contexts:\n- name: kubesim\n  context:\n    cluster: kubesim\n    user: kubesim\n";
  out += "    namespace: default\ncurrent-context: kubesim\nusers:\n- name: kubesim\n  user:";
  bool any = false;
  if (!spec.token.empty()) {
    out += "\n    token: " + spec.token;
    any = true;
  }
  if (!spec.clientCertPem.empty()) {
    out += "\n    client-certificate-data: " + common::base64Encode(spec.clientCertPem);
    out += "\n    client-key-data: " + common::base64Encode(spec.clientKeyPem);
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
