// credential_cache.cpp — cached credentials and their TLS context; a refresh thread asks the
// source. Thread rule: see credential_cache.h.
#include "credential_cache.h"

namespace vc::kubernetes {
namespace {

// Credentials that expire sooner than this are asked for again before a call uses them, so that
// they do not expire while the call is on its way.
constexpr std::chrono::seconds kExpiryMargin{10};

std::string with_full_stop(std::string text) {
  if (text.empty() || (text.back() != '.' && text.back() != '?' && text.back() != '!')) {
    text += '.';
  }
  return text;
}

}  // namespace

CredentialCache::CredentialCache(ApiLoop& loop, ApiEndpoint endpoint, std::string server)
    : loop_(loop), endpoint_(std::move(endpoint)), server_(std::move(server)) {}

CredentialCache::~CredentialCache() { stop(); }

bool CredentialCache::usable(const Snapshot& snapshot, std::uint64_t refused_generation) const {
  if (!snapshot || snapshot->generation <= refused_generation) return false;
  const auto& expires_at = snapshot->credentials.expires_at;
  return !expires_at || std::chrono::system_clock::now() + kExpiryMargin < *expires_at;
}

void CredentialCache::acquire(std::uint64_t refused_generation, Ready ready) {
  std::unique_lock lock(mutex_);
  if (stopping_) {
    lock.unlock();
    ready(cancelled_error());
    return;
  }
  if (usable(cached_, refused_generation)) {
    Snapshot snapshot = cached_;
    lock.unlock();
    ready(std::move(snapshot));
    return;
  }
  queue_.push_back(Request{refused_generation, std::move(ready)});
  if (!refresher_.joinable()) refresher_ = std::thread([this] { run_refresher(); });
  wake_.notify_one();
}

void CredentialCache::stop() {
  std::deque<Request> abandoned;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    abandoned.swap(queue_);
  }
  wake_.notify_one();
  if (refresher_.joinable()) refresher_.join();
  for (Request& request : abandoned) {
    loop_.post([ready = std::move(request.ready), error = cancelled_error()] { ready(error); });
  }
}

void CredentialCache::run_refresher() {
  std::unique_lock lock(mutex_);
  while (true) {
    wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    Request request = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    auto result = refresh(request.refused_generation);
    loop_.post([ready = std::move(request.ready), result = std::move(result)] { ready(result); });
    lock.lock();
  }
}

ApiExpected<CredentialCache::Snapshot> CredentialCache::refresh(std::uint64_t refused_generation) {
  bool invalidate = false;
  {
    std::lock_guard lock(mutex_);
    // An earlier request of the queue may have refreshed already: one current() serves all.
    if (usable(cached_, refused_generation)) return cached_;
    if (refused_generation != 0 && cached_ && cached_->generation == refused_generation) {
      invalidate = true;  // once per refused generation, however many calls were refused
      cached_.reset();
    }
  }
  CredentialSource& source = *endpoint_.credentials;
  if (invalidate) source.invalidate();
  ConfigExpected<Credentials> credentials = source.current();
  if (!credentials) {
    return ApiError{ApiErrorKind::credentials, 0, "",
                    "Cannot get credentials for the Kubernetes API at " + server_ + " from " +
                        bounded_quote(source.describe(), 200) + ": " +
                        with_full_stop(bounded_quote(credentials.error().message, 500))};
  }
  auto tls = tls_for(credentials.value());
  if (!tls) return tls.error();

  auto snapshot = std::make_shared<CredentialSnapshot>();
  snapshot->credentials = std::move(credentials).value();
  snapshot->tls = std::move(tls).value();
  std::lock_guard lock(mutex_);
  snapshot->generation = ++last_generation_;
  cached_ = snapshot;
  last_tls_owner_ = snapshot;
  return Snapshot(std::move(snapshot));
}

ApiExpected<std::shared_ptr<boost::asio::ssl::context>> CredentialCache::tls_for(
    const Credentials& credentials) {
  Snapshot previous;
  {
    std::lock_guard lock(mutex_);
    previous = last_tls_owner_;
  }
  const auto same_as_before = [&](const Credentials& before) {
    return before.client_certificate_pem == credentials.client_certificate_pem &&
           before.client_key_pem == credentials.client_key_pem;
  };
  if (previous && same_as_before(previous->credentials)) {
    return previous->tls;
  }
  return make_tls_context(endpoint_, credentials);
}

ApiError CredentialCache::cancelled_error() const {
  return ApiError{ApiErrorKind::cancelled, 0, "",
                  "The call to the Kubernetes API at " + server_ +
                      " was cancelled: its client is shutting down."};
}

}  // namespace vc::kubernetes
