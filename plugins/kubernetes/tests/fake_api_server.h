// fake_api_server.h — a TLS server on 127.0.0.1 that answers as a test scripts it, for the
// transport's unit tests of what a real cluster cannot be made to do on demand: close a kept-alive
// connection, answer 16 MiB, split a watch's events across chunks, never answer.
//
// It has its own self-signed certificate for IP 127.0.0.1 (certificate_pem() is the CA a client
// trusts) and serves each connection on a thread of its own with Beast's synchronous API.
//
// Thread rule: construct and destroy on the test's thread; the handler runs on connection
// threads (one at a time per connection, several connections at once); the accessors lock.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>

namespace vc::kubernetes::testing {

class FakeApiServer {
 public:
  struct Request {
    std::string method;
    std::string target;
    std::string authorization;
    std::string content_type;
    std::string body;
    int connection = 0;  // 1 for the first connection accepted, and so on
  };

  struct Reply {
    enum class Action {
      answer,          // send the reply
      close_silently,  // close the connection without a byte
      never_answer,    // keep the connection open and answer nothing until the server ends
    };
    Action action = Action::answer;
    int status = 200;
    std::string content_type = "application/json";
    std::string body;
    // When not empty: a chunked answer, each piece its own chunk, written and flushed alone
    // after `pause`; the body above is then unused.
    std::vector<std::string> chunks;
    std::chrono::milliseconds pause{0};
    // After the chunks, keep the answer open (no last chunk) until the server ends: a watch that
    // goes on.
    bool hold_open = false;
    // Close the connection after the reply although its header promised keep-alive (as a server
    // that drops idle connections does).
    bool close_after_reply = false;
  };

  using Handler = std::function<Reply(const Request&)>;

  explicit FakeApiServer(Handler handler);
  ~FakeApiServer();
  FakeApiServer(const FakeApiServer&) = delete;
  FakeApiServer& operator=(const FakeApiServer&) = delete;

  std::string url() const { return "https://127.0.0.1:" + std::to_string(port_); }
  const std::string& certificate_pem() const { return certificate_pem_; }
  int connections_accepted() const { return connections_accepted_.load(); }
  std::vector<Request> requests() const;

 private:
  void accept_loop();
  void serve(boost::asio::ip::tcp::socket socket, int number);
  bool stopping() const;

  Handler handler_;
  std::string certificate_pem_;
  boost::asio::io_context context_;
  boost::asio::ssl::context tls_{boost::asio::ssl::context::tls_server};
  boost::asio::ip::tcp::acceptor acceptor_{context_};
  unsigned short port_ = 0;
  std::atomic<int> connections_accepted_{0};

  mutable std::mutex mutex_;  // guards what follows
  std::condition_variable stop_signal_;
  bool stopping_ = false;
  std::vector<Request> requests_;
  std::vector<int> open_sockets_;  // native handles, to wake the threads blocked on them
  std::vector<std::thread> threads_;
  std::thread acceptor_thread_;
};

// A TCP listener on 127.0.0.1 that accepts connections and never sends a byte: what a hung
// server looks like to a client. Closes everything when destroyed.
class SilentListener {
 public:
  SilentListener();
  ~SilentListener();
  SilentListener(const SilentListener&) = delete;
  SilentListener& operator=(const SilentListener&) = delete;
  std::string url() const { return "https://127.0.0.1:" + std::to_string(port_); }
  int connections_accepted() const { return accepted_.load(); }

 private:
  void accept_next();  // on its thread

  boost::asio::io_context context_;
  boost::asio::ip::tcp::acceptor acceptor_{context_};
  unsigned short port_ = 0;
  std::atomic<int> accepted_{0};
  std::vector<boost::asio::ip::tcp::socket> sockets_;
  std::thread thread_;
};

// A port on 127.0.0.1 where nothing listens (bound once, then released).
unsigned short unused_loopback_port();

}  // namespace vc::kubernetes::testing
