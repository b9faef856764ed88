// kubeconfig — a kubeconfig's text as the Kubernetes plugin reads --kubeconfig: parsed, merged
// with itself as a $KUBECONFIG list of two files would be, and every context it defines (and
// its current-context) turned into an ApiEndpoint. The files a kubeconfig names are read from
// a stand-in that answers without a file system: a one-line PEM-looking text, or "does not
// exist" for a path holding "missing". The same bytes are also read as an exec credential
// plugin's answer and as an RFC 3339 time. A kubeconfig is outside input: it may come from
// anyone who hands the user a cluster.
//
// Beyond "no crash": every error is one bounded sentence of valid UTF-8 ending in a stop; an
// endpoint has an http(s) server and a credential source, and the sources that need no
// program (fixed, token file) give credentials at once. Exec plugins are never run.
#include "kubeconfig.h"

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "credential_sources.h"
#include "exec_credential.h"
#include "kubeconfig_document.h"

namespace {

using namespace vc::kubernetes;

constexpr std::size_t kMaxMessageBytes = 4096;
constexpr std::size_t kMaxContextsTried = 16;

bool is_valid_utf8(const std::string& text) {
  try {
    (void)nlohmann::json(text).dump();
    return true;
  } catch (const nlohmann::json::exception&) {
    return false;
  }
}

void check_sentence(const std::string& message) {
  if (message.empty() || message.size() > kMaxMessageBytes || message.back() != '.') {
    __builtin_trap();
  }
  if (!is_valid_utf8(message)) __builtin_trap();
}

ConfigExpected<std::string> stand_in_file(const std::string& path, std::size_t max_bytes) {
  if (path.find("missing") != std::string::npos) return ConfigError{"does not exist"};
  std::string bytes = "-----BEGIN CERTIFICATE----- stand-in for " + path;
  if (bytes.size() > max_bytes) return ConfigError{"is larger than the bound"};
  return bytes;
}

void check_endpoint(const ConfigExpected<ApiEndpoint>& endpoint) {
  if (!endpoint) {
    check_sentence(endpoint.error().message);
    return;
  }
  const ApiEndpoint& value = endpoint.value();
  if (value.server.rfind("https://", 0) != 0 && value.server.rfind("http://", 0) != 0) {
    __builtin_trap();
  }
  if (value.credentials == nullptr) __builtin_trap();
  if (!is_valid_utf8(value.credentials->describe()) || !is_valid_utf8(value.origin)) {
    __builtin_trap();
  }
  if (dynamic_cast<ExecCredentialSource*>(value.credentials.get()) != nullptr) return;
  // Fixed and token file sources answer from what the load read (within the 60 s of a token
  // file), so no file is touched here.
  auto credentials = value.credentials->current();
  if (!credentials) __builtin_trap();
}

void resolve_every_context(const Kubeconfig& kubeconfig) {
  check_endpoint(endpoint_from_kubeconfig(kubeconfig, "", stand_in_file));
  for (std::size_t i = 0; i < kubeconfig.contexts.size() && i < kMaxContextsTried; ++i) {
    check_endpoint(
        endpoint_from_kubeconfig(kubeconfig, kubeconfig.contexts[i].name, stand_in_file));
  }
  check_endpoint(endpoint_from_kubeconfig(kubeconfig, "no-such-context", stand_in_file));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = parse_kubeconfig(text, "/fuzz/home/.kube/config");
  if (!parsed) {
    check_sentence(parsed.error().message);
  } else {
    resolve_every_context(parsed.value());
    auto again = parse_kubeconfig(text, "/fuzz/other/config");
    if (!again) __builtin_trap();  // the same text cannot parse once and fail once
    resolve_every_context(merge_kubeconfigs({parsed.value(), again.value()}));
  }
  for (const char* version : {kExecCredentialV1, kExecCredentialV1beta1}) {
    auto answer = parse_exec_credential(text, version);
    if (!answer && !is_valid_utf8(answer.error().message)) __builtin_trap();
  }
  (void)parse_rfc3339(text);
  return 0;
}
