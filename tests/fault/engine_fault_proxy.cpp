// engine_fault_proxy.cpp — plain POSIX sockets and poll(); every wait also watches the wake
// pipe, so the destructor can end the threads whatever they are doing.
#include "engine_fault_proxy.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string_view>
#include <utility>

namespace vc::fault {
namespace {

constexpr int kHeadTimeoutMs = 10'000;
constexpr std::size_t kMaxHead = 64 * 1024;

sockaddr_un unix_address(const std::string& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.size() >= sizeof(address.sun_path)) {
    throw std::runtime_error("socket path too long: " + path);
  }
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  return address;
}

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// Waits until `fd` is readable or the wake pipe fires; false on wake or timeout.
bool wait_readable(int fd, int wake, int timeout_ms) {
  pollfd fds[2] = {{fd, POLLIN, 0}, {wake, POLLIN, 0}};
  int n;
  do {
    n = ::poll(fds, 2, timeout_ms);
  } while (n < 0 && errno == EINTR);
  return n > 0 && fds[1].revents == 0 && fds[0].revents != 0;
}

std::string fault_answer(Fault fault) {
  switch (fault) {
    case Fault::kMalformedStatusLine:
      return "HTXP/9 banana\r\nContent-Length: zz\r\n\r\n\x01\x02garbage";
    case Fault::kTruncatedChunkedBody:
      return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
             "Transfer-Encoding: chunked\r\n\r\n40\r\n{\"Id\":\"0123456789ab";
    case Fault::kBodyNotJson:
      return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 19\r\n\r\n"
             "<html>oops</html>\r\n";
    case Fault::kCloseWithoutAnswer:
    case Fault::kCutAfterBodyBytes:
      break;
  }
  return {};
}

}  // namespace

EngineFaultProxy::EngineFaultProxy(const std::string& directory, std::string upstream_path,
                                   std::vector<FaultRule> rules)
    : path_(directory + "/engine.sock"),
      upstream_path_(std::move(upstream_path)),
      rules_(std::move(rules)) {
  if (::pipe(wake_) != 0) throw std::runtime_error("pipe failed");
  listener_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un address = unix_address(path_);
  if (listener_ < 0 ||
      ::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      ::listen(listener_, 64) != 0) {
    throw std::runtime_error("cannot listen on " + path_ + ": " + std::strerror(errno));
  }
  acceptor_ = std::thread([this] { accept_loop(); });
}

EngineFaultProxy::~EngineFaultProxy() {
  char stop = 'x';
  (void)!::write(wake_[1], &stop, 1);
  if (acceptor_.joinable()) acceptor_.join();
  std::vector<std::thread> workers;
  {
    std::lock_guard lock(mutex_);
    workers = std::move(workers_);
  }
  for (auto& worker : workers) worker.join();
  ::close(listener_);
  ::close(wake_[0]);
  ::close(wake_[1]);
  ::unlink(path_.c_str());
}

void EngineFaultProxy::add_rule(FaultRule rule) {
  std::lock_guard lock(mutex_);
  rules_.push_back(std::move(rule));
}

std::vector<std::string> EngineFaultProxy::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

void EngineFaultProxy::accept_loop() {
  while (wait_readable(listener_, wake_[0], -1)) {
    int client = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    std::lock_guard lock(mutex_);
    workers_.emplace_back([this, client] {
      serve(client);
      ::close(client);
    });
  }
}

const FaultRule* EngineFaultProxy::take_rule(const std::string& method,
                                             const std::string& target) {
  std::lock_guard lock(mutex_);
  requests_.push_back(method + " " + target);
  for (auto& rule : rules_) {
    if (rule.times == 0) continue;
    if (!rule.method.empty() && rule.method != method) continue;
    if (target.find(rule.target_contains) == std::string::npos) continue;
    if (rule.times > 0) --rule.times;
    ++faults_served_;
    return &rule;
  }
  return nullptr;
}

void EngineFaultProxy::serve(int client) {
  std::string head;
  char buffer[16 * 1024];
  while (head.find("\r\n\r\n") == std::string::npos) {
    if (head.size() > kMaxHead || !wait_readable(client, wake_[0], kHeadTimeoutMs)) return;
    ssize_t n = ::recv(client, buffer, sizeof(buffer), 0);
    if (n <= 0) return;
    head.append(buffer, static_cast<std::size_t>(n));
  }
  const std::string request_line = head.substr(0, head.find("\r\n"));
  const std::size_t space = request_line.find(' ');
  const std::string method = request_line.substr(0, space);
  const std::string target =
      space == std::string::npos ? std::string()
                                 : request_line.substr(space + 1, request_line.rfind(' ') - space - 1);
  const FaultRule* rule = take_rule(method, target);
  if (rule != nullptr && rule->fault != Fault::kCutAfterBodyBytes) {
    write_all(client, fault_answer(rule->fault));
    return;
  }
  int upstream = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un address = unix_address(upstream_path_);
  if (upstream < 0 ||
      ::connect(upstream, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    if (upstream >= 0) ::close(upstream);
    return;  // the engine is down: the client sees its connection close
  }
  relay(client, upstream, std::move(head), rule);
  ::close(upstream);
}

// Both ways until both sides are done; with `cut`, the engine's answer ends after that many
// bytes of its body (for an exec, the multiplexed stream after the 101 head).
void EngineFaultProxy::relay(int client, int upstream, std::string head, const FaultRule* cut) {
  if (!write_all(upstream, head)) return;
  bool client_open = true;
  bool upstream_open = true;
  std::string answer_head;
  bool head_done = false;
  std::size_t body_bytes = 0;
  char buffer[16 * 1024];
  while (client_open || upstream_open) {
    pollfd fds[3] = {{client, static_cast<short>(client_open ? POLLIN : 0), 0},
                     {upstream, static_cast<short>(upstream_open ? POLLIN : 0), 0},
                     {wake_[0], POLLIN, 0}};
    if (::poll(fds, 3, -1) < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[2].revents != 0) return;
    if (client_open && fds[0].revents != 0) {
      ssize_t n = ::recv(client, buffer, sizeof(buffer), 0);
      if (n <= 0) {
        client_open = false;
        ::shutdown(upstream, SHUT_WR);
      } else if (!write_all(upstream, std::string_view(buffer, static_cast<std::size_t>(n)))) {
        return;
      }
    }
    if (upstream_open && fds[1].revents != 0) {
      ssize_t n = ::recv(upstream, buffer, sizeof(buffer), 0);
      if (n <= 0) {
        upstream_open = false;
        ::shutdown(client, SHUT_WR);
        continue;
      }
      std::string_view piece(buffer, static_cast<std::size_t>(n));
      if (cut != nullptr) {
        if (!head_done) {
          answer_head.append(piece);
          const std::size_t end = answer_head.find("\r\n\r\n");
          if (end == std::string::npos) {
            if (!write_all(client, piece)) return;
            continue;
          }
          head_done = true;
          // What of this piece belongs to the body.
          const std::size_t body_in_piece = answer_head.size() - (end + 4);
          if (!write_all(client, piece.substr(0, piece.size() - body_in_piece))) return;
          piece = piece.substr(piece.size() - body_in_piece);
        }
        const std::size_t allowed = cut->cut_after - body_bytes;
        if (piece.size() >= allowed) {
          write_all(client, piece.substr(0, allowed));
          return;  // the cut: both connections close
        }
        body_bytes += piece.size();
      }
      if (!write_all(client, piece)) return;
    }
  }
}

}  // namespace vc::fault
