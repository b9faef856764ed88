// kubeconfig_errors_test.cpp — the sentence each bad kubeconfig is refused with: it names the
// file and the field, says what is wrong and, where there is one, what to do instead.
#include <gtest/gtest.h>

#include "kubeconfig.h"
#include "test_folder.h"

namespace vc::kubernetes {
namespace {

using testing::kCaPem;
using testing::kCaPemBase64;
using testing::kClientPemBase64;
using testing::TestFolder;

class KubeconfigErrors : public ::testing::Test {
 protected:
  // The error loading `text` (written as <folder>/config) gives; "" when it loads.
  std::string error_of(const std::string& text, const std::string& context = "") {
    path_ = folder_.write("config", text);
    KubeconfigRequest request;
    request.kubeconfig_path = path_;
    request.context = context;
    auto endpoint = load_api_endpoint(request);
    return endpoint ? std::string() : endpoint.error().message;
  }
  // A kubeconfig whose one cluster, user and context have the given fields.
  static std::string with(const std::string& cluster, const std::string& user) {
    return "clusters:\n- name: c\n  cluster:\n" + cluster +
           "users:\n- name: admin\n- name: dev\n  user:\n" + user +
           "contexts:\n- name: main\n  context: {cluster: c, user: dev}\n"
           "current-context: main\n";
  }
  static std::string server() { return "    server: https://192.0.2.10\n"; }
  std::string prefix() const { return "The kubeconfig " + path_ + ": "; }

