// fake_engine.cpp — blocking-socket fake engine for the client tests.
#include "fake_engine.h"

#include <arpa/inet.h>
#include <llhttp.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace vc::engine::testing {
namespace {

struct RequestCollector {
  FakeConnection::Request request;
  std::string field;
  std::string value;
  bool complete = false;
};

RequestCollector& collector(llhttp_t* parser) {
  return *static_cast<RequestCollector*>(parser->data);
}

}  // namespace

FakeConnection::~FakeConnection() {
  close();
}

FakeConnection::Request FakeConnection::read_request() {
  llhttp_settings_t settings;
  llhttp_settings_init(&settings);
  settings.on_url = [](llhttp_t* p, const char* at, size_t n) {
    collector(p).request.target.append(at, n);
    return 0;
  };
  settings.on_header_field = [](llhttp_t* p, const char* at, size_t n) {
    collector(p).field.append(at, n);
    return 0;
  };
  settings.on_header_value = [](llhttp_t* p, const char* at, size_t n) {
    collector(p).value.append(at, n);
    return 0;
  };
  settings.on_header_value_complete = [](llhttp_t* p) {
    auto& c = collector(p);
    c.request.headers.add(c.field, c.value);
    c.field.clear();
    c.value.clear();
    return 0;
  };
  settings.on_body = [](llhttp_t* p, const char* at, size_t n) {
    collector(p).request.body.append(at, n);
    return 0;
  };
  settings.on_message_complete = [](llhttp_t* p) {
    collector(p).complete = true;
    return static_cast<int>(HPE_PAUSED);  // stop right after this request
  };
  RequestCollector state;
  llhttp_t parser;
  llhttp_init(&parser, HTTP_REQUEST, &settings);
  parser.data = &state;

  std::string seen;
  auto consume = [&](std::string_view data) {
    const llhttp_errno_t rc = llhttp_execute(&parser, data.data(), data.size());
    if (rc == HPE_PAUSED || rc == HPE_PAUSED_UPGRADE) {
      const char* end = llhttp_get_error_pos(&parser);
      const auto used = static_cast<std::size_t>(end - data.data());
      seen.append(data.substr(0, used));
      buffered_ = std::string(data.substr(used));
      return true;
    }
    seen.append(data);
    return rc != HPE_OK;
  };
  std::string pending = std::move(buffered_);
  buffered_.clear();
  bool done = !pending.empty() && consume(pending);
  char buffer[4096];
  while (!done && !state.complete) {
    const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
    if (n <= 0) return {};
    done = consume(std::string_view(buffer, static_cast<std::size_t>(n)));
  }
  if (!state.complete) return {};
  state.request.method = llhttp_method_name(static_cast<llhttp_method_t>(parser.method));
  const std::size_t head_end = seen.find("\r\n\r\n");
  state.request.raw_head =
      seen.substr(0, head_end == std::string::npos ? seen.size() : head_end + 4);
  return state.request;
}

void FakeConnection::send(std::string_view bytes) {
  while (!bytes.empty() && fd_ >= 0) {
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
}

void FakeConnection::send_pieces(const std::vector<std::string>& pieces,
                                 std::chrono::milliseconds pause) {
  for (const std::string& piece : pieces) {
    send(piece);
    std::this_thread::sleep_for(pause);
  }
}

std::string FakeConnection::read_until_eof() {
  std::string data = std::move(buffered_);
  buffered_.clear();
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
    if (n <= 0) return data;
    data.append(buffer, static_cast<std::size_t>(n));
  }
}

std::string FakeConnection::read_until(std::string_view marker) {
  std::string data = std::move(buffered_);
  buffered_.clear();
  char buffer[4096];
  for (;;) {
    const std::size_t found = data.find(marker);
    if (found != std::string::npos) {
      buffered_ = data.substr(found + marker.size());
      data.resize(found + marker.size());
      return data;
    }
    const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
    if (n <= 0) return data;
    data.append(buffer, static_cast<std::size_t>(n));
  }
}

