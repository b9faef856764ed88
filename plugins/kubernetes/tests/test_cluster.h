// test_cluster.h — the real cluster the tests labelled "kubernetes" run against: its endpoint
// read from a kubeconfig (a few lines of yaml-cpp, for the simple kubeconfig of the local
// cluster: server, certificate-authority file or data, token), plain HTTPS calls to its API,
// and a namespace vc-test-<random> with one busybox pod that each test process creates once
// and deletes at its end.
//
// The kubeconfig is $VC_TEST_KUBECONFIG (default /var/lib/mcp-virtual-computer-k8s/kubeconfig).
// When it is absent the tests skip, unless $VC_REQUIRE_ENGINES names "kubernetes": then they
// fail. The pod's image is $VC_TEST_BUSYBOX_IMAGE (default vc-test-busybox:latest, made by
// scripts/engines/docker-up.sh), with imagePullPolicy Never.
//
// Thread rule: the test's main thread. The pod is made on first use and deleted by a gtest
// environment's TearDown.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <boost/beast/http/verb.hpp>

#include "api_endpoint.h"

namespace vc::kubernetes::testing {

// A fixed bearer token, counting the server's refusals (invalidate()).
class FixedTokenCredentials : public CredentialSource {
 public:
  explicit FixedTokenCredentials(std::string token) : token_(std::move(token)) {}
  ConfigExpected<Credentials> current() override;
  void invalidate() override { ++invalidations; }
  std::string describe() const override { return "the test's token"; }
  std::atomic<int> invalidations{0};

 private:
  std::string token_;
};

// An endpoint from the kubeconfig at `path`, or a sentence saying why not.
ConfigExpected<ApiEndpoint> endpoint_from_kubeconfig(const std::string& path);

struct HttpAnswer {
  int status = 0;
  std::string body;
};
// A plain HTTPS call to the API (JSON body), synchronous. Throws std::runtime_error when the
// server cannot be reached.
HttpAnswer api_call(const ApiEndpoint& endpoint, boost::beast::http::verb verb,
                    const std::string& target, const std::string& body = "");

// The test process's namespace and pod.
struct TestPod {
  ApiEndpoint endpoint;
  std::string namespace_name;
  std::string pod = "streams";
  std::string container = "computer";
  int server_minor_version = 0;  // 20 for Kubernetes 1.20
  // Listens on this port in the pod: every connection is echoed (busybox nc -ll -e cat).
  static constexpr std::uint16_t kEchoPort = 7000;
  // Listens on this port in the pod: says "hello" to every connection and closes it.
  static constexpr std::uint16_t kGreetingPort = 7002;
};

// The pod, made on first call (namespace, pod, Running). nullptr with `skip_reason` set when
// there is no kubeconfig; a failure to make the pod throws std::runtime_error.
const TestPod* test_pod(std::string* skip_reason);

// Whether $VC_REQUIRE_ENGINES names "kubernetes" (then a missing kubeconfig fails the test).
bool cluster_required();

}  // namespace vc::kubernetes::testing

// In a test: the pod, or GTEST_SKIP (FAIL when the cluster is required) as test_cluster.h says.
#define VC_TEST_POD_OR_SKIP(pod_variable)                                        \
  std::string vc_skip_reason_;                                                  \
  const ::vc::kubernetes::testing::TestPod* pod_variable =                     \
      ::vc::kubernetes::testing::test_pod(&vc_skip_reason_);                   \
  if (pod_variable == nullptr) {                                                \
    if (::vc::kubernetes::testing::cluster_required()) {                       \
      FAIL() << "VC_REQUIRE_ENGINES names kubernetes: " << vc_skip_reason_;    \
    }                                                                           \
    GTEST_SKIP() << vc_skip_reason_;                                            \
  }