  TestFolder folder_;
  std::string path_ = folder_.file("config");
};

TEST_F(KubeconfigErrors, MalformedYamlNamesLineAndColumn) {
  const std::string message = error_of("clusters:\n- name: c\n  cluster: {server: [\n");
  EXPECT_EQ(message.rfind("The kubeconfig " + path_ + " is not valid YAML: line 4, column 1: ", 0),
            0u)
      << message;
  EXPECT_EQ(message.back(), '.');
}

TEST_F(KubeconfigErrors, NotAKubeconfig) {
  EXPECT_EQ(error_of("apiVersion: v1\nkind: Pod\n"),
            prefix() + "kind is \"Pod\", not Config (is this a kubeconfig?).");
  EXPECT_EQ(error_of("- just\n- a list\n"), prefix() + "its top level is not a mapping.");
}

TEST_F(KubeconfigErrors, BadShapes) {
  EXPECT_EQ(error_of("clusters: {c: 1}\n"), prefix() + "clusters is not a list.");
  EXPECT_EQ(error_of("clusters:\n- cluster: {server: x}\n"),
            prefix() + "clusters[0].name is missing.");
  EXPECT_EQ(error_of("users:\n- {name: a}\n- {name: a}\n"),
            prefix() + "users[1] (name \"a\") repeats the name of users[0] (name \"a\").");
  EXPECT_EQ(
      error_of(with(server() + "    insecure-skip-tls-verify: maybe\n", "    token: t\n")),
      prefix() + "clusters[0] (name \"c\").cluster.insecure-skip-tls-verify is not true or false.");
  EXPECT_EQ(error_of(with(server(), "    token: [a, b]\n")),
            prefix() + "users[1] (name \"dev\").user.token is not a string.");
  EXPECT_EQ(error_of(with(server(), "    exec: {command: x, args: [a, {b: c}]}\n")),
            prefix() + "users[1] (name \"dev\").user.exec.args[1] is not a string.");
}

TEST_F(KubeconfigErrors, InvalidBase64) {
  EXPECT_EQ(error_of(with(server(), "    client-certificate-data: " + kClientPemBase64 +
                                        "\n"
                                        "    client-key-data: not*base64\n")),
            prefix() + "users[1] (name \"dev\").user.client-key-data is not valid base64.");
  EXPECT_EQ(
      error_of(with(server() + "    certificate-authority-data: aGVsbG8=\n", "    token: t\n")),
      prefix() +
          "clusters[0] (name \"c\").cluster.certificate-authority-data does not hold "
          "PEM (no -----BEGIN line once decoded).");
}

TEST_F(KubeconfigErrors, MissingOrOversizedFiles) {
  EXPECT_EQ(error_of(with(server() + "    certificate-authority: pki/ca.crt\n", "    token: t\n")),
            prefix() + "clusters[0] (name \"c\").cluster.certificate-authority names " +
                folder_.file("pki/ca.crt") + ", which does not exist.");
  const auto big = folder_.write("big.crt", kCaPem + std::string(1024 * 1024, 'x'));
  EXPECT_EQ(error_of(with(server() + "    certificate-authority: big.crt\n", "    token: t\n")),
            prefix() + "clusters[0] (name \"c\").cluster.certificate-authority names " + big +
                ", which is larger than 1 MiB.");
  EXPECT_EQ(error_of(with(server() + "    certificate-authority: .\n", "    token: t\n")),
            prefix() + "clusters[0] (name \"c\").cluster.certificate-authority names " +
                folder_.path() + "/, which is a folder, not a file.");
  folder_.write("empty-token", "\n");
  EXPECT_EQ(error_of(with(server(), "    tokenFile: empty-token\n")),
            prefix() + "users[1] (name \"dev\").user.tokenFile names " +
                folder_.file("empty-token") + ", which is empty.");
}

TEST_F(KubeconfigErrors, OversizedKubeconfig) {
  const std::string text = "# " + std::string(4 * 1024 * 1024, 'x') + "\n";
  EXPECT_EQ(error_of(text), "The kubeconfig " + path_ + " is larger than 4 MiB.");
}

TEST_F(KubeconfigErrors, RefusedForms) {
  EXPECT_EQ(error_of(with(server(), "    username: admin\n    password: hunter2\n")),
            prefix() +
                "users[1] (name \"dev\").user.username asks for basic authentication "
                "(username and password), which Kubernetes removed in 1.19; use a token, a "
                "client certificate or an exec plugin.");
  EXPECT_EQ(error_of(with(server(), "    auth-provider:\n      name: gcp\n      config: {}\n")),
            prefix() +
                "users[1] (name \"dev\").user.auth-provider names the auth provider "
                "\"gcp\", and auth providers were removed from Kubernetes clients; use the "
                "exec credential plugin that replaces it (gke-gcloud-auth-plugin for gcp, "
                "kubelogin for azure and oidc).");
  EXPECT_EQ(error_of(with(server() + "    proxy-url: http://proxy:3128\n", "    token: t\n")),
            prefix() +
                "clusters[0] (name \"c\").cluster.proxy-url is set, and connecting through "
                "a proxy is not supported; reach the API server directly (for example "
                "through an SSH tunnel to it) and remove proxy-url.");
  EXPECT_EQ(error_of(with(server(), "    token: t\n    as: someone\n")),
            prefix() +
                "users[1] (name \"dev\").user.as asks for impersonation, which this plugin "
                "does not support; give the user the permissions directly or use a "
                "kubeconfig without it.");
}

TEST_F(KubeconfigErrors, ExecForms) {
  const std::string v1 =
      "    exec:\n      apiVersion: client.authentication.k8s.io/v1\n"
      "      command: get-token\n";
  EXPECT_EQ(error_of(with(server(), v1 + "      interactiveMode: Always\n")),
            prefix() +
                "users[1] (name \"dev\").user.exec.interactiveMode is Always, but the "
                "server has no terminal to ask on; log in with the plugin beforehand and "
                "set interactiveMode to Never or IfAvailable.");
  EXPECT_EQ(error_of(with(server(), v1 + "      interactiveMode: Sometimes\n")),
            prefix() +
                "users[1] (name \"dev\").user.exec.interactiveMode is \"Sometimes\", not "
                "Never, IfAvailable or Always.");
  EXPECT_EQ(error_of(with(server(),
                          "    exec:\n      apiVersion: client.authentication.k8s.io/v1alpha1\n"
                          "      command: x\n")),
            prefix() +
                "users[1] (name \"dev\").user.exec.apiVersion is "
                "\"client.authentication.k8s.io/v1alpha1\", which is not supported; use "
                "client.authentication.k8s.io/v1 or v1beta1.");
  EXPECT_EQ(error_of(with(server(), "    exec: {command: x}\n")),
            prefix() +
                "users[1] (name \"dev\").user.exec.apiVersion is missing; write "
                "client.authentication.k8s.io/v1.");
  EXPECT_EQ(error_of(with(server(), "    exec: {apiVersion: client.authentication.k8s.io/v1}\n")),
            prefix() + "users[1] (name \"dev\").user.exec.command is missing.");
  EXPECT_EQ(error_of(with(server(), v1 + "    token: t\n")),
            prefix() +
                "users[1] (name \"dev\").user sets exec together with a token or a client "
                "certificate; keep one way to authenticate.");
}

TEST_F(KubeconfigErrors, IncompleteOrContradictoryFields) {
  EXPECT_EQ(
      error_of(with("    certificate-authority-data: " + kCaPemBase64 + "\n", "    token: t\n")),
      prefix() + "clusters[0] (name \"c\").cluster.server is missing.");
  EXPECT_EQ(error_of(with("    server: ftp://192.0.2.10\n", "    token: t\n")),
            prefix() +
                "clusters[0] (name \"c\").cluster.server is \"ftp://192.0.2.10\", which is "
                "not an https:// URL.");
  EXPECT_EQ(error_of(with("    server: https://user@192.0.2.10\n", "    token: t\n")),
            prefix() +
                "clusters[0] (name \"c\").cluster.server is \"https://user@192.0.2.10\", "
                "which is not a URL such as https://192.0.2.10:6443.");
  for (const std::string bad : {"https://", "https:///k8s", "https://h?x=1", "https://a b"}) {
    EXPECT_EQ(error_of(with("    server: '" + bad + "'\n", "    token: t\n")),
              prefix() + "clusters[0] (name \"c\").cluster.server is \"" + bad +
                  "\", which is not a URL such as https://192.0.2.10:6443.");
  }
  EXPECT_EQ(error_of(with(server(), "    client-certificate-data: " + kClientPemBase64 + "\n")),
            prefix() +
                "users[1] (name \"dev\").user has a client certificate but no client-key "
                "or client-key-data.");
  EXPECT_EQ(error_of(with(server() +
                              "    insecure-skip-tls-verify: true\n"
                              "    certificate-authority-data: " +
                              kCaPemBase64 + "\n",
                          "    token: t\n")),
            prefix() +
                "clusters[0] (name \"c\").cluster.insecure-skip-tls-verify is true while a "
                "certificate authority is set too; keep one of them.");
}

TEST_F(KubeconfigErrors, ContextsClustersAndUsersThatDoNotExist) {
  EXPECT_EQ(error_of(with(server(), "    token: t\n"), "staging"),
            "--context names \"staging\", which the kubeconfig " + path_ +
                " does not define (its contexts: \"main\").");
  EXPECT_EQ(error_of("contexts:\n- {name: a, context: {cluster: c}}\ncurrent-context: b\n"),
            prefix() +
                "current-context names the context \"b\", which is not defined "
                "(contexts: \"a\").");
  EXPECT_EQ(error_of("contexts:\n- {name: a, context: {cluster: c}}\n"),
            "The kubeconfig " + path_ +
                " has no current-context: pass --context with one of its "
                "contexts (\"a\").");
  EXPECT_EQ(error_of("clusters:\n- {name: x, cluster: {server: 'https://h'}}\n"
                     "contexts:\n- {name: a, context: {cluster: c}}\ncurrent-context: a\n"),
            prefix() +
                "contexts[0] (name \"a\").context.cluster names the cluster \"c\", which is "
                "not defined (clusters: \"x\").");
  EXPECT_EQ(error_of("contexts:\n- {name: a, context: {user: u}}\ncurrent-context: a\n"),
            prefix() + "contexts[0] (name \"a\").context.cluster is missing.");
  EXPECT_EQ(
      error_of("clusters:\n- {name: c, cluster: {server: 'https://h'}}\n"
               "contexts:\n- {name: a, context: {cluster: c, user: ghost}}\ncurrent-context: a\n"),
      prefix() +
          "contexts[0] (name \"a\").context.user names the user \"ghost\", which is "
          "not defined (users: none).");
}

TEST_F(KubeconfigErrors, NamesInMessagesAreBoundedAndEscaped) {
  const std::string long_name(300, 'n');
  const std::string message =
      error_of("users:\n- name: \"" + long_name + "\\e\"\n  user: {token: [x]}\n");
  EXPECT_EQ(message, prefix() + "users[0] (name \"" + std::string(64, 'n') +
                         "…\").user.token is not a string.");
  EXPECT_EQ(error_of("users:\n- name: \"a\\tb\\x01\\\"\"\n  user: {token: [x]}\n"),
            prefix() + "users[0] (name \"a\\tb\\x01\\\"\").user.token is not a string.");
}

TEST_F(KubeconfigErrors, AliasesCannotMultiplyTheWork) {
  // 3000 users whose args are all the same 2000-item list: six million strings to copy.
  std::string list = "a";
  for (int i = 1; i < 2000; ++i) list += ", a";
  std::string text = "x: &list [" + list + "]\nusers:\n";
  for (int i = 0; i < 3000; ++i) {
    text += "- {name: u" + std::to_string(i) + ", user: {exec: {args: *list}}}\n";
  }
  const std::string message = error_of(text);
  EXPECT_EQ(message.rfind(prefix() + "users[", 0), 0u) << message;
  EXPECT_NE(message.find(").user.exec.args["), std::string::npos) << message;
  EXPECT_NE(message.find("is past the most this plugin reads in one kubeconfig (a million "
                         "values, counting each repetition of a YAML alias)."),
            std::string::npos)
      << message;
  // An exec extension that expands to 100000 values.
  EXPECT_EQ(error_of("clusters:\n- name: c\n  cluster:\n    server: https://h\n"
                     "    extensions:\n    - name: client.authentication.k8s.io/exec\n"
                     "      extension:\n"
                     "        a: &a [x, x, x, x, x, x, x, x, x, x]\n"
                     "        b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                     "        c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
                     "        d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
                     "        e: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"),
            prefix() +
                "clusters[0] (name \"c\").cluster.extensions[0].extension holds more than "
                "10000 values, more than an exec plugin is handed.");
}

TEST_F(KubeconfigErrors, AnEntryNobodyUsesDoesNotMatter) {
  // users[0] has nothing; a broken user that the context does not use is not looked at.
  EXPECT_EQ(
      error_of("clusters:\n- {name: c, cluster: {server: 'https://h'}}\n"
               "users:\n- {name: old, user: {client-key-data: '***', username: u}}\n"
               "- {name: dev, user: {token: t}}\n"
               "contexts:\n- {name: a, context: {cluster: c, user: dev}}\ncurrent-context: a\n"),
      "");
}

class KubeconfigSearchErrors : public ::testing::Test {
 protected:
  TestFolder folder_;
};

TEST_F(KubeconfigSearchErrors, ExplicitFileMissing) {
  KubeconfigRequest request;
  request.kubeconfig_path = folder_.file("nope");
  auto endpoint = load_api_endpoint(request);
  ASSERT_FALSE(endpoint);
  EXPECT_EQ(endpoint.error().message,
            "The kubeconfig " + folder_.file("nope") + " does not exist.");
}

TEST_F(KubeconfigSearchErrors, KubeconfigVariableNamesNoExistingFile) {
  KubeconfigRequest request;
  request.environment.kubeconfig = folder_.file("a") + ":" + folder_.file("b");
  auto endpoint = load_api_endpoint(request);
  ASSERT_FALSE(endpoint);
  EXPECT_EQ(endpoint.error().message, "KUBECONFIG names " + folder_.file("a") + ", " +
                                          folder_.file("b") +
                                          ", and none of them exists; fix KUBECONFIG or pass "
                                          "--kubeconfig.");
}

TEST_F(KubeconfigSearchErrors, NothingFound) {
  KubeconfigRequest request;
  request.environment.home = folder_.path();
  auto endpoint = load_api_endpoint(request);
  ASSERT_FALSE(endpoint);
  EXPECT_EQ(endpoint.error().message,
            "No kubeconfig was found: --kubeconfig and KUBECONFIG are not set, " + folder_.path() +
                "/.kube/config does not exist, and KUBERNETES_SERVICE_HOST is not set (the server "
                "is not in a pod); pass --kubeconfig with the file kubectl uses.");
}

TEST_F(KubeconfigSearchErrors, ContextWithOnlyAServiceAccount) {
  KubeconfigRequest request;
  request.context = "prod";
  request.environment.service_host = "10.96.0.1";
  request.environment.service_port = "443";
  auto endpoint = load_api_endpoint(request);
  ASSERT_FALSE(endpoint);
  EXPECT_EQ(endpoint.error().message,
            "--context names \"prod\", but there is no kubeconfig to find it in (--kubeconfig and "
            "KUBECONFIG are not set and HOME is not set); pass --kubeconfig, or leave --context "
            "out to use this pod's service account.");
}

TEST_F(KubeconfigSearchErrors, ServiceAccountTokenMissing) {
  KubeconfigRequest request;
  request.environment.service_host = "10.96.0.1";
  request.environment.service_port = "443";
  request.environment.service_account_folder = folder_.path();
  auto endpoint = load_api_endpoint(request);
  ASSERT_FALSE(endpoint);
  EXPECT_EQ(endpoint.error().message, "The token file " + folder_.file("token") +
                                          " (the pod's service account) does not exist.");
}

}  // namespace
}  // namespace vc::kubernetes