bool FakeConnection::peer_closed(std::chrono::milliseconds wait) {
  const auto deadline = std::chrono::steady_clock::now() + wait;
  char buffer[4096];
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd pfd{fd_, POLLIN, 0};
    if (::poll(&pfd, 1, 20) > 0) {
      const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
      if (n <= 0) return true;
    }
  }
  return false;
}

void FakeConnection::shutdown_write() {
  ::shutdown(fd_, SHUT_WR);
}

void FakeConnection::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::unique_ptr<FakeEngine> FakeEngine::on_unix_socket(Script script) {
  std::unique_ptr<FakeEngine> engine(new FakeEngine);
  engine->script_ = std::move(script);
  char pattern[] = "/tmp/vc-engine-test-XXXXXX";
  if (::mkdtemp(pattern) == nullptr) throw std::runtime_error("mkdtemp failed");
  engine->directory_ = pattern;
  engine->socket_path_ = engine->directory_ + "/engine.sock";
  engine->address_ = "unix://" + engine->socket_path_;
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, engine->socket_path_.c_str(), sizeof addr.sun_path - 1);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 16) != 0) {
    throw std::runtime_error("cannot listen on " + engine->socket_path_);
  }
  engine->start(fd);
  return engine;
}

std::unique_ptr<FakeEngine> FakeEngine::on_loopback_tcp(Script script) {
  std::unique_ptr<FakeEngine> engine(new FakeEngine);
  engine->script_ = std::move(script);
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t length = sizeof addr;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 16) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length) != 0) {
    throw std::runtime_error("cannot listen on 127.0.0.1");
  }
  engine->address_ = "tcp://127.0.0.1:" + std::to_string(ntohs(addr.sin_port));
  engine->start(fd);
  return engine;
}

void FakeEngine::start(int listen_fd) {
  listen_fd_ = listen_fd;
  acceptor_ = std::thread([this] { accept_loop(); });
}

void FakeEngine::set_script(Script script) {
  std::lock_guard lock(mutex_);
  script_ = std::move(script);
}

void FakeEngine::accept_loop() {
  for (;;) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (stopping_) return;
      continue;
    }
    ++connections_;
    Script script;
    {
      std::lock_guard lock(mutex_);
      script = script_;
    }
    std::lock_guard lock(mutex_);
    workers_.emplace_back([fd, script = std::move(script)] {
      FakeConnection connection(fd);
      if (script) script(connection);
    });
  }
}

FakeEngine::~FakeEngine() {
  stopping_ = true;
  ::shutdown(listen_fd_, SHUT_RDWR);  // wakes accept()
  acceptor_.join();
  ::close(listen_fd_);
  for (std::thread& worker : workers_) worker.join();
  if (!directory_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(directory_, ignored);
  }
}

std::string http_response(int status, std::string_view reason, std::string_view body,
                          std::string_view extra_headers) {
  std::string out = "HTTP/1.1 " + std::to_string(status) + " " + std::string(reason) + "\r\n";
  out += extra_headers;
  out += "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n";
  out += body;
  return out;
}

std::string chunked(const std::vector<std::string>& chunks) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (const std::string& chunk : chunks) {
    std::string size;
    for (std::size_t n = chunk.size(); n > 0; n /= 16) size.insert(size.begin(), kHex[n % 16]);
    out += size + "\r\n" + chunk + "\r\n";
  }
  out += "0\r\n\r\n";
  return out;
}

std::string frame(unsigned char stream, std::string_view payload) {
  std::string out(8, '\0');
  out[0] = static_cast<char>(stream);
  const auto size = static_cast<std::uint32_t>(payload.size());
  out[4] = static_cast<char>((size >> 24) & 0xFF);
  out[5] = static_cast<char>((size >> 16) & 0xFF);
  out[6] = static_cast<char>((size >> 8) & 0xFF);
  out[7] = static_cast<char>(size & 0xFF);
  out += payload;
  return out;
}

}  // namespace vc::engine::testing
