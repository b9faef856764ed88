// kubernetes_pod — what the Kubernetes plugin reads from a Pod the API server returns
// (plugins/kubernetes/src/pod_status.h): the computer's identity and state, why it cannot start,
// how it died. The server's answer, and pods shaped by a user's --pod-overrides, are outside
// input: any field may be missing, of another type, or huge.
//
// Input: the bytes as a JSON document (inputs that are not JSON are skipped: the plugin's JSON
// parser refuses them before pod_status sees them).
//
// Beyond "no crash": every sentence is valid UTF-8 (a strict dump does not throw) and bounded
// (the pod's own texts are cut), and a computer id read from a label is one the pod holds.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include <nlohmann/json.hpp>

#include "pod_status.h"

namespace {

void check_sentence(const std::string& text) {
  if (text.size() > 4096) std::abort();
  (void)nlohmann::json(text).dump();  // throws (and so aborts) on invalid UTF-8
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto pod = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (pod.is_discarded()) return 0;
  const vc::kubernetes::PodView view = vc::kubernetes::read_pod(pod);
  check_sentence(view.name);
  check_sentence(view.computer_id);
  check_sentence(view.image);
  check_sentence(view.state);
  check_sentence(vc::kubernetes::pod_start_blocker(pod));
  if (const auto death = vc::kubernetes::pod_death(pod)) check_sentence(death->reason);
  return 0;
}
