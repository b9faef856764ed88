// credential_cache.h — the credentials (and the TLS context they make) that calls to one API
// server use, asked of the endpoint's CredentialSource only when stale or refused.
//
// A CredentialSource may block (an exec credential plugin runs for seconds), and the ApiLoop must
// never block. So the loop asks acquire(): when the cached snapshot is fresh (no expires_at, or
// expires_at more than a margin away) it answers at once; otherwise a refresh thread of this cache
// calls current() and the answer is posted back to the loop. After a 401 the caller asks again
// with the refused snapshot's generation: the source is invalidated once for that generation
// (however many calls were refused with it) and asked anew.
//
// A client certificate needs its own TLS context (make_tls_context); the context is made anew
// only when the certificate or key changes, so connections made with the previous one stay
// usable while the credentials stay the same.
//
// Thread rule: acquire() on the loop thread, `ready` always runs on the loop thread exactly once;
// stop() and destruction on the owner's thread (not the loop's), stop() waits for a current()
// in progress. The refresh thread only calls the source and posts to the loop.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include <boost/asio/ssl/context.hpp>

#include "api_connection.h"
#include "api_endpoint.h"
#include "api_error.h"
#include "api_loop.h"

namespace vc::kubernetes {

// What one attempt of a call presents. Immutable once made; shared by the calls that use it.
struct CredentialSnapshot {
  Credentials credentials;
  std::shared_ptr<boost::asio::ssl::context> tls;  // trusts the endpoint's CA, has the client cert
  std::uint64_t generation = 0;                    // 1 for the first snapshot, then increasing
};

class CredentialCache {
 public:
  using Snapshot = std::shared_ptr<const CredentialSnapshot>;
  using Ready = std::function<void(ApiExpected<Snapshot>)>;

  // `server` names the API in messages. `endpoint.credentials` must not be null.
  CredentialCache(ApiLoop& loop, ApiEndpoint endpoint, std::string server);
  ~CredentialCache();  // stop()
  CredentialCache(const CredentialCache&) = delete;
  CredentialCache& operator=(const CredentialCache&) = delete;

  // [loop-thread] Calls `ready` with the snapshot to use: at once when the cached one is fresh
  // and newer than `refused_generation` (0: none was refused), otherwise later, on the loop, when
  // the refresh thread has asked the source. Fails with kind credentials (the source failed) or
  // tls (its client certificate is unusable), or cancelled once stop() has run.
  void acquire(std::uint64_t refused_generation, Ready ready);

  // [owner-thread] Ends the refresh thread, waiting for a current() in progress; what is still
  // queued is answered with cancelled. Idempotent.
  void stop();

 private:
  struct Request {
    std::uint64_t refused_generation;
    Ready ready;
  };

  bool usable(const Snapshot& snapshot, std::uint64_t refused_generation) const;
  void run_refresher();
  ApiExpected<Snapshot> refresh(std::uint64_t refused_generation);
  ApiExpected<std::shared_ptr<boost::asio::ssl::context>> tls_for(const Credentials& credentials);
  ApiError cancelled_error() const;

  ApiLoop& loop_;
  const ApiEndpoint endpoint_;
  const std::string server_;

  std::mutex mutex_;  // guards everything below
  std::condition_variable wake_;
  std::deque<Request> queue_;
  bool stopping_ = false;
  Snapshot cached_;
  std::uint64_t last_generation_ = 0;
  Snapshot last_tls_owner_;  // the snapshot whose TLS context the next one may reuse
  std::thread refresher_;    // started on the first refresh
};

}  // namespace vc::kubernetes
