// fake_api_server.cpp — the scripted TLS server and the silent listener of the transport's tests.
// Thread rule: see fake_api_server.h.
#include "fake_api_server.h"

#include <sys/socket.h>

#include <memory>
#include <stdexcept>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <boost/asio/buffer.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/chunk_encode.hpp>
#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

namespace vc::kubernetes::testing {
namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;

struct KeyAndCertificate {
  std::string key_pem;
  std::string certificate_pem;
};

std::string drain(BIO* bio) {
  std::string text(BIO_ctrl_pending(bio), '\0');
  const int read = BIO_read(bio, text.data(), static_cast<int>(text.size()));
  text.resize(read > 0 ? static_cast<std::size_t>(read) : 0);
  return text;
}

void check(bool ok, const char* step) {
  if (!ok) throw std::runtime_error(std::string("making the test certificate: ") + step);
}

// A P-256 key and a self-signed certificate for IP 127.0.0.1, valid for a day.
KeyAndCertificate make_self_signed_certificate() {
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(EVP_EC_gen("P-256"), EVP_PKEY_free);
  check(key != nullptr, "EVP_EC_gen");
  std::unique_ptr<X509, decltype(&X509_free)> certificate(X509_new(), X509_free);
  X509* cert = certificate.get();
  check(X509_set_version(cert, 2) == 1, "X509_set_version");
  check(ASN1_INTEGER_set(X509_get_serialNumber(cert), 1) == 1, "serial");
  X509_gmtime_adj(X509_getm_notBefore(cert), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert), 24 * 3600);
  check(X509_set_pubkey(cert, key.get()) == 1, "X509_set_pubkey");
  X509_NAME* name = X509_get_subject_name(cert);
  const std::string common_name = "vc-test-fake-api";
  check(X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                                   reinterpret_cast<const unsigned char*>(common_name.c_str()),
                                   -1, -1, 0) == 1,
        "subject");
  check(X509_set_issuer_name(cert, name) == 1, "issuer");
  X509V3_CTX extension_context;
  X509V3_set_ctx(&extension_context, cert, cert, nullptr, nullptr, 0);
  for (const auto& [nid, value] : {std::pair{NID_subject_alt_name, "IP:127.0.0.1"},
                                   std::pair{NID_basic_constraints, "critical,CA:TRUE"}}) {
    X509_EXTENSION* extension =
        X509V3_EXT_conf_nid(nullptr, &extension_context, nid, value);
    check(extension != nullptr, "extension");
    X509_add_ext(cert, extension, -1);
    X509_EXTENSION_free(extension);
  }
  check(X509_sign(cert, key.get(), EVP_sha256()) > 0, "X509_sign");

  std::unique_ptr<BIO, decltype(&BIO_free)> key_bio(BIO_new(BIO_s_mem()), BIO_free);
  std::unique_ptr<BIO, decltype(&BIO_free)> cert_bio(BIO_new(BIO_s_mem()), BIO_free);
  check(PEM_write_bio_PrivateKey(key_bio.get(), key.get(), nullptr, nullptr, 0, nullptr,
                                 nullptr) == 1,
        "PEM key");
  check(PEM_write_bio_X509(cert_bio.get(), cert) == 1, "PEM certificate");
  return {drain(key_bio.get()), drain(cert_bio.get())};
}

void wake(int native_handle) { ::shutdown(native_handle, SHUT_RDWR); }

}  // namespace

FakeApiServer::FakeApiServer(Handler handler) : handler_(std::move(handler)) {
  const KeyAndCertificate made = make_self_signed_certificate();
  certificate_pem_ = made.certificate_pem;
  tls_.use_certificate_chain(asio::buffer(made.certificate_pem));
  tls_.use_private_key(asio::buffer(made.key_pem), asio::ssl::context::pem);
  const tcp::endpoint loopback(asio::ip::make_address("127.0.0.1"), 0);
  acceptor_.open(loopback.protocol());
  acceptor_.bind(loopback);
  acceptor_.listen();
  port_ = acceptor_.local_endpoint().port();
  acceptor_thread_ = std::thread([this] { accept_loop(); });
}

