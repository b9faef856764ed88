// kubernetes_options_test.cpp — the Kubernetes plugin's options: defaults, each accepted form,
// and the sentence each bad value is refused with.
#include "kubernetes_options.h"

#include <gtest/gtest.h>

namespace vc::kubernetes {
namespace {

std::optional<KubernetesOptions> parse(nlohmann::json options, std::string& error) {
  return parse_kubernetes_options({{"options", std::move(options)}}, error);
}

TEST(KubernetesOptions, DefaultsWhenNothingIsSet) {
  std::string error;
  auto parsed = parse(nlohmann::json::object(), error);
  ASSERT_TRUE(parsed) << error;
  EXPECT_EQ(parsed->computer_namespace, "mcp-virtual-computer");
  EXPECT_EQ(parsed->computer_image(), "mcp-virtual-computer-desktop:bookworm");
  EXPECT_EQ(parsed->image_pull_policy, "IfNotPresent");
  EXPECT_EQ(parsed->workspace_size, "10Gi");
  EXPECT_TRUE(parsed->kubeconfig.empty());
  EXPECT_FALSE(parsed->cpu_millis);
  EXPECT_FALSE(parsed->memory_bytes);
  EXPECT_EQ(parsed->api_timeout, std::chrono::seconds(30));
  EXPECT_EQ(parsed->exec_agent, ExecAgentMode::kAuto);
}

TEST(KubernetesOptions, NullsAndEmptyStringsMeanUnset) {
  std::string error;
  auto parsed = parse({{"namespace", nullptr}, {"image", ""}, {"memory", ""}}, error);
  ASSERT_TRUE(parsed) << error;
  EXPECT_EQ(parsed->computer_namespace, "mcp-virtual-computer");
  EXPECT_EQ(parsed->computer_image(), parsed->desktop_image);
}

TEST(KubernetesOptions, ReadsEveryOption) {
  std::string error;
  auto parsed = parse({{"kubeconfig", "/etc/kube/config"},
                       {"context", "prod-eu"},
                       {"namespace", "agents"},
                       {"image", "debian:bookworm-slim"},
                       {"desktop-image", "registry.example.com/desk:1"},
                       {"image-pull-policy", "Never"},
                       {"cpu", 1.5},
                       {"memory", "2g"},
                       {"storage-class", "fast.ssd"},
                       {"workspace-size", "500Mi"},
                       {"pod-overrides", R"({"spec":{"nodeSelector":{"pool":"agents"}}})"},
                       {"api-timeout", 7},
                       {"exec-agent", "off"},
                       {"exec-agent-binary", "/opt/vc-exec-agent"}},
                      error);
  ASSERT_TRUE(parsed) << error;
  EXPECT_EQ(parsed->kubeconfig, "/etc/kube/config");
  EXPECT_EQ(parsed->context, "prod-eu");
  EXPECT_EQ(parsed->computer_namespace, "agents");
  EXPECT_EQ(parsed->computer_image(), "debian:bookworm-slim");
  EXPECT_EQ(parsed->desktop_image, "registry.example.com/desk:1");
  EXPECT_EQ(parsed->image_pull_policy, "Never");
  EXPECT_EQ(parsed->cpu_millis, 1500);
  EXPECT_EQ(parsed->memory_bytes, 2LL * 1024 * 1024 * 1024);
  EXPECT_EQ(parsed->storage_class, "fast.ssd");
  EXPECT_EQ(parsed->workspace_size, "500Mi");
  EXPECT_EQ(parsed->pod_overrides["spec"]["nodeSelector"]["pool"], "agents");
  EXPECT_EQ(parsed->api_timeout, std::chrono::seconds(7));
  EXPECT_EQ(parsed->exec_agent, ExecAgentMode::kOff);
  EXPECT_EQ(parsed->exec_agent_binary, "/opt/vc-exec-agent");
}

struct Refusal {
  nlohmann::json options;
  std::string names;  // what the sentence must contain
};

TEST(KubernetesOptions, RefusesBadValuesWithASentenceNamingTheOption) {
  const Refusal refusals[] = {
      {{{"namespace", "Agents"}}, "--namespace must be a namespace name"},
      {{{"namespace", std::string(64, 'a')}}, "--namespace"},
      {{{"image", "debian bookworm"}}, "--image must be an image reference"},
      {{{"image-pull-policy", "sometimes"}}, "IfNotPresent, Always or Never; got 'sometimes'"},
      {{{"cpu", 0}}, "--cpu must be a positive number"},
      {{{"cpu", "two"}}, "--cpu"},
      {{{"memory", "1k"}}, "--memory must be a size of at least 6m"},
      {{{"memory", "lots"}}, "got 'lots'"},
      {{{"storage-class", "Fast_SSD"}}, "--storage-class"},
      {{{"workspace-size", "10 GB"}}, "--workspace-size must be a Kubernetes quantity"},
      {{{"workspace-size", "0"}}, "--workspace-size"},
      {{{"pod-overrides", "[1,2]"}}, "--pod-overrides must be a JSON object"},
      {{{"pod-overrides", "{not json"}}, "--pod-overrides must be a JSON object"},
      {{{"api-timeout", 0}}, "--api-timeout must be a whole number of seconds"},
      {{{"exec-agent", "maybe"}}, "--exec-agent must be auto, on or off"},
      {{{"exec-agent-binary", "relative/agent"}}, "--exec-agent-binary must be an absolute"},
      {{{"kubeconfig", "/path with space"}}, "--kubeconfig"},
  };
  for (const auto& refusal : refusals) {
    std::string error;
    EXPECT_FALSE(parse(refusal.options, error)) << refusal.options.dump();
    EXPECT_NE(error.find(refusal.names), std::string::npos)
        << refusal.options.dump() << " -> " << error;
  }
}

TEST(KubernetesOptions, RefusesAConfigThatIsNotAnObject) {
  std::string error;
  EXPECT_FALSE(parse_kubernetes_options(nlohmann::json::array(), error));
  EXPECT_FALSE(error.empty());
}

TEST(KubernetesOptions, QuantitiesAndNames) {
  for (const char* good : {"1", "10Gi", "1.5Gi", "500M", "3k", "1Ei"}) {
    EXPECT_TRUE(is_storage_quantity(good)) << good;
  }
  for (const char* bad : {"", "0", "-1Gi", "10 Gi", "10gb", "1.Gi", "Gi"}) {
    EXPECT_FALSE(is_storage_quantity(bad)) << bad;
  }
  EXPECT_TRUE(is_dns_label("mcp-virtual-computer"));
  EXPECT_FALSE(is_dns_label("-a"));
  EXPECT_FALSE(is_dns_label("a."));
  EXPECT_TRUE(is_dns_subdomain("fast.ssd-1"));
  EXPECT_FALSE(is_dns_subdomain("fast..ssd"));
}

TEST(KubernetesOptions, DeclarationsEndWithNullAndNameEveryOption) {
  const auto& decls = kubernetes_option_decls();
  EXPECT_EQ(decls.back(), nullptr);
  for (std::size_t i = 0; i + 1 < decls.size(); ++i) {
    ASSERT_NE(decls[i], nullptr) << i;
    std::string error;
    // Each declared name is one the parser reads: a bad value for it is refused by name, or
    // (for the free-text ones) accepted.
    auto parsed = parse({{decls[i]->name, nlohmann::json::array()}}, error);
    EXPECT_TRUE(!parsed && error.find(std::string("--") + decls[i]->name) != std::string::npos)
        << decls[i]->name << ": " << error;
  }
}

}  // namespace
}  // namespace vc::kubernetes
