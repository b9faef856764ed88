// desktop_view_proxy.cpp — the listener (accepting, the connection bound, stopping) and one
// Relay per accepted connection (the bytes both ways, their backpressure, the ending of both
// sides).
// Thread rule: see desktop_view_proxy.h. Listener and Relay members marked [loop] run on the
// loop thread only; the Listener's pod and end-of-stop flag are guarded by its mutex.
#include "desktop_view_proxy.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>

#include "api_error.h"

namespace vc::kubernetes {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;

// After a failed accept (out of file descriptors, say), the next try waits this long rather
// than spinning.
constexpr std::chrono::milliseconds kAcceptRetryDelay{200};
// stop() off the loop thread checks this often whether the loop still runs.
constexpr std::chrono::milliseconds kStopCheckInterval{100};

// A PortForwardStream as the proxy uses it.
class ForwardedPortStream final : public PodPortStream {
 public:
  explicit ForwardedPortStream(std::shared_ptr<PortForwardStream> stream)
      : stream_(std::move(stream)) {}
  WriteAdmission write(std::string bytes) override { return stream_->write(std::move(bytes)); }
  void close() override { stream_->close(); }
  void cancel() override { stream_->cancel(); }
  void pause_receiving() override { stream_->pause_receiving(); }
  void resume_receiving() override { stream_->resume_receiving(); }

 private:
  std::shared_ptr<PortForwardStream> stream_;
};

}  // namespace

// Named, not anonymous: the Listener (declared in the header) holds them.
namespace desktop_view_relay {

// What every Relay of one listener shares: the options and where to log, and how.
struct RelaySettings {
  DesktopViewProxyOptions options;
  sdk::HostLog log{nullptr};
  std::string place;  // "the desktop of computer c1 at 127.0.0.1:40123", for log lines
};

// One accepted connection and the stream it is relayed over. Ends when both its socket is
// closed and its stream has reported its end; then `on_finished` runs (once).
class Relay : public std::enable_shared_from_this<Relay> {
 public:
  Relay(tcp::socket socket, std::shared_ptr<const RelaySettings> settings,
        std::function<void(Relay*)> on_finished)
      : socket_(std::move(socket)),
        settings_(std::move(settings)),
        on_finished_(std::move(on_finished)) {}

  // [loop] Opens the stream and starts relaying.
  void begin(const PodPortOpener& opener, const std::string& pod) {
    error_code ignored;
    socket_.set_option(tcp::no_delay(true), ignored);  // a desktop's input is small and urgent
    stream_ = opener(pod, stream_callbacks());
    if (!stream_) {
      settings_->log.error("A connection to " + settings_->place +
                           " was closed: no stream to the pod could be opened.");
      stream_ended_ = true;
      close_browser();
      return;
    }
    read_browser();
  }

  // [loop] Ends both sides now (stop()): the stream is cancelled, the socket closed.
  void abort() {
    cancel_stream();
    close_browser();
  }

 private:
  PortForwardCallbacks stream_callbacks() {
    PortForwardCallbacks callbacks;
    auto self = shared_from_this();
    callbacks.on_data = [self](std::string_view bytes) { self->on_pod_bytes(bytes); };
    callbacks.on_drained = [self] { self->on_stream_drained(); };
    callbacks.on_close = [self](ApiExpected<void> result) { self->on_stream_end(result); };
    return callbacks;
  }

  // --- browser to pod ---------------------------------------------------------------------------

  // [loop] Reads the next piece, unless a piece still waits for the stream or either side ended.
  void read_browser() {
    if (reading_ || browser_closed_ || browser_ended_ || stream_ended_ || !to_pod_.empty()) return;
    reading_ = true;
    read_buffer_.resize(settings_->options.read_chunk_bytes);
    socket_.async_read_some(asio::buffer(read_buffer_),
                            [self = shared_from_this()](const error_code& error, std::size_t size) {
                              self->on_browser_read(error, size);
                            });
  }

  // [loop]
  void on_browser_read(const error_code& error, std::size_t size) {
    reading_ = false;
    if (browser_closed_) return;
    if (error) return on_browser_end();
    if (stream_ended_) return;  // nobody to give it to; the socket closes after the flush
    to_pod_.assign(read_buffer_.data(), size);
    pass_to_pod();
  }

