// fake_engine.h — a scripted engine for the client's tests.
//
// Listens on a temporary unix socket (or 127.0.0.1) in the test process. Each accepted
// connection runs the test's script on its own thread with plain blocking socket calls, so the
// client under test (libuv, on its EngineLoop thread) and the fake never share a loop.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "vc_engine/http_types.h"

namespace vc::engine::testing {

// One accepted connection, seen from the fake engine's side.
class FakeConnection {
 public:
  explicit FakeConnection(int fd) : fd_(fd) {}
  ~FakeConnection();
  FakeConnection(const FakeConnection&) = delete;
  FakeConnection& operator=(const FakeConnection&) = delete;

  // Reads one request (head and Content-Length body) with llhttp. Empty method on EOF/error.
  struct Request {
    std::string method;
    std::string target;
    HttpHeaders headers;
    std::string body;
    std::string raw_head;  // the bytes up to and including the blank line
  };
  Request read_request();

  // Sends bytes (all of them).
  void send(std::string_view bytes);
  // Sends each piece with a pause in between, so the client sees separate reads.
  void send_pieces(const std::vector<std::string>& pieces,
                   std::chrono::milliseconds pause = std::chrono::milliseconds(15));
  // Reads until the client half-closes or closes (EOF); returns the bytes (after any that
  // read_request() had already buffered beyond the request).
  std::string read_until_eof();
  // Reads until the bytes received (after any already buffered) contain `marker`, or EOF;
  // returns them up to and including the marker (all of them on EOF) and keeps the rest.
  std::string read_until(std::string_view marker);
  // True once the peer has closed or reset (polls up to `wait`).
  bool peer_closed(std::chrono::milliseconds wait);
  void shutdown_write();
  void close();

 private:
  int fd_;
  std::string buffered_;  // bytes read past the last request
};

class FakeEngine {
 public:
  using Script = std::function<void(FakeConnection&)>;

  // A unix socket in a fresh temporary directory.
  static std::unique_ptr<FakeEngine> on_unix_socket(Script script);
  // A TCP listener on 127.0.0.1, ephemeral port.
  static std::unique_ptr<FakeEngine> on_loopback_tcp(Script script);
  ~FakeEngine();

  // "unix:///tmp/..../engine.sock" or "tcp://127.0.0.1:<port>".
  std::string address() const { return address_; }
  std::string socket_path() const { return socket_path_; }
  // Connections accepted so far.
  int connections() const { return connections_.load(); }
  // Replaces the script for connections accepted from now on.
  void set_script(Script script);

 private:
  FakeEngine() = default;
  void start(int listen_fd);
  void accept_loop();

  int listen_fd_ = -1;
  std::string directory_;
  std::string socket_path_;
  std::string address_;
  std::mutex mutex_;
  Script script_;
  std::thread acceptor_;
  std::vector<std::thread> workers_;
  std::atomic<int> connections_{0};
  std::atomic<bool> stopping_{false};
};

// A canned response: status line, headers, Content-Length body.
std::string http_response(int status, std::string_view reason, std::string_view body,
                          std::string_view extra_headers = "Content-Type: application/json\r\n");

// Chunked transfer encoding of the given chunks (with the terminating zero chunk).
std::string chunked(const std::vector<std::string>& chunks);

// An 8-byte-header output frame.
std::string frame(unsigned char stream, std::string_view payload);

// Waits for a callback's value, up to a deadline (the test fails instead of hanging).
template <class T>
class Outcome {
 public:
  std::function<void(T)> callback() {
    return [promise = promise_](T value) { promise->set_value(std::move(value)); };
  }
  // Blocks up to `wait`; returns nullptr on timeout.
  T* get(std::chrono::milliseconds wait = std::chrono::seconds(10)) {
    if (!value_) {
      if (future_.wait_for(wait) != std::future_status::ready) return nullptr;
      value_ = std::make_unique<T>(future_.get());
    }
    return value_.get();
  }

 private:
  std::shared_ptr<std::promise<T>> promise_ = std::make_shared<std::promise<T>>();
  std::future<T> future_ = promise_->get_future();
  std::unique_ptr<T> value_;
};

}  // namespace vc::engine::testing
