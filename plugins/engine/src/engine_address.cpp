// engine_address.cpp — parsing DOCKER_HOST-style engine addresses.
#include "vc_engine/engine_address.h"

#include <charconv>

#include "ascii_case.h"

namespace vc::engine {
namespace {

EngineError invalid(std::string message) {
  return make_error(EngineErrorKind::kInvalidArgument, std::move(message));
}

// Why a scheme we recognise cannot be used, or "" when it is not one of those.
std::string unsupported_scheme_reason(std::string_view scheme) {
  if (scheme == "https" || scheme == "tls") {
    return "TLS engine addresses (" + std::string(scheme) +
           "://) are not supported; use the engine's unix socket, or plain tcp:// on a "
           "trusted host";
  }
  if (scheme == "ssh") {
    return "ssh:// engine addresses are not supported (they need the docker CLI to tunnel); "
           "use the engine's unix socket";
  }
  if (scheme == "npipe") return "npipe:// (Windows named pipes) engine addresses are not supported";
  if (scheme == "fd") {
    return "fd:// (systemd socket activation) is a daemon setting, not an address to connect "
           "to; use the socket's path, e.g. unix:///var/run/docker.sock";
  }
  return {};
}

Result<std::uint16_t> parse_port(std::string_view text, std::string_view address) {
  unsigned value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || value == 0 ||
      value > 65535) {
    // Starts from a std::string: GCC 12 warns falsely (-Wrestrict, its bug 105329) about a
    // `"'" + std::string` chain once it is inlined at -O2.
    std::string message(1, '\'');
    message.append(text).append("' in engine address '").append(address);
    return invalid(message.append("' is not a TCP port (1-65535)"));
  }
  return static_cast<std::uint16_t>(value);
}

}  // namespace

Result<EngineAddress> EngineAddress::unix_socket(std::string_view path) {
  if (path.empty()) return invalid("the engine socket path is empty");
  if (path.find('\0') != std::string_view::npos) {
    return invalid("the engine socket path contains a NUL byte");
  }
  if (path.front() != '/') {
    return invalid("engine socket path '" + std::string(path) +
                   "' is not absolute; give the full path, e.g. unix:///var/run/docker.sock");
  }
  if (path.size() > kMaxUnixPathLength) {
    return invalid("engine socket path is " + std::to_string(path.size()) +
                   " bytes long; the limit for a unix socket is " +
                   std::to_string(kMaxUnixPathLength) + " (use a shorter path)");
  }
  EngineAddress address;
  address.kind_ = Kind::kUnix;
  address.path_ = std::string(path);
  return address;
}

Result<EngineAddress> EngineAddress::parse(std::string_view text) {
  if (text.empty()) return invalid("the engine address is empty");
  if (text.front() == '/') return unix_socket(text);

  const std::size_t scheme_end = text.find("://");
  if (scheme_end == std::string_view::npos) {
    // "unix:/path" is how some tools write it.
    if (ascii_lower(text.substr(0, 5)) == "unix:") return unix_socket(text.substr(5));
    std::string message(1, '\'');  // not `"'" + std::string`: see parse_port
    message.append(text).append(
        "' is not an engine address; use unix:///path/to/socket or tcp://host:port");
    return invalid(message);
  }
  const std::string scheme = ascii_lower(text.substr(0, scheme_end));
  std::string_view rest = text.substr(scheme_end + 3);

  if (scheme == "unix") return unix_socket(rest);
  if (scheme != "tcp" && scheme != "http") {
    std::string reason = unsupported_scheme_reason(scheme);
    if (reason.empty()) {
      reason = "unsupported engine address scheme '" + scheme +
               "://'; use unix:///path/to/socket or tcp://host:port";
    }
    return invalid(std::move(reason));
  }

  // tcp://host[:port][/]
  if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  if (rest.find('/') != std::string_view::npos || rest.find('?') != std::string_view::npos) {
    return invalid("engine address '" + std::string(text) +
                   "' has a path; a tcp:// address is just tcp://host:port");
  }
  std::string_view host;
  std::string_view port_text;
  if (!rest.empty() && rest.front() == '[') {  // [IPv6]:port
    const std::size_t close = rest.find(']');
    if (close == std::string_view::npos) {
      return invalid("engine address '" + std::string(text) + "' has an unclosed '['");
    }
    host = rest.substr(1, close - 1);
    std::string_view after = rest.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') {
        return invalid("engine address '" + std::string(text) + "': expected ':port' after ']'");
      }
      port_text = after.substr(1);
    }
  } else {
    const std::size_t colon = rest.rfind(':');
    if (colon != std::string_view::npos && rest.find(':') != colon) {
      return invalid("engine address '" + std::string(text) +
                     "': write an IPv6 host in brackets, tcp://[::1]:2375");
    }
    host = rest.substr(0, colon);
    if (colon != std::string_view::npos) port_text = rest.substr(colon + 1);
  }
  if (host.empty()) return invalid("engine address '" + std::string(text) + "' has no host");

  EngineAddress address;
  address.kind_ = Kind::kTcp;
  address.host_ = std::string(host);
  address.port_ = kDefaultTcpPort;
  if (!port_text.empty() || (rest.size() > host.size() && rest.back() == ':')) {
    auto port = parse_port(port_text, text);
    if (!port) return port.error();
    address.port_ = port.value();
  }
  return address;
}

std::string EngineAddress::display() const {
  if (kind_ == Kind::kUnix) return "unix://" + path_;
  const bool bracket = host_.find(':') != std::string::npos;
  return "tcp://" + (bracket ? "[" + host_ + "]" : host_) + ":" + std::to_string(port_);
}

std::string EngineAddress::host_header() const {
  if (kind_ == Kind::kUnix) return "docker";
  const bool bracket = host_.find(':') != std::string::npos;
  return (bracket ? "[" + host_ + "]" : host_) + ":" + std::to_string(port_);
}

}  // namespace vc::engine