  // [loop] Offers the waiting piece to the stream; reads on only once it is taken.
  void pass_to_pod() {
    if (!stream_ || stream_ended_) return;
    switch (stream_->write(to_pod_)) {  // a copy: a refused write gives nothing back
      case WriteAdmission::queued:
        to_pod_.clear();
        return read_browser();
      case WriteAdmission::full:
        return;  // on_stream_drained tries again
      case WriteAdmission::too_big:
        settings_->log.error("A connection to " + settings_->place + " was closed: its stream " +
                             "refused " + describe_size(to_pod_.size()) +
                             " at once; read_chunk_bytes must not be larger than the stream's "
                             "queue bound.");
        to_pod_.clear();
        cancel_stream();
        return close_browser();
      case WriteAdmission::ended:
        to_pod_.clear();  // the stream is ending; its on_close follows
        return;
    }
  }

  // [loop]
  void on_stream_drained() {
    if (!to_pod_.empty()) pass_to_pod();
  }

  // [loop] The browser closed its side (or its connection broke): the stream gets what was
  // queued, then ends; the socket stays open for what the pod still sends until then.
  void on_browser_end() {
    browser_ended_ = true;
    if (stream_ && !stream_ended_ && !stream_ending_) {
      stream_ending_ = true;
      stream_->close();
    }
  }

  // --- pod to browser ---------------------------------------------------------------------------

  std::size_t buffered_for_browser() const { return to_browser_.size() + writing_.size(); }

  // [loop]
  void on_pod_bytes(std::string_view bytes) {
    if (browser_closed_) return;
    to_browser_.append(bytes);
    if (buffered_for_browser() > settings_->options.max_buffered_bytes) {
      settings_->log.warn("A connection to " + settings_->place + " was closed: the pod's side " +
                          "sent more than " +
                          describe_size(settings_->options.max_buffered_bytes) +
                          " the browser had not taken yet, although asked to pause.");
      to_browser_.clear();
      cancel_stream();
      return close_browser();
    }
    if (!paused_ && buffered_for_browser() > settings_->options.pause_bytes && stream_) {
      paused_ = true;
      stream_->pause_receiving();
    }
    write_browser();
  }

  // [loop] Writes what waits, all of it at once, unless a write is under way.
  void write_browser() {
    if (writing_now_ || to_browser_.empty() || browser_closed_) return;
    writing_now_ = true;
    writing_.swap(to_browser_);
    asio::async_write(socket_, asio::buffer(writing_),
                      [self = shared_from_this()](const error_code& error, std::size_t) {
                        self->on_browser_written(error);
                      });
  }

  // [loop]
  void on_browser_written(const error_code& error) {
    writing_now_ = false;
    writing_.clear();
    if (browser_closed_) return;
    if (error) {
      // The browser is gone. A stream that is already closing keeps sending what the browser
      // sent before; any other is of no use any more.
      to_browser_.clear();
      if (!stream_ending_) cancel_stream();
      return close_browser();
    }
    if (paused_ && buffered_for_browser() <= settings_->options.pause_bytes && stream_ &&
        !stream_ended_) {
      paused_ = false;
      stream_->resume_receiving();
    }
    write_browser();
    if (!writing_now_ && stream_ended_) close_browser();  // the flush after the stream's end
  }

  // --- ending -----------------------------------------------------------------------------------

  // [loop] The stream ended: the browser gets what the pod sent, then its connection closes.
  void on_stream_end(const ApiExpected<void>& result) {
    stream_ended_ = true;
    if (!result && !cancelled_) {
      settings_->log.warn("A connection to " + settings_->place +
                          " was closed: " + result.error().message);
    }
    if (!writing_now_ && to_browser_.empty()) close_browser();
    finish_if_done();
  }

  // [loop]
  void cancel_stream() {
    if (!stream_ || stream_ended_ || cancelled_) return;
    cancelled_ = true;
    stream_ending_ = true;
    stream_->cancel();
  }

  // [loop] Closes the browser's connection (pending reads and writes end, aborted).
  void close_browser() {
    if (browser_closed_) return;
    browser_closed_ = true;
    error_code ignored;
    socket_.shutdown(tcp::socket::shutdown_both, ignored);
    socket_.close(ignored);
    finish_if_done();
  }

  // [loop]
  void finish_if_done() {
    if (finished_ || !browser_closed_ || !stream_ended_) return;
    finished_ = true;
    if (on_finished_) on_finished_(this);
  }

  tcp::socket socket_;
  std::shared_ptr<const RelaySettings> settings_;
  std::function<void(Relay*)> on_finished_;
  std::shared_ptr<PodPortStream> stream_;

