// kubeconfig_test.cpp — the kubeconfig loader on each form real kubeconfigs use, where it looks
// ($KUBECONFIG, ~/.kube/config, the pod's service account) and in what order, and the local
// cluster's own kubeconfig when it is on this machine.
#include "kubeconfig.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "credential_sources.h"
#include "test_folder.h"

namespace vc::kubernetes {
namespace {

using testing::kCaPem;
using testing::kCaPemBase64;
using testing::kClientPem;
using testing::kClientPemBase64;
using testing::kKeyPem;
using testing::kKeyPemBase64;
using testing::TestFolder;

// A kubeconfig with one cluster, one user and one context "main", current.
std::string kubeconfig_with(const std::string& cluster_fields, const std::string& user_fields,
                            const std::string& context_extra = "") {
  return "apiVersion: v1\n"
         "kind: Config\n"
         "clusters:\n"
         "- name: c\n"
         "  cluster:\n" +
         cluster_fields +
         "users:\n"
         "- name: u\n"
         "  user:\n" +
         user_fields +
         "contexts:\n"
         "- name: main\n"
         "  context:\n"
         "    cluster: c\n"
         "    user: u\n" +
         context_extra + "current-context: main\n";
}

ConfigExpected<ApiEndpoint> load_file(const std::string& path, const std::string& context = "") {
  KubeconfigRequest request;
  request.kubeconfig_path = path;
  request.context = context;
  return load_api_endpoint(request);
}

Credentials credentials_of(const ApiEndpoint& endpoint) {
  EXPECT_NE(endpoint.credentials, nullptr);
  auto credentials = endpoint.credentials->current();
  EXPECT_TRUE(credentials.ok()) << (credentials ? "" : credentials.error().message);
  return credentials ? credentials.value() : Credentials{};
}

TEST(Kubeconfig, TokenAndCertificateAuthorityFileRelativeToTheKubeconfig) {
  TestFolder folder;
  folder.write("conf/pki/ca.crt", kCaPem);
  const auto path =
      folder.write("conf/config",
                   kubeconfig_with("    server: https://192.0.2.10:6443/\n"
                                   "    certificate-authority: pki/ca.crt\n",
                                   "    token: \"  secret-token \"\n", "    namespace: team-a\n"));
  auto endpoint = load_file(path);
  ASSERT_TRUE(endpoint) << endpoint.error().message;
  EXPECT_EQ(endpoint.value().server, "https://192.0.2.10:6443");
  EXPECT_EQ(endpoint.value().ca_pem, kCaPem);
  EXPECT_FALSE(endpoint.value().insecure_skip_tls_verify);
  EXPECT_EQ(endpoint.value().context_namespace, "team-a");
  EXPECT_EQ(endpoint.value().origin, "context \"main\" of the kubeconfig " + path);
  const Credentials credentials = credentials_of(endpoint.value());
  EXPECT_EQ(credentials.bearer_token, "secret-token");
  EXPECT_TRUE(credentials.client_certificate_pem.empty());
  EXPECT_FALSE(credentials.expires_at);
  EXPECT_EQ(endpoint.value().credentials->describe(),
            "the token of users[0] (name \"u\") of the kubeconfig " + path);
}

TEST(Kubeconfig, CertificateAuthorityDataAndClientCertificateData) {
  TestFolder folder;
  const auto path =
      folder.write("config", kubeconfig_with("    server: https://k8s.example.com/clusters/c-1\n"
                                             "    certificate-authority-data: " +
                                                 kCaPemBase64 +
                                                 "\n"
                                                 "    tls-server-name: api.internal\n",
                                             "    client-certificate-data: " + kClientPemBase64 +
                                                 "\n"
                                                 "    client-key-data: " +
                                                 kKeyPemBase64 + "\n"));
  auto endpoint = load_file(path);
  ASSERT_TRUE(endpoint) << endpoint.error().message;
  EXPECT_EQ(endpoint.value().server, "https://k8s.example.com/clusters/c-1");
  EXPECT_EQ(endpoint.value().ca_pem, kCaPem);
  EXPECT_EQ(endpoint.value().tls_server_name, "api.internal");
  EXPECT_TRUE(endpoint.value().context_namespace.empty());
  const Credentials credentials = credentials_of(endpoint.value());
  EXPECT_TRUE(credentials.bearer_token.empty());
  EXPECT_EQ(credentials.client_certificate_pem, kClientPem);
  EXPECT_EQ(credentials.client_key_pem, kKeyPem);
}

TEST(Kubeconfig, Base64DataMayBeFoldedOverLines) {
  TestFolder folder;
  const std::string folded = kCaPemBase64.substr(0, 40) + "\n      " + kCaPemBase64.substr(40);
  const auto path =
      folder.write("config", kubeconfig_with("    server: https://192.0.2.10\n"
                                             "    certificate-authority-data: >-\n      " +
                                                 folded + "\n",
                                             "    token: t\n"));
  auto endpoint = load_file(path);
  ASSERT_TRUE(endpoint) << endpoint.error().message;
  EXPECT_EQ(endpoint.value().ca_pem, kCaPem);
}

TEST(Kubeconfig, ClientCertificateAndKeyFiles) {
  TestFolder folder;
  folder.write("keys/client.crt", kClientPem);
  const auto key = folder.write("keys/client.key", kKeyPem);
  const auto path =
      folder.write("config", kubeconfig_with("    server: https://192.0.2.10\n",
                                             "    client-certificate: keys/client.crt\n"
                                             "    client-key: " +
                                                 key + "\n"));
  auto endpoint = load_file(path);
  ASSERT_TRUE(endpoint) << endpoint.error().message;
  EXPECT_TRUE(endpoint.value().ca_pem.empty());  // the system's trust store
  const Credentials credentials = credentials_of(endpoint.value());
  EXPECT_EQ(credentials.client_certificate_pem, kClientPem);
  EXPECT_EQ(credentials.client_key_pem, kKeyPem);
  EXPECT_EQ(endpoint.value().credentials->describe(),
            "the client certificate of users[0] (name \"u\") of the kubeconfig " + path);
}

TEST(Kubeconfig, DataFieldsWinOverTheirFiles) {
  TestFolder folder;
  const auto path =
      folder.write("config", kubeconfig_with("    server: https://192.0.2.10\n"
                                             "    certificate-authority: missing-ca.crt\n"
                                             "    certificate-authority-data: " +
                                                 kCaPemBase64 + "\n",
                                             "    client-certificate: missing.crt\n"
                                             "    client-certificate-data: " +
                                                 kClientPemBase64 +
                                                 "\n"
                                                 "    client-key: missing.key\n"
                                                 "    client-key-data: " +
                                                 kKeyPemBase64 + "\n"));
  auto endpoint = load_file(path);
  ASSERT_TRUE(endpoint) << endpoint.error().message;
  EXPECT_EQ(endpoint.value().ca_pem, kCaPem);
  EXPECT_EQ(credentials_of(endpoint.value()).client_key_pem, kKeyPem);
}

TEST(Kubeconfig, InsecureSkipTlsVerify) {
  TestFolder folder;
  const auto path = folder.write("config", kubeconfig_with("    server: https://192.0.2.10\n"
                                                           "    insecure-skip-tls-verify: true\n",
                                                           "    token: t\n"));
  auto endpoint = load_file(path);
  ASSERT_TRUE(endpoint) << endpoint.error().message;
  EXPECT_TRUE(endpoint.value().insecure_skip_tls_verify);
  EXPECT_TRUE(endpoint.value().ca_pem.empty());
}

TEST(Kubeconfig, ServerWithoutSchemeIsHttpsHttpIsKeptAndTrailingSlashesGo) {
  TestFolder folder;
  auto bare = load_file(
      folder.write("bare", kubeconfig_with("    server: 192.0.2.10:6443\n", "    token: t\n")));
  ASSERT_TRUE(bare) << bare.error().message;
  EXPECT_EQ(bare.value().server, "https://192.0.2.10:6443");
  auto plain = load_file(folder.write(
      "plain", kubeconfig_with("    server: http://127.0.0.1:8001\n", "    token: t\n")));
  ASSERT_TRUE(plain) << plain.error().message;
  EXPECT_EQ(plain.value().server, "http://127.0.0.1:8001");
  auto prefixed = load_file(folder.write(
      "prefixed",
      kubeconfig_with("    server: https://[fd00::1]:6443/k8s/c-1//\n", "    token: t\n")));
  ASSERT_TRUE(prefixed) << prefixed.error().message;
  EXPECT_EQ(prefixed.value().server, "https://[fd00::1]:6443/k8s/c-1");
}

TEST(Kubeconfig, TokenFileRelativeToTheKubeconfigIsReadAgainAsItRotates) {
  TestFolder folder;
  const auto token_path = folder.write("tokens/ci", "first\n");
  const auto path = folder.write(
      "config", kubeconfig_with("    server: https://192.0.2.10\n", "    tokenFile: tokens/ci\n"));
  auto endpoint = load_file(path);
  ASSERT_TRUE(endpoint) << endpoint.error().message;
  const Credentials first = credentials_of(endpoint.value());
  EXPECT_EQ(first.bearer_token, "first");
  ASSERT_TRUE(first.expires_at);  // when to ask again: the file is re-read after 60 s
  EXPECT_GT(*first.expires_at, std::chrono::system_clock::now() + std::chrono::seconds(50));
  folder.write("tokens/ci", "second\n");
  EXPECT_EQ(credentials_of(endpoint.value()).bearer_token, "first");  // within 60 s
  endpoint.value().credentials->invalidate();                         // after a 401
  EXPECT_EQ(credentials_of(endpoint.value()).bearer_token, "second");
  EXPECT_EQ(endpoint.value().credentials->describe(),
            "the token file " + token_path +
                " (users[0] (name \"u\").user.tokenFile of the "
                "kubeconfig " +
                path + ")");
}

TEST(Kubeconfig, TokenWinsOverTokenFile) {
  TestFolder folder;
  const auto path = folder.write("config", kubeconfig_with("    server: https://192.0.2.10\n",
                                                           "    token: inline\n"
                                                           "    tokenFile: missing-file\n"));
  auto endpoint = load_file(path);
  ASSERT_TRUE(endpoint) << endpoint.error().message;
  EXPECT_EQ(credentials_of(endpoint.value()).bearer_token, "inline");
}

TEST(Kubeconfig, ContextOptionWinsOverCurrentContextAndAContextMayNameNoUser) {
  TestFolder folder;
  const auto path = folder.write("config",
                                 "clusters:\n"
                                 "- {name: one, cluster: {server: 'https://192.0.2.1'}}\n"
                                 "- {name: two, cluster: {server: 'https://192.0.2.2'}}\n"
                                 "users:\n"
                                 "- {name: u, user: {token: t}}\n"
                                 "contexts:\n"
                                 "- {name: first, context: {cluster: one, user: u}}\n"
                                 "- {name: anonymous, context: {cluster: two, namespace: ns2}}\n"
                                 "current-context: first\n");
  auto current = load_file(path);
  ASSERT_TRUE(current) << current.error().message;
  EXPECT_EQ(current.value().server, "https://192.0.2.1");
  auto chosen = load_file(path, "anonymous");
  ASSERT_TRUE(chosen) << chosen.error().message;
  EXPECT_EQ(chosen.value().server, "https://192.0.2.2");
  EXPECT_EQ(chosen.value().context_namespace, "ns2");
  const Credentials none = credentials_of(chosen.value());
  EXPECT_TRUE(none.bearer_token.empty());
  EXPECT_TRUE(none.client_certificate_pem.empty());
}

TEST(Kubeconfig, ExecPluginGetsArgsEnvAndClusterInfo) {
  TestFolder folder;
  folder.write("ca.crt", kCaPem);
  const auto info = folder.file("exec-info.json");
  folder.script("bin/get-token",
                "printf '%s' \"$KUBERNETES_EXEC_INFO\" > '" + info +
                    "'\n"
                    "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":"
                    "\"ExecCredential\",\"status\":{\"token\":\"%s-%s\"}}' \"$1\" \"$REGION\"");
  const auto path =
      folder.write("config", kubeconfig_with("    server: https://192.0.2.10:6443\n"
                                             "    certificate-authority: ca.crt\n"
                                             "    tls-server-name: api.internal\n"
                                             "    extensions:\n"
                                             "    - name: client.authentication.k8s.io/exec\n"
                                             "      extension:\n"
                                             "        audience: sts\n"
                                             "        retries: 3\n",
                                             "    exec:\n"
                                             "      apiVersion: client.authentication.k8s.io/v1\n"
                                             "      command: ./bin/get-token\n"
                                             "      args: [prod]\n"
                                             "      env:\n"
                                             "      - name: REGION\n"
                                             "        value: eu-west-1\n"
                                             "      installHint: install get-token\n"
                                             "      provideClusterInfo: true\n"
                                             "      interactiveMode: IfAvailable\n"));
  auto endpoint = load_file(path);
  ASSERT_TRUE(endpoint) << endpoint.error().message;
  EXPECT_EQ(endpoint.value().credentials->describe(),
            "the exec plugin " + folder.file("bin/get-token"));
  EXPECT_EQ(credentials_of(endpoint.value()).bearer_token, "prod-eu-west-1");
  std::ifstream written(info);
  const auto request =
      nlohmann::json::parse(std::string(std::istreambuf_iterator<char>(written), {}));
  EXPECT_EQ(request["apiVersion"], "client.authentication.k8s.io/v1");
  EXPECT_EQ(request["kind"], "ExecCredential");
  EXPECT_EQ(request["spec"]["interactive"], false);
  const auto& cluster = request["spec"]["cluster"];
  EXPECT_EQ(cluster["server"], "https://192.0.2.10:6443");
  EXPECT_EQ(cluster["tls-server-name"], "api.internal");
  EXPECT_EQ(cluster["certificate-authority-data"], kCaPemBase64);
  EXPECT_EQ(cluster["config"], (nlohmann::json{{"audience", "sts"}, {"retries", 3}}));
  EXPECT_FALSE(cluster.contains("insecure-skip-tls-verify"));
}

TEST(Kubeconfig, ExecPluginWithoutClusterInfoAndWithoutInteractiveMode) {
  TestFolder folder;
  const auto info = folder.file("exec-info.json");
  const auto plugin = folder.script(
      "plugin", "printf '%s' \"$KUBERNETES_EXEC_INFO\" > '" + info +
                    "'\n"
                    "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\",\"kind\":"
                    "\"ExecCredential\",\"status\":{\"token\":\"b\"}}'");
  const auto path = folder.write(
      "config", kubeconfig_with("    server: https://192.0.2.10\n",
                                "    exec:\n"
                                "      apiVersion: client.authentication.k8s.io/v1beta1\n"
                                "      command: " +
                                    plugin + "\n"));
  auto endpoint = load_file(path);
  ASSERT_TRUE(endpoint) << endpoint.error().message;
  EXPECT_EQ(credentials_of(endpoint.value()).bearer_token, "b");
  std::ifstream written(info);
  const auto request =
      nlohmann::json::parse(std::string(std::istreambuf_iterator<char>(written), {}));
  EXPECT_EQ(request["apiVersion"], "client.authentication.k8s.io/v1beta1");
  EXPECT_FALSE(request["spec"].contains("cluster"));
}

TEST(Kubeconfig, EmptyFileHasNoContext) {
  TestFolder folder;
  const auto path = folder.write("config", "");
  auto endpoint = load_file(path);
  ASSERT_FALSE(endpoint);
  EXPECT_EQ(endpoint.error().message, "The kubeconfig " + path +
                                          " defines no context: add one (kubectl config "
                                          "set-context) or use another kubeconfig.");
}

// --- where the loader looks ---------------------------------------------------------------------

std::string minimal_kubeconfig(const std::string& server, const std::string& token) {
  return kubeconfig_with("    server: " + server + "\n", "    token: " + token + "\n");
}

TEST(KubeconfigSearch, ExplicitPathWinsOverEverything) {
  TestFolder folder;
  KubeconfigRequest request;
  request.kubeconfig_path = folder.write("explicit", minimal_kubeconfig("https://192.0.2.1", "a"));
  request.environment.kubeconfig =
      folder.write("env", minimal_kubeconfig("https://192.0.2.2", "b"));
  request.environment.home = folder.path();
  folder.write(".kube/config", minimal_kubeconfig("https://192.0.2.3", "c"));
  auto endpoint = load_api_endpoint(request);
  ASSERT_TRUE(endpoint) << endpoint.error().message;
  EXPECT_EQ(endpoint.value().server, "https://192.0.2.1");
}

TEST(KubeconfigSearch, KubeconfigVariableSkipsMissingFilesAndWinsOverHome) {
  TestFolder folder;
  KubeconfigRequest request;
  request.environment.kubeconfig =
      folder.file("missing") +
      "::" + folder.write("env", minimal_kubeconfig("https://192.0.2.2", "b"));
  request.environment.home = folder.path();
  folder.write(".kube/config", minimal_kubeconfig("https://192.0.2.3", "c"));
  auto endpoint = load_api_endpoint(request);
  ASSERT_TRUE(endpoint) << endpoint.error().message;
  EXPECT_EQ(endpoint.value().server, "https://192.0.2.2");
}

TEST(KubeconfigSearch, KubeconfigVariableMergesFilesFirstDefinitionWins) {
  TestFolder folder;
  // The first file: the current context and a user; the second: the cluster (its CA relative
  // to its own folder), a user of the same name (ignored) and another current-context.
  const auto first = folder.write("a/config",
                                  "users:\n- {name: u, user: {token: from-a}}\n"
                                  "contexts:\n- {name: main, context: {cluster: c, user: u}}\n"
                                  "current-context: main\n");
  folder.write("b/ca.crt", kCaPem);
  const auto second = folder.write("b/config",
                                   "clusters:\n- {name: c, cluster: {server: 'https://192.0.2.9', "
                                   "certificate-authority: ca.crt}}\n"
                                   "users:\n- {name: u, user: {token: from-b}}\n"
                                   "contexts:\n- {name: other, context: {cluster: c}}\n"
                                   "current-context: other\n");
  KubeconfigRequest request;
  request.environment.kubeconfig = first + ":" + second;
  auto endpoint = load_api_endpoint(request);
  ASSERT_TRUE(endpoint) << endpoint.error().message;
  EXPECT_EQ(endpoint.value().server, "https://192.0.2.9");
  EXPECT_EQ(endpoint.value().ca_pem, kCaPem);
  EXPECT_EQ(credentials_of(endpoint.value()).bearer_token, "from-a");
  EXPECT_EQ(endpoint.value().origin, "context \"main\" of the kubeconfig " + first);
  request.context = "other";  // defined only in the second file
  auto other = load_api_endpoint(request);
  ASSERT_TRUE(other) << other.error().message;
  EXPECT_EQ(other.value().origin, "context \"other\" of the kubeconfig " + second);
}

TEST(KubeconfigSearch, HomeKubeConfigWhenNothingElseIsSet) {
  TestFolder folder;
  folder.write(".kube/config", minimal_kubeconfig("https://192.0.2.3", "c"));
  KubeconfigRequest request;
  request.environment.home = folder.path();
  request.environment.service_host = "10.0.0.1";  // a kubeconfig wins over the pod
  request.environment.service_port = "443";
  auto endpoint = load_api_endpoint(request);
  ASSERT_TRUE(endpoint) << endpoint.error().message;
  EXPECT_EQ(endpoint.value().server, "https://192.0.2.3");
}

TEST(KubeconfigSearch, ServiceAccountOfThePod) {
  TestFolder folder;
  folder.write("sa/token", "pod-token\n");
  folder.write("sa/ca.crt", kCaPem);
  folder.write("sa/namespace", "agents\n");
  KubeconfigRequest request;
  request.environment.home = folder.path();  // no .kube/config in it
  request.environment.service_host = "fd00::1";
  request.environment.service_port = "443";
  request.environment.service_account_folder = folder.file("sa");
  auto endpoint = load_api_endpoint(request);
  ASSERT_TRUE(endpoint) << endpoint.error().message;
  EXPECT_EQ(endpoint.value().server, "https://[fd00::1]:443");
  EXPECT_EQ(endpoint.value().ca_pem, kCaPem);
  EXPECT_EQ(endpoint.value().context_namespace, "agents");
  EXPECT_EQ(endpoint.value().origin, "the service account of this pod (" + folder.file("sa") + ")");
  EXPECT_EQ(credentials_of(endpoint.value()).bearer_token, "pod-token");
  folder.write("sa/token", "rotated\n");
  endpoint.value().credentials->invalidate();
  EXPECT_EQ(credentials_of(endpoint.value()).bearer_token, "rotated");
}

TEST(KubeconfigSearch, ServiceAccountWithoutCaOrNamespace) {
  TestFolder folder;
  folder.write("sa/token", "pod-token");
  KubeconfigRequest request;
  request.environment.service_host = "10.96.0.1";
  request.environment.service_port = "443";
  request.environment.service_account_folder = folder.file("sa");
  auto endpoint = load_api_endpoint(request);
  ASSERT_TRUE(endpoint) << endpoint.error().message;
  EXPECT_EQ(endpoint.value().server, "https://10.96.0.1:443");
  EXPECT_TRUE(endpoint.value().ca_pem.empty());
  EXPECT_TRUE(endpoint.value().context_namespace.empty());
}

// --- the local cluster's kubeconfig (a file on this machine; no network)
// --------------------------

std::string local_cluster_kubeconfig() {
  const char* path = std::getenv("VC_TEST_KUBECONFIG");
  return path != nullptr && *path != '\0' ? path : "/var/lib/mcp-virtual-computer-k8s/kubeconfig";
}

bool kubernetes_required() {
  const char* engines = std::getenv("VC_REQUIRE_ENGINES");
  return engines != nullptr && std::string(engines).find("kubernetes") != std::string::npos;
}

TEST(KubeconfigLocalCluster, LoadsTheLocalClustersKubeconfig) {
  const std::string path = local_cluster_kubeconfig();
  std::error_code error;
  if (!std::filesystem::exists(path, error)) {
    if (kubernetes_required())
      FAIL() << "VC_REQUIRE_ENGINES names kubernetes but " << path << " is absent";
    GTEST_SKIP() << path << " is absent (set VC_TEST_KUBECONFIG to the local cluster's kubeconfig)";
  }
  auto endpoint = load_file(path);
  ASSERT_TRUE(endpoint) << endpoint.error().message;
  EXPECT_EQ(endpoint.value().server.rfind("https://", 0), 0u) << endpoint.value().server;
  EXPECT_TRUE(endpoint.value().insecure_skip_tls_verify ||
              endpoint.value().ca_pem.find("-----BEGIN CERTIFICATE-----") != std::string::npos);
  EXPECT_NE(endpoint.value().origin.find(path), std::string::npos);
  const Credentials credentials = credentials_of(endpoint.value());
  EXPECT_TRUE(!credentials.bearer_token.empty() || !credentials.client_certificate_pem.empty());
}

}  // namespace
}  // namespace vc::kubernetes
