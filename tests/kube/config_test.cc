#include "hetbench/kube/config.h"

#include <gtest/gtest.h>

#include "temp_dir.h"

namespace hetbench::kube {
namespace {

using testing_support::kFixtures;
using testing_support::TempDir;

const std::string kCa = "-----BEGIN CERTIFICATE-----\nMIIBFAKE\n-----END CERTIFICATE-----\n";
// base64 of kCa.
const std::string kCaData =
    "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJGQUtFCi0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0K";

KubeconfigSource sourceOf(std::string explicitPath, std::string kubeconfigEnv = "",
                          std::string home = "", std::string context = "") {
  KubeconfigSource out;
  out.explicitPath = std::move(explicitPath);
  out.kubeconfigEnv = std::move(kubeconfigEnv);
  out.home = std::move(home);
  out.context = std::move(context);
  return out;
}

std::string fixture(const std::string& name) { return std::string(kFixtures) + "/" + name; }

std::string readAll(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A kubeconfig with one context "main" on cluster "c" and user "u".
std::string oneContext(const std::string& cluster, const std::string& user,
                       const std::string& context = "    cluster: c\n    user: u\n") {
  return "current-context: main\nclusters:\n- name: c\n  cluster:\n" + cluster +
         "users:\n- name: u\n  user:\n" + user + "contexts:\n- name: main\n  context:\n" + context;
}

// Verifies that $KUBECONFIG files merge first-wins for entries and current-context, skipping
// missing files, and that relative paths resolve against the file that named them.
TEST(KubeconfigTest, MergesKubeconfigFilesFirstWins) {
  KubeconfigSource source;
  source.kubeconfigEnv =
      "/nonexistent/config:" + fixture("merged/first.yaml") + ":" + fixture("merged/second.yaml");
  auto config = loadKubeconfig(source);
  ASSERT_TRUE(config.isOk()) << config.status().toString();
  EXPECT_EQ(config->contextName, "first");
  EXPECT_EQ(config->server, "https://first.example:6443");
  EXPECT_EQ(config->token, "alice-from-first");
  EXPECT_EQ(config->namespace_, "team-a");
  EXPECT_EQ(config->caPem, readAll(fixture("ca.pem")));
}

// Verifies that --context picks a context, here one only the second file defines, whose
// cluster and user come from whichever file defined them first.
TEST(KubeconfigTest, SelectsContextByName) {
  KubeconfigSource source;
  source.kubeconfigEnv = fixture("merged/first.yaml") + ":" + fixture("merged/second.yaml");
  source.context = "second";
  auto config = loadKubeconfig(source);
  ASSERT_TRUE(config.isOk()) << config.status().toString();
  EXPECT_EQ(config->contextName, "second");
  EXPECT_EQ(config->server, "https://other.example");
  EXPECT_TRUE(config->insecureSkipTlsVerify);
  EXPECT_EQ(config->tlsServerName, "api.other.example");
  EXPECT_EQ(config->token, "alice-from-first");
  EXPECT_EQ(config->namespace_, "default");
}

// Verifies that --kubeconfig wins over $KUBECONFIG and $HOME, and $HOME/.kube/config is the
// fallback.
TEST(KubeconfigTest, ExplicitPathThenEnvThenHome) {
  TempDir home;
  home.write(".kube/config", oneContext("    server: https://home\n", "    token: t\n"));
  KubeconfigSource source;
  source.home = home.path();
  auto fromHome = loadKubeconfig(source);
  ASSERT_TRUE(fromHome.isOk()) << fromHome.status().toString();
  EXPECT_EQ(fromHome->server, "https://home");

  source.kubeconfigEnv = fixture("merged/second.yaml");
  auto fromEnv = loadKubeconfig(source);
  ASSERT_TRUE(fromEnv.isOk()) << fromEnv.status().toString();
  EXPECT_EQ(fromEnv->contextName, "second");

  source.explicitPath = fixture("merged/first.yaml");
  auto explicitConfig = loadKubeconfig(source);
  ASSERT_TRUE(explicitConfig.isOk()) << explicitConfig.status().toString();
  EXPECT_EQ(explicitConfig->server, "https://first.example:6443");
}

// Verifies that file fields (relative to the kubeconfig's directory) and base64 -data fields
// give the same content, and that exec plugins, token files and namespaces are read.
TEST(KubeconfigTest, ReadsFileAndDataFields) {
  TempDir dir;
  dir.write("conf/pki/ca.pem", kCa);
  dir.write("conf/pki/client.pem", "CERT");
  dir.write("conf/pki/client-key.pem", "KEY");
  dir.write("conf/token", "file-token\n");
  const std::string path = dir.write(
      "conf/config",
      oneContext("    server: https://a\n    certificate-authority: pki/ca.pem\n",
                 "    client-certificate: pki/client.pem\n    client-key: pki/client-key.pem\n"
                 "    tokenFile: token\n",
                 "    cluster: c\n    user: u\n    namespace: ns1\n"));
  auto fromFiles = loadKubeconfig(sourceOf(path));
  ASSERT_TRUE(fromFiles.isOk()) << fromFiles.status().toString();
  EXPECT_EQ(fromFiles->caPem, kCa);
  EXPECT_EQ(fromFiles->clientCertPem, "CERT");
  EXPECT_EQ(fromFiles->clientKeyPem, "KEY");
  EXPECT_EQ(fromFiles->tokenFile, dir.path() + "/conf/token");
  EXPECT_EQ(fromFiles->namespace_, "ns1");

  const std::string dataPath = dir.write(
      "data-config",
      oneContext("    server: https://a\n    certificate-authority-data: " + kCaData + "\n",
                 "    client-certificate-data: Q0VSVA==\n    client-key-data: S0VZ\n"));
  auto fromData = loadKubeconfig(sourceOf(dataPath));
  ASSERT_TRUE(fromData.isOk()) << fromData.status().toString();
  EXPECT_EQ(fromData->caPem, kCa);
  EXPECT_EQ(fromData->clientCertPem, "CERT");
  EXPECT_EQ(fromData->clientKeyPem, "KEY");
}

// Verifies the exec section: a command path resolves against the kubeconfig, a bare name is
// left for $PATH, and v1beta1 defaults interactiveMode.
TEST(KubeconfigTest, ReadsExecPlugin) {
  TempDir dir;
  const std::string path = dir.write(
      "config", oneContext("    server: https://a\n",
                           "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
                           "      command: ./bin/plugin\n      args: [get-token, --x]\n"
                           "      env:\n      - name: A\n        value: b\n"
                           "      interactiveMode: Never\n"));
  auto config = loadKubeconfig(sourceOf(path));
  ASSERT_TRUE(config.isOk()) << config.status().toString();
  ASSERT_TRUE(config->exec.has_value());
  EXPECT_EQ(config->exec->command, dir.path() + "/bin/plugin");
  EXPECT_EQ(config->exec->args, (std::vector<std::string>{"get-token", "--x"}));
  EXPECT_EQ(config->exec->env, (std::vector<std::pair<std::string, std::string>>{{"A", "b"}}));
  EXPECT_EQ(config->exec->interactiveMode, "Never");

  const std::string beta = dir.write(
      "beta", oneContext("    server: https://a\n",
                         "    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n"
                         "      command: aws\n"));
  auto betaConfig = loadKubeconfig(sourceOf(beta));
  ASSERT_TRUE(betaConfig.isOk()) << betaConfig.status().toString();
  EXPECT_EQ(betaConfig->exec->command, "aws");
  EXPECT_EQ(betaConfig->exec->interactiveMode, "IfAvailable");
}

struct BrokenCase {
  std::string name;
  std::string content;   // written to {dir}/config
  std::string expected;  // the whole message; {dir} is the temp directory
};

// Verifies that each broken kubeconfig gives one Invalid message naming the file and field.
TEST(KubeconfigTest, BrokenFilesNameFileAndField) {
  const std::string server = "    server: https://a\n";
  const std::string token = "    token: t\n";
  const std::string execHead = "    exec:\n      command: aws\n      interactiveMode: Never\n";
  const std::vector<BrokenCase> cases = {
      {"yaml syntax", "clusters:\n- name: [c\n  foo: bar\n",
       "{dir}/config: line 3: invalid YAML: end of sequence flow not found"},
      {"no context", "clusters: []\n",
       "{dir}/config: no context: current-context is not set and no context was given"},
      {"unknown current-context", "current-context: nope\n",
       "{dir}/config: current-context: context \"nope\" not found"},
      {"unknown cluster", oneContext(server, token, "    cluster: x\n    user: u\n"),
       "{dir}/config: contexts[\"main\"].context.cluster: cluster \"x\" not found"},
      {"unknown user", oneContext(server, token, "    cluster: c\n    user: x\n"),
       "{dir}/config: contexts[\"main\"].context.user: user \"x\" not found"},
      {"missing server", oneContext("    insecure-skip-tls-verify: true\n", token),
       "{dir}/config: clusters[\"c\"].cluster.server: missing"},
      {"bad base64", oneContext(server + "    certificate-authority-data: '%%%'\n", token),
       "{dir}/config: clusters[\"c\"].cluster.certificate-authority-data: invalid base64"},
      {"ca not pem", oneContext(server + "    certificate-authority-data: aGVsbG8=\n", token),
       "{dir}/config: clusters[\"c\"].cluster.certificate-authority-data: not a PEM "
       "certificate"},
      {"missing ca file", oneContext(server + "    certificate-authority: ca.pem\n", token),
       "{dir}/config: clusters[\"c\"].cluster.certificate-authority: file \"{dir}/ca.pem\" not "
       "found"},
      {"insecure with ca",
       oneContext(server + "    insecure-skip-tls-verify: true\n    certificate-authority-data: " +
                      kCaData + "\n",
                  token),
       "{dir}/config: clusters[\"c\"].cluster.insecure-skip-tls-verify: cannot be combined "
       "with a certificate authority"},
      {"missing key file",
       oneContext(server, "    client-certificate-data: Q0VSVA==\n    client-key: /x/key.pem\n"),
       "{dir}/config: users[\"u\"].user.client-key: file \"/x/key.pem\" not found"},
      {"cert without key", oneContext(server, "    client-certificate-data: Q0VSVA==\n"),
       "{dir}/config: users[\"u\"].user.client-key: missing (client-certificate needs a key)"},
      {"missing token file", oneContext(server, "    tokenFile: tok\n"),
       "{dir}/config: users[\"u\"].user.tokenFile: file \"{dir}/tok\" not found"},
      {"basic auth", oneContext(server, "    username: admin\n    password: secret\n"),
       "{dir}/config: users[\"u\"].user.username: basic authentication is not supported"},
      {"auth provider", oneContext(server, "    auth-provider:\n      name: oidc\n"),
       "{dir}/config: users[\"u\"].user.auth-provider: not supported; use an exec plugin"},
      {"exec bad apiVersion",
       oneContext(server, execHead + "      apiVersion: client.authentication.k8s.io/v1alpha1\n"),
       "{dir}/config: users[\"u\"].user.exec.apiVersion: unsupported "
       "\"client.authentication.k8s.io/v1alpha1\" (want client.authentication.k8s.io/v1 or "
       "client.authentication.k8s.io/v1beta1)"},
      {"exec v1 without interactiveMode",
       oneContext(server,
                  "    exec:\n      command: aws\n"
                  "      apiVersion: client.authentication.k8s.io/v1\n"),
       "{dir}/config: users[\"u\"].user.exec.interactiveMode: missing"},
      {"exec env without name",
       oneContext(server, execHead + "      apiVersion: client.authentication.k8s.io/v1\n"
                                     "      env:\n      - value: x\n"),
       "{dir}/config: users[\"u\"].user.exec.env[0].name: missing"},
      {"duplicate names", "clusters:\n- name: c\n  cluster: {}\n- name: c\n  cluster: {}\n",
       "{dir}/config: clusters[1].name: duplicate \"c\""},
      {"not a mapping", "- a\n- b\n",
       "{dir}/config: not a kubeconfig (the top level must be a mapping)"},
  };
  for (const auto& c : cases) {
    TempDir dir;
    const std::string path = dir.write("config", c.content);
    auto config = loadKubeconfig(sourceOf(path));
    std::string expected = c.expected;
    for (auto pos = expected.find("{dir}"); pos != std::string::npos;
         pos = expected.find("{dir}")) {
      expected.replace(pos, 5, dir.path());
    }
    ASSERT_FALSE(config.isOk()) << c.name;
    EXPECT_TRUE(config.status().isInvalid()) << c.name;
    EXPECT_EQ(config.status().message(), expected) << c.name;
  }
}

// Verifies the errors for kubeconfig files that are not there.
TEST(KubeconfigTest, MissingFiles) {
  TempDir dir;
  auto explicitMissing = loadKubeconfig(sourceOf(dir.path() + "/nope"));
  EXPECT_EQ(explicitMissing.status().message(), dir.path() + "/nope: file not found");
  auto envMissing = loadKubeconfig(sourceOf("", dir.path() + "/a:" + dir.path() + "/b"));
  EXPECT_EQ(envMissing.status().message(),
            "KUBECONFIG=" + dir.path() + "/a:" + dir.path() + "/b: none of its files exists");
  auto homeMissing = loadKubeconfig(sourceOf("", "", dir.path()));
  EXPECT_EQ(homeMissing.status().message(), dir.path() + "/.kube/config: file not found");
  auto context = loadKubeconfig(sourceOf(fixture("merged/first.yaml"), "", "", "x"));
  EXPECT_EQ(context.status().message(),
            fixture("merged/first.yaml") + ": --context: context \"x\" not found");
}

// Verifies in-cluster config from a fake service-account directory, with an IPv6 host.
TEST(InClusterConfigTest, ReadsServiceAccount) {
  TempDir sa;
  sa.write("token", "sa-token\n");
  sa.write("ca.crt", kCa);
  sa.write("namespace", "operators\n");
  auto config = inClusterConfig(
      {{"KUBERNETES_SERVICE_HOST", "fd00::1"}, {"KUBERNETES_SERVICE_PORT", "443"}}, sa.path());
  ASSERT_TRUE(config.isOk()) << config.status().toString();
  EXPECT_EQ(config->server, "https://[fd00::1]:443");
  EXPECT_EQ(config->tokenFile, sa.path() + "/token");
  EXPECT_EQ(config->token, "");
  EXPECT_EQ(config->caPem, kCa);
  EXPECT_EQ(config->namespace_, "operators");

  auto podNamespace = inClusterConfig({{"KUBERNETES_SERVICE_HOST", "10.0.0.1"},
                                       {"KUBERNETES_SERVICE_PORT", "6443"},
                                       {"POD_NAMESPACE", "from-env"}},
                                      sa.path());
  ASSERT_TRUE(podNamespace.isOk());
  EXPECT_EQ(podNamespace->server, "https://10.0.0.1:6443");
  EXPECT_EQ(podNamespace->namespace_, "from-env");
}

// Verifies the in-cluster errors: not in a cluster, missing token or CA.
TEST(InClusterConfigTest, Errors) {
  TempDir sa;
  const std::map<std::string, std::string> env = {{"KUBERNETES_SERVICE_HOST", "10.0.0.1"},
                                                  {"KUBERNETES_SERVICE_PORT", "443"}};
  EXPECT_EQ(
      inClusterConfig({{"KUBERNETES_SERVICE_HOST", "10.0.0.1"}}, sa.path()).status().message(),
      "not running in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT "
      "must be defined");
  EXPECT_EQ(inClusterConfig(env, sa.path()).status().message(),
            "in-cluster config: " + sa.path() + "/token: not found");
  sa.write("token", "t");
  EXPECT_EQ(inClusterConfig(env, sa.path()).status().message(),
            "in-cluster config: " + sa.path() + "/ca.crt: not found");
  sa.write("ca.crt", kCa);
  auto config = inClusterConfig(env, sa.path());
  ASSERT_TRUE(config.isOk()) << config.status().toString();
  EXPECT_EQ(config->namespace_, "default");
}

}  // namespace
}  // namespace hetbench::kube