  // Loop-thread only.
  std::string read_buffer_;  // the socket's reads land here
  std::string to_pod_;       // a piece the stream has not taken yet
  std::string to_browser_;   // what the pod sent that waits for the socket
  std::string writing_;      // what the socket is writing
  bool reading_ = false;
  bool writing_now_ = false;
  bool paused_ = false;          // the stream was asked to pause_receiving()
  bool browser_ended_ = false;   // the browser's side ended (read EOF or error)
  bool browser_closed_ = false;  // the socket is closed
  bool stream_ending_ = false;   // close() or cancel() was called
  bool cancelled_ = false;       // cancel() was called: its end is not news
  bool stream_ended_ = false;    // on_close came
  bool finished_ = false;
};

}  // namespace desktop_view_relay

namespace {

std::string loopback_place(std::uint16_t port) {
  return "127.0.0.1:" + std::to_string(port);
}

}  // namespace

using desktop_view_relay::Relay;
using desktop_view_relay::RelaySettings;

class DesktopViewProxy::Listener : public std::enable_shared_from_this<Listener> {
 public:
  Listener(ApiLoop& loop, std::string pod, PodPortOpener opener, DesktopViewProxyOptions options,
           sdk::HostLog log)
      : acceptor_(loop.context()),
        retry_timer_(loop.context()),
        opener_(std::move(opener)),
        options_(std::move(options)),
        log_(log),
        pod_(std::move(pod)) {}

  // [caller, before the loop sees the acceptor] Opens, binds and listens; the port, or why not.
  sdk::Expected<std::uint16_t, DesktopViewProxyError> listen() {
    const std::string wanted = loopback_place(options_.port);
    error_code error;
    const tcp::endpoint endpoint(asio::ip::address_v4::loopback(), options_.port);
    acceptor_.open(endpoint.protocol(), error);
    // A listener started again on its port must not wait for the old connections' TIME_WAIT;
    // on Linux this still refuses a port another socket listens on.
    if (!error) acceptor_.set_option(tcp::acceptor::reuse_address(true), error);
    if (!error) acceptor_.bind(endpoint, error);
    if (!error) acceptor_.listen(asio::socket_base::max_listen_connections, error);
    std::uint16_t port = 0;
    if (!error) port = acceptor_.local_endpoint(error).port();
    if (error) {
      error_code ignored;
      acceptor_.close(ignored);
      return DesktopViewProxyError{listen_failure(wanted, options_.subject, error)};
    }
    auto settings = std::make_shared<RelaySettings>();
    settings->options = options_;
    settings->log = log_;
    settings->place = options_.subject + " at " + loopback_place(port);
    settings_ = std::move(settings);
    return port;
  }

  // [loop]
  void accept_next() {
    if (stopping_) return;
    acceptor_.async_accept(
        [self = shared_from_this()](const error_code& error, tcp::socket socket) {
          self->on_accepted(error, std::move(socket));
        });
  }

  // [any-thread]
  void retarget(std::string pod) {
    std::lock_guard lock(mutex_);
    pod_ = std::move(pod);
  }

  // [any-thread]
  std::size_t open_connections() const { return open_count_.load(); }

  // [loop] Closes the listener and ends every relay. Idempotent.
  void shut() {
    if (stopping_) return;
    stopping_ = true;
    error_code ignored;
    acceptor_.close(ignored);
    retry_timer_.cancel();
    std::vector<std::shared_ptr<Relay>> relays;
    for (const auto& [key, relay] : relays_) relays.push_back(relay);
    for (const auto& relay : relays) relay->abort();  // may forget() some at once
    if (relays_.empty()) mark_ended();
  }

  // [any-thread but the loop's] Waits until shut() has seen every relay end, or the loop stops.
  void wait_until_ended(ApiLoop& loop) {
    std::unique_lock lock(mutex_);
    while (!ended_) {
      if (loop.context().stopped()) return;  // nothing will end them any more
      ended_signal_.wait_for(lock, kStopCheckInterval);
    }
  }

 private:
  static std::string listen_failure(const std::string& place_wanted, const std::string& subject,
                                    const error_code& error) {
    std::string why = error.message();
    if (error == asio::error::address_in_use) {
      why = "the port is already in use. Choose another port, or 0 to let the system pick a free "
            "one";
    } else if (error == asio::error::access_denied) {
      why = "permission denied (ports below 1024 need privileges). Choose a port above 1023, or "
            "0 to let the system pick a free one";
    }
    return "Cannot listen on " + place_wanted + " for " + subject + ": " + why + ".";
  }