FakeApiServer::~FakeApiServer() {
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    for (const int socket : open_sockets_) wake(socket);
    wake(acceptor_.native_handle());
  }
  stop_signal_.notify_all();
  acceptor_thread_.join();  // it starts no thread once stopping_ is set
  {
    std::lock_guard lock(mutex_);
    threads.swap(threads_);
  }
  for (auto& thread : threads) thread.join();
}

std::vector<FakeApiServer::Request> FakeApiServer::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

bool FakeApiServer::stopping() const {
  std::lock_guard lock(mutex_);
  return stopping_;
}

void FakeApiServer::accept_loop() {
  while (true) {
    boost::system::error_code error;
    tcp::socket socket = acceptor_.accept(error);
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    if (error) continue;
    const int number = ++connections_accepted_;
    open_sockets_.push_back(socket.native_handle());
    threads_.emplace_back([this, socket = std::move(socket), number]() mutable {
      serve(std::move(socket), number);
    });
  }
}

void FakeApiServer::serve(tcp::socket socket, int number) {
  const int native_handle = socket.native_handle();
  asio::ssl::stream<tcp::socket> stream(std::move(socket), tls_);
  boost::system::error_code error;
  stream.handshake(asio::ssl::stream_base::server, error);
  boost::beast::flat_buffer buffer;
  while (!error && !stopping()) {
    http::request<http::string_body> request;
    http::read(stream, buffer, request, error);
    if (error) break;
    Request seen{std::string(request.method_string()), std::string(request.target()),
                 std::string(request[http::field::authorization]),
                 std::string(request[http::field::content_type]), request.body(), number};
    {
      std::lock_guard lock(mutex_);
      requests_.push_back(seen);
    }
    const Reply reply = handler_(seen);
    if (reply.action == Reply::Action::close_silently) break;
    if (reply.action == Reply::Action::never_answer) {
      std::unique_lock lock(mutex_);
      stop_signal_.wait(lock, [this] { return stopping_; });
      break;
    }
    if (reply.chunks.empty()) {
      http::response<http::string_body> response{static_cast<http::status>(reply.status), 11};
      response.set(http::field::content_type, reply.content_type);
      response.body() = reply.body;
      response.keep_alive(request.keep_alive());
      response.prepare_payload();
      http::write(stream, response, error);
    } else {
      http::response<http::empty_body> response{static_cast<http::status>(reply.status), 11};
      response.set(http::field::content_type, reply.content_type);
      response.chunked(true);
      http::response_serializer<http::empty_body> serializer{response};
      http::write_header(stream, serializer, error);
      for (const std::string& piece : reply.chunks) {
        if (error || stopping()) break;
        std::this_thread::sleep_for(reply.pause);
        asio::write(stream, http::make_chunk(asio::buffer(piece)), error);
      }
      if (reply.hold_open) {
        std::unique_lock lock(mutex_);
        stop_signal_.wait(lock, [this] { return stopping_; });
        break;
      }
      if (!error) asio::write(stream, http::make_chunk_last(), error);
    }
    if (reply.close_after_reply) break;
  }
  {
    std::lock_guard lock(mutex_);
    std::erase(open_sockets_, native_handle);
  }
  // The socket closes as `stream` goes: no TLS close_notify, as a server that drops a
  // connection sends none.
}

SilentListener::SilentListener() {
  const tcp::endpoint loopback(asio::ip::make_address("127.0.0.1"), 0);
  acceptor_.open(loopback.protocol());
  acceptor_.bind(loopback);
  acceptor_.listen();
  port_ = acceptor_.local_endpoint().port();
  accept_next();
  thread_ = std::thread([this] { context_.run(); });
}

void SilentListener::accept_next() {
  acceptor_.async_accept([this](const boost::system::error_code& error, tcp::socket socket) {
    if (error) return;
    ++accepted_;
    sockets_.push_back(std::move(socket));  // kept open, never read or written
    accept_next();
  });
}

SilentListener::~SilentListener() {
  context_.stop();
  thread_.join();
}

unsigned short unused_loopback_port() {
  asio::io_context context;
  tcp::acceptor acceptor(context, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  return acceptor.local_endpoint().port();
}

}  // namespace vc::kubernetes::testing
