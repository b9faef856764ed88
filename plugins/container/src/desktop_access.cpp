// desktop_access.cpp — the desktop secret, port and URL.
#include "desktop_access.h"

#include <sys/random.h>

#include <charconv>
#include <stdexcept>

#include "computer_info.h"
#include "computer_naming.h"

namespace vc::container {
namespace {

constexpr std::size_t kTokenBytes = 24;

const nlohmann::json* find_path(const nlohmann::json& root, std::initializer_list<const char*> keys) {
  const nlohmann::json* at = &root;
  for (const char* key : keys) {
    if (!at->is_object()) return nullptr;
    auto it = at->find(key);
    if (it == at->end()) return nullptr;
    at = &*it;
  }
  return at;
}

}  // namespace

std::string generate_desktop_token() {
  unsigned char bytes[kTokenBytes];
  std::size_t filled = 0;
  while (filled < sizeof bytes) {
    ssize_t got = getrandom(bytes + filled, sizeof bytes - filled, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error("getrandom() failed: cannot make the desktop's secret");
    }
    filled += static_cast<std::size_t>(got);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string token;
  token.reserve(2 * sizeof bytes);
  for (unsigned char byte : bytes) {
    token += kHex[byte >> 4];
    token += kHex[byte & 0x0f];
  }
  return token;
}

bool is_desktop_capable(const nlohmann::json& container) {
  const auto& all = container_labels(container);
  auto it = all.find(labels::kDesktopCapable);
  return it != all.end() && it->is_string() && it->get<std::string>() == "true";
}

std::optional<int> published_desktop_port(const nlohmann::json& inspect) {
  const auto* bindings = find_path(inspect, {"NetworkSettings", "Ports", kDesktopBridgePortKey});
  if (bindings == nullptr || !bindings->is_array()) return std::nullopt;
  for (const auto& binding : *bindings) {
    const auto* port = find_path(binding, {"HostPort"});
    if (port == nullptr || !port->is_string()) continue;
    const std::string& text = port->get_ref<const std::string&>();
    int value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error == std::errc() && end == text.data() + text.size() && value > 0 && value < 65536) {
      return value;
    }
  }
  return std::nullopt;
}

std::optional<std::string> desktop_token_of(const nlohmann::json& inspect) {
  const auto* env = find_path(inspect, {"Config", "Env"});
  if (env == nullptr || !env->is_array()) return std::nullopt;
  const std::string prefix = std::string(kDesktopTokenEnv) + "=";
  for (const auto& entry : *env) {
    if (!entry.is_string()) continue;
    const std::string& text = entry.get_ref<const std::string&>();
    if (text.starts_with(prefix) && text.size() > prefix.size()) return text.substr(prefix.size());
  }
  return std::nullopt;
}

std::optional<std::string> desktop_view_url(const nlohmann::json& inspect) {
  auto port = published_desktop_port(inspect);
  auto token = desktop_token_of(inspect);
  if (!port || !token) return std::nullopt;
  return "http://127.0.0.1:" + std::to_string(*port) +
         "/vnc.html#autoconnect=1&resize=scale&reconnect=1&path=websockify%3Ftoken%3D" + *token;
}

}  // namespace vc::container
