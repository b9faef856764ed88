// cluster_view.cpp — curl and docker, from a test. See cluster_view.h.
#include "cluster_view.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "command_runner.h"

namespace vc::test {
namespace {

std::string value_after(const std::string& text, const std::string& key) {
  const auto at = text.find(key);
  if (at == std::string::npos) return "";
  const auto start = at + key.size();
  const auto end = text.find('\n', start);
  std::string value = text.substr(start, end - start);
  while (!value.empty() && (value.front() == ' ' || value.front() == '"')) value.erase(0, 1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '"' || value.back() == '\r')) {
    value.pop_back();
  }
  return value;
}

}  // namespace

bool kubernetes_required() {
  const char* required = std::getenv("VC_REQUIRE_ENGINES");
  return required != nullptr && std::string(required).find("kubernetes") != std::string::npos;
}

std::optional<ClusterAccess> local_cluster(std::string& why) {
  const char* configured = std::getenv("VC_TEST_KUBECONFIG");
  ClusterAccess access;
  access.kubeconfig = configured && *configured ? configured
                                                : "/var/lib/mcp-virtual-computer-k8s/kubeconfig";
  std::ifstream file(access.kubeconfig);
  if (!file) {
    why = "no local Kubernetes cluster (no kubeconfig at " + access.kubeconfig +
          "; scripts/engines/kubernetes-up.sh starts one)";
    return std::nullopt;
  }
  std::stringstream text;
  text << file.rdbuf();
  // The local cluster's kubeconfig, as kubernetes-up.sh writes it: one cluster, one token.
  access.server = value_after(text.str(), "server:");
  access.ca_file = value_after(text.str(), "certificate-authority:");
  access.token = value_after(text.str(), "token:");
  if (access.server.empty() || access.token.empty()) {
    why = "the kubeconfig " + access.kubeconfig + " is not the local cluster's";
    return std::nullopt;
  }
  ClusterView view(access);
  if (view.call("GET", "/version").status != 200) {
    why = "the local Kubernetes cluster at " + access.server + " does not answer";
    return std::nullopt;
  }
  return access;
}

ClusterView::Answer ClusterView::call(const std::string& method, const std::string& path,
                                      const Json& body) const {
  std::vector<std::string> argv = {"curl", "-sS", "--max-time", "60", "--cacert", access_.ca_file,
                                   "-H", "Authorization: Bearer " + access_.token,
                                   "-X", method, "-w", "\n%{http_code}"};
  std::string input;
  if (!body.is_null()) {
    argv.insert(argv.end(), {"-H", "Content-Type: application/json", "--data-binary", "@-"});
    input = body.dump();
  }
  argv.push_back(access_.server + path);
  const CommandResult result = run_command(argv, std::chrono::seconds(90), input);
  if (!result.ok()) throw std::runtime_error("curl failed: " + result.describe(argv));
  const auto newline = result.out.rfind('\n');
  Answer answer;
  answer.status = std::atoi(result.out.c_str() + newline + 1);
  answer.body = Json::parse(result.out.substr(0, newline), nullptr, false);
  if (answer.body.is_discarded()) answer.body = nullptr;
  return answer;
}

void ClusterView::create_namespace(const std::string& name) const {
  const Answer answer = call("POST", "/api/v1/namespaces", Json{{"metadata", {{"name", name}}}});
  if (answer.status != 201 && answer.status != 409) {
    throw std::runtime_error("creating namespace " + name + ": HTTP " +
                             std::to_string(answer.status) + " " + answer.body.dump());
  }
}

void ClusterView::delete_namespace(const std::string& name) const {
  (void)call("DELETE", "/api/v1/namespaces/" + name);
}

ClusterView::Answer ClusterView::get(const std::string& name_space, const std::string& resource,
                                     const std::string& name) const {
  const std::string group =
      resource == "networkpolicies" ? "/apis/networking.k8s.io/v1" : "/api/v1";
  return call("GET", group + "/namespaces/" + name_space + "/" + resource + "/" + name);
}

void ClusterView::delete_pod(const std::string& name_space, const std::string& pod) const {
  (void)call("DELETE", "/api/v1/namespaces/" + name_space + "/pods/" + pod,
             Json{{"gracePeriodSeconds", 0}});
}

std::string ClusterView::docker_container(const std::string& name_space, const std::string& pod,
                                          const std::string& container,
                                          std::chrono::milliseconds timeout) const {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    const CommandResult result = run_command(
        {"docker", "ps", "-q", "--filter", "label=io.kubernetes.pod.namespace=" + name_space,
         "--filter", "label=io.kubernetes.pod.name=" + pod, "--filter",
         "label=io.kubernetes.container.name=" + container});
    const std::string id = trim_trailing(result.out);
    if (result.ok() && !id.empty() && id.find('\n') == std::string::npos) return id;
    if (std::chrono::steady_clock::now() > deadline) {
      throw std::runtime_error("no running docker container for " + name_space + "/" + pod + "/" +
                               container);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
}

std::string ClusterView::docker_sh(const std::string& container_id, const std::string& script,
                                   int* exit_code) const {
  const CommandResult result = run_command({"docker", "exec", container_id, "sh", "-c", script});
  if (exit_code != nullptr) *exit_code = result.status.exited ? result.status.code : -1;
  return result.out;
}

std::vector<std::string> ClusterView::processes(const std::string& container_id) const {
  const std::vector<std::string> argv = {"docker", "top", container_id};
  const CommandResult result = run_command(argv);
  if (!result.ok()) throw std::runtime_error("docker top failed: " + result.describe(argv));
  std::vector<std::string> lines;
  std::stringstream text(result.out);
  std::string line;
  std::getline(text, line);  // the header
  while (std::getline(text, line)) lines.push_back(line);
  return lines;
}

}  // namespace vc::test
