// engine_fault_proxy.h — a unix-socket listener that stands between a plugin and the real
// engine and spoils chosen answers: malformed HTTP, a chunked body cut short, a body that is
// not JSON, a connection closed without an answer, an exec stream cut in the middle of a frame.
//
// The engine client opens one connection per request, so the proxy reads one request head per
// connection, picks the first rule whose method and target match, and either answers the
// fault itself or relays the connection both ways (cutting the answer where the rule says).
// Requests no rule matches are relayed untouched, so the host can get far enough to meet the
// fault it is meant to meet. Threads: one to accept, one per connection; all joined by the
// destructor.
#pragma once

#include <atomic>
#include <cstddef>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace vc::fault {

enum class Fault {
  kMalformedStatusLine,  // "HTXP/9 banana" and close
  kTruncatedChunkedBody,  // 200, chunked, half a chunk, close
  kBodyNotJson,          // 200 application/json with a body that is not JSON
  kCloseWithoutAnswer,   // close as soon as the request head arrived
  kCutAfterBodyBytes,    // relay, then close after `cut_after` bytes of the answer's body
};

struct FaultRule {
  std::string method;           // empty: any
  std::string target_contains;  // substring of the request target ("/exec/", "/json")
  Fault fault = Fault::kCloseWithoutAnswer;
  std::size_t cut_after = 0;    // for kCutAfterBodyBytes
  int times = -1;               // how many requests it spoils; -1: all
};

class EngineFaultProxy {
 public:
  // Listens on `<directory>/engine.sock`, relaying to the engine's socket `upstream_path`.
  EngineFaultProxy(const std::string& directory, std::string upstream_path,
                   std::vector<FaultRule> rules);
  ~EngineFaultProxy();
  EngineFaultProxy(const EngineFaultProxy&) = delete;
  EngineFaultProxy& operator=(const EngineFaultProxy&) = delete;

  std::string address() const { return "unix://" + path_; }
  // Adds a rule after the ones given (for faults that must wait until the host is set up).
  void add_rule(FaultRule rule);
  // How many requests a rule spoiled so far.
  int faults_served() const { return faults_served_.load(); }
  // Every request line seen ("GET /v1.41/_ping"), in order.
  std::vector<std::string> requests() const;

 private:
  void accept_loop();
  void serve(int client);
  const FaultRule* take_rule(const std::string& method, const std::string& target);
  void relay(int client, int upstream, std::string head, const FaultRule* cut);

  std::string path_;
  std::string upstream_path_;
  std::vector<FaultRule> rules_;
  int listener_ = -1;
  int wake_[2] = {-1, -1};  // written by the destructor to stop every thread
  std::atomic<int> faults_served_{0};
  mutable std::mutex mutex_;  // guards rules_' counters, requests_ and workers_
  std::vector<std::string> requests_;
  std::vector<std::thread> workers_;
  std::thread acceptor_;
};

}  // namespace vc::fault
