#include "src/client/rest_config.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace ksched::client {
namespace {

constexpr char kKubeconfig[] = R"(apiVersion: v1
kind: Config
current-context: dev
clusters:
- name: local
  cluster:
    server: https://127.0.0.1:6443/
    certificate-authority-data: Q0EgUEVN
- name: remote
  cluster:
    server: https://10.0.0.1:443
    certificate-authority: certs/ca.crt
    insecure-skip-tls-verify: true
users:
- name: admin
  user:
    token: secret-token
- name: cert-user
  user:
    client-certificate: /abs/client.crt
    client-key-data: S0VZ
contexts:
- name: dev
  context: {cluster: local, user: admin}
- name: prod
  context: {cluster: remote, user: cert-user}
- name: broken
  context: {cluster: nowhere, user: admin}
)";

TEST(RestConfigTest, CurrentContextGivesServerCaAndToken) {
  absl::StatusOr<RestConfig> c = ParseKubeconfig(kKubeconfig, "kc", "/home/me/.kube", "");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->server, "https://127.0.0.1:6443");
  EXPECT_EQ(c->ca_data, "CA PEM");
  EXPECT_EQ(c->token, "secret-token");
  EXPECT_FALSE(c->insecure_skip_tls_verify);
}

TEST(RestConfigTest, NamedContextResolvesRelativeFilesAndDecodesKeyData) {
  absl::StatusOr<RestConfig> c = ParseKubeconfig(kKubeconfig, "kc", "/home/me/.kube", "prod");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->server, "https://10.0.0.1:443");
  EXPECT_EQ(c->ca_file, "/home/me/.kube/certs/ca.crt");
  EXPECT_TRUE(c->insecure_skip_tls_verify);
  EXPECT_EQ(c->cert_file, "/abs/client.crt");
  EXPECT_EQ(c->key_data, "KEY");
  EXPECT_TRUE(c->token.empty());
}

TEST(RestConfigTest, ErrorsNameTheFileAndWhatIsMissing) {
  EXPECT_EQ(ParseKubeconfig(kKubeconfig, "kc", "", "staging").status().message(),
            "kc: context \"staging\" does not exist");
  EXPECT_EQ(ParseKubeconfig(kKubeconfig, "kc", "", "broken").status().message(),
            "kc: invalid configuration: context \"broken\": cluster \"nowhere\" does not exist");
  EXPECT_EQ(ParseKubeconfig("clusters: [", "kc", "", "").status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseKubeconfig("apiVersion: v1\n", "kc", "", "").status().message(),
            "kc: invalid configuration: no configuration has been provided, try setting "
            "KUBERNETES_MASTER environment variable");
  EXPECT_EQ(LoadKubeconfig("/nonexistent/kubeconfig", "").status().message(),
            "open /nonexistent/kubeconfig: no such file or directory");
}

TEST(RestConfigTest, BadBase64IsNamed) {
  std::string text = R"(current-context: c
clusters: [{name: x, cluster: {server: "https://a", certificate-authority-data: "!!!"}}]
contexts: [{name: c, context: {cluster: x}}]
)";
  EXPECT_EQ(ParseKubeconfig(text, "kc", "", "").status().message(),
            "kc: clusters[x].cluster.certificate-authority-data: illegal base64 data");
}

TEST(RestConfigTest, InClusterNeedsTheServiceVariablesAndToken) {
  unsetenv("KUBERNETES_SERVICE_HOST");
  unsetenv("KUBERNETES_SERVICE_PORT");
  EXPECT_EQ(InClusterConfig("/nonexistent").status().message(),
            "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and "
            "KUBERNETES_SERVICE_PORT must be defined");

  std::filesystem::path dir = std::filesystem::temp_directory_path() / "ksched-sa-test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "token") << "tok\n";
  setenv("KUBERNETES_SERVICE_HOST", "fd00::1", 1);
  setenv("KUBERNETES_SERVICE_PORT", "443", 1);
  absl::StatusOr<RestConfig> c = InClusterConfig(dir.string());
  unsetenv("KUBERNETES_SERVICE_HOST");
  unsetenv("KUBERNETES_SERVICE_PORT");
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->server, "https://[fd00::1]:443");
  EXPECT_EQ(c->token_file, (dir / "token").string());
  EXPECT_EQ(c->ca_file, (dir / "ca.crt").string());
  std::filesystem::remove_all(dir);
}

TEST(RestConfigTest, MasterOverridesTheKubeconfigsServerOrStandsAlone) {
  std::filesystem::path file = std::filesystem::temp_directory_path() / "ksched-master-test.yaml";
  std::ofstream(file) << kKubeconfig;
  unsetenv("KUBECONFIG");
  absl::StatusOr<RestConfig> c =
      LoadRestConfig({.kubeconfig = file.string(), .master = "https://10.1.2.3:6443/"});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->server, "https://10.1.2.3:6443");
  EXPECT_EQ(c->token, "secret-token");  // The rest of the kubeconfig stays.
  std::filesystem::remove(file);
  // No kubeconfig: the address alone, no service account, as client-go's BuildConfigFromFlags.
  unsetenv("KUBERNETES_SERVICE_HOST");
  c = LoadRestConfig({.master = "http://127.0.0.1:8080"});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(c->server, "http://127.0.0.1:8080");
  EXPECT_TRUE(c->token.empty() && c->token_file.empty());
}

}  // namespace
}  // namespace ksched::client
