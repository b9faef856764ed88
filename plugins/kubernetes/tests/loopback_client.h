// loopback_client.h — what a browser does to a local listener, for tests: a TCP connection to
// 127.0.0.1:<port> that sends and receives with deadlines. Its own io_context runs only while
// the test waits (run_for), so sends and receives begun before go on across calls, and a test
// can leave the other side waiting (not reading) for as long as it likes.
//
// Thread rule: the test's thread only.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>

namespace vc::kubernetes::testing {

class LoopbackClient {
 public:
  // Connects at once; connect_error says whether it worked. A receive_buffer_bytes above 0 is
  // set on the socket first, so that the kernel holds little of what the test leaves unread.
  explicit LoopbackClient(std::uint16_t port, int receive_buffer_bytes = 0) {
    namespace asio = boost::asio;
    socket_.open(asio::ip::tcp::v4(), connect_error);
    if (!connect_error && receive_buffer_bytes > 0) {
      socket_.set_option(asio::socket_base::receive_buffer_size(receive_buffer_bytes),
                         connect_error);
    }
    if (!connect_error) {
      socket_.connect({asio::ip::address_v4::loopback(), port}, connect_error);
    }
  }

  // Starts sending `bytes` (all of them; sent_all once done).
  void begin_send(std::string bytes) {
    outgoing_ = std::move(bytes);
    sending_ = true;
    boost::asio::async_write(socket_, boost::asio::buffer(outgoing_),
                             [this](const boost::system::error_code& error, std::size_t size) {
                               sending_ = false;
                               sent += size;
                               send_error = error;
                               sent_all = !error;
                             });
  }

  // Starts receiving until `received` holds `total` bytes, or the connection ends.
  void begin_receive(std::size_t total) {
    wanted_ = total;
    if (!receiving_) receive_more();
  }

  // Runs the sends and receives begun for at most `limit`; true when none is left waiting.
  bool run_for(std::chrono::milliseconds limit) {
    context_.restart();
    context_.run_for(limit);
    return idle();
  }

  // Receives until the connection ends (true), or `limit` passes.
  bool receive_until_end(std::chrono::milliseconds limit) {
    begin_receive(SIZE_MAX);
    run_for(limit);
    return ended;
  }

  // Sends and receives `total` bytes within `limit`; true when both are done.
  bool exchange(std::string bytes, std::size_t total, std::chrono::milliseconds limit) {
    if (!bytes.empty()) begin_send(std::move(bytes));
    begin_receive(total);
    return run_for(limit) && received.size() >= total;
  }

  // Closes the connection (what is under way ends aborted).
  void close() {
    boost::system::error_code ignored;
    socket_.close(ignored);
    context_.restart();
    context_.run_for(std::chrono::seconds(5));
  }

  bool idle() const { return !sending_ && !receiving_; }

  boost::system::error_code connect_error;
  boost::system::error_code send_error;
  std::size_t sent = 0;
  bool sent_all = false;
  std::string received;
  bool ended = false;  // the other side closed (end of stream, or reset)

 private:
  void receive_more() {
    if (ended || received.size() >= wanted_) {
      receiving_ = false;
      return;
    }
    receiving_ = true;
    socket_.async_read_some(boost::asio::buffer(buffer_, sizeof buffer_),
                            [this](const boost::system::error_code& error, std::size_t size) {
                              received.append(buffer_, size);
                              if (error) {
                                ended = true;
                                receiving_ = false;
                                return;
                              }
                              receive_more();
                            });
  }

  boost::asio::io_context context_{1};
  boost::asio::ip::tcp::socket socket_{context_};
  std::string outgoing_;
  bool sending_ = false;
  bool receiving_ = false;
  std::size_t wanted_ = 0;
  char buffer_[64 * 1024];
};

}  // namespace vc::kubernetes::testing
