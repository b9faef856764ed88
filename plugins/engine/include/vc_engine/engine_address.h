// engine_address.h — where the engine listens: a unix socket or a plain-TCP host and port.
//
// Accepted forms (what DOCKER_HOST, CONTAINER_HOST and --docker-host hold):
//   unix:///var/run/docker.sock   unix:/var/run/docker.sock   /var/run/docker.sock
//   tcp://127.0.0.1:2375          tcp://localhost:2375        tcp://[::1]:2375
//   tcp://host                    (port 2375, the engine's plain-HTTP default)
//   http://host:port              (the same as tcp://; plain HTTP)
// Refused with a sentence that says why: https:// (TLS is not supported), ssh:// (needs the docker
// CLI), npipe:// and fd://, relative socket paths, and unix socket paths longer than 107 bytes (the
// kernel's sun_path limit; libuv 1.44 would cut such a path silently and connect somewhere else).
//
// A value type: copy it freely, use it from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "vc_engine/engine_error.h"

namespace vc::engine {

class EngineAddress {
 public:
  enum class Kind { kUnix, kTcp };

  // The longest unix socket path a sockaddr_un holds (108 bytes including the terminating NUL).
  static constexpr std::size_t kMaxUnixPathLength = 107;
  // The port a tcp:// address without one uses (the engine's plain-HTTP port).
  static constexpr std::uint16_t kDefaultTcpPort = 2375;

  // Parses `text` (forms above). On failure: kInvalidArgument with a message such as
  // "ssh:// engine addresses are not supported (they need the docker CLI); use a unix socket or
  // tcp://" or "unix socket path is 130 bytes long; the limit is 107". Any thread.
  static Result<EngineAddress> parse(std::string_view text);

  // A unix socket address for an absolute path (same checks as parse()).
  static Result<EngineAddress> unix_socket(std::string_view path);

  Kind kind() const { return kind_; }
  bool is_unix() const { return kind_ == Kind::kUnix; }
  // The socket path (kUnix only).
  const std::string& path() const { return path_; }
  // The host name or IP literal without brackets (kTcp only), e.g. "127.0.0.1", "::1".
  const std::string& host() const { return host_; }
  // The TCP port (kTcp only).
  std::uint16_t port() const { return port_; }

  // The canonical form for messages: "unix:///var/run/docker.sock", "tcp://127.0.0.1:2375",
  // "tcp://[::1]:2375".
  std::string display() const;

  // The value for the HTTP Host header: "docker" for unix sockets (engines need one but ignore
  // it), "host:port" for TCP.
  std::string host_header() const;

  friend bool operator==(const EngineAddress&, const EngineAddress&) = default;

 private:
  EngineAddress() = default;

  Kind kind_ = Kind::kUnix;
  std::string path_;
  std::string host_;
  std::uint16_t port_ = 0;
};

}  // namespace vc::engine