  // [loop]
  void on_accepted(const error_code& error, tcp::socket socket) {
    if (stopping_) return;  // the socket, if any, closes as it goes
    if (error == asio::error::operation_aborted) return;
    if (error) return retry_accept_later(error);
    if (relays_.size() >= options_.max_connections) {
      log_.warn("Refused a connection to " + settings_->place + ": " +
                std::to_string(relays_.size()) + " connections are open, the most it relays at " +
                "once.");
      error_code ignored;
      socket.close(ignored);
      return accept_next();
    }
    std::weak_ptr<Listener> weak_self = shared_from_this();
    auto relay = std::make_shared<Relay>(std::move(socket), settings_, [weak_self](Relay* ended) {
      if (auto self = weak_self.lock()) self->forget(ended);
    });
    relays_.emplace(relay.get(), relay);
    ++open_count_;
    relay->begin(opener_, current_pod());
    accept_next();
  }

  // [loop]
  void retry_accept_later(const error_code& error) {
    log_.warn("Accepting a connection to " + settings_->place + " failed: " + error.message() +
              "; trying again in " + describe_duration(kAcceptRetryDelay) + ".");
    retry_timer_.expires_after(kAcceptRetryDelay);
    retry_timer_.async_wait([self = shared_from_this()](const error_code& waited) {
      if (!waited) self->accept_next();
    });
  }

  // [loop] A relay ended both its sides.
  void forget(Relay* relay) {
    if (relays_.erase(relay) == 0) return;
    --open_count_;
    if (stopping_ && relays_.empty()) mark_ended();
  }

  // [loop]
  void mark_ended() {
    {
      std::lock_guard lock(mutex_);
      ended_ = true;
    }
    ended_signal_.notify_all();
  }

  std::string current_pod() const {
    std::lock_guard lock(mutex_);
    return pod_;
  }

  tcp::acceptor acceptor_;
  asio::steady_timer retry_timer_;
  PodPortOpener opener_;
  DesktopViewProxyOptions options_;
  sdk::HostLog log_;
  std::shared_ptr<const RelaySettings> settings_;  // set by listen()
  std::atomic<std::size_t> open_count_{0};

  // Loop-thread only.
  bool stopping_ = false;
  std::unordered_map<Relay*, std::shared_ptr<Relay>> relays_;

  mutable std::mutex mutex_;  // guards what follows
  std::condition_variable ended_signal_;
  std::string pod_;
  bool ended_ = false;  // shut() has seen every relay end
};

PodPortOpener port_forward_opener(ApiLoop& loop, ApiEndpoint endpoint,
                                  PortForwardRequest request) {
  return [&loop, endpoint = std::move(endpoint), request = std::move(request)](
             const std::string& pod,
             PortForwardCallbacks callbacks) -> std::shared_ptr<PodPortStream> {
    PortForwardRequest to_pod = request;
    to_pod.pod = pod;
    return std::make_shared<ForwardedPortStream>(
        PortForwardStream::start(loop, endpoint, std::move(to_pod), std::move(callbacks)));
  };
}

sdk::Expected<std::unique_ptr<DesktopViewProxy>, DesktopViewProxyError> DesktopViewProxy::start(
    ApiLoop& loop, std::string pod, PodPortOpener opener, DesktopViewProxyOptions options,
    sdk::HostLog log) {
  const std::string subject = options.subject;
  auto listener = std::make_shared<Listener>(loop, std::move(pod), std::move(opener),
                                             std::move(options), log);
  auto port = listener->listen();
  if (!port) return port.error();
  log.info("Listening on " + loopback_place(port.value()) + " for " + subject + ".");
  loop.post([listener] { listener->accept_next(); });
  return std::make_unique<DesktopViewProxy>(loop, std::move(listener), port.value());
}

DesktopViewProxy::DesktopViewProxy(ApiLoop& loop, std::shared_ptr<Listener> listener,
                                   std::uint16_t port)
    : loop_(loop), listener_(std::move(listener)), port_(port) {}

DesktopViewProxy::~DesktopViewProxy() { stop(); }

void DesktopViewProxy::retarget(std::string pod) { listener_->retarget(std::move(pod)); }

std::size_t DesktopViewProxy::open_connections() const { return listener_->open_connections(); }

void DesktopViewProxy::stop() {
  if (loop_.on_loop_thread()) return listener_->shut();
  loop_.post([listener = listener_] { listener->shut(); });
  listener_->wait_until_ended(loop_);
}

}  // namespace vc::kubernetes
