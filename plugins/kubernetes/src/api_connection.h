// api_connection.h — one TLS connection to the API server: the server's URL taken apart, the TLS
// context an endpoint and its credentials make, and the connect-and-handshake step every REST
// call, watch, exec and port-forward begins with.
//
// Trust follows the kubeconfig: the endpoint's CA PEM (the system's store when empty), the
// server's certificate checked against the host of its URL or tls-server-name, and SNI sent for
// names (not for IP addresses, as RFC 6066 says). insecure-skip-tls-verify turns the check off.
// A client certificate from the credentials is presented; a bearer token is the request's
// business, not the connection's.
//
// Thread rule: parse_server_url() and make_tls_context() on any thread; a TlsStream and
// async_connect_tls() belong to the ApiLoop's thread, where `done` is called exactly once.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

#include "api_endpoint.h"
#include "api_error.h"

namespace vc::kubernetes {

// "https://host:port/prefix" taken apart. http is refused: the API carries credentials.
struct ServerUrl {
  std::string host;         // "127.0.0.1", "api.example.com", "::1" (no brackets)
  std::string port;         // "6443"; "443" when the URL has none
  std::string base_path;    // "" or "/k8s/clusters/c-1" (no trailing slash)
  std::string text;         // the URL as given, for messages
};

ConfigExpected<ServerUrl> parse_server_url(const std::string& server);

// The TLS client context for `endpoint` presenting `credentials`' client certificate, if any.
// Fails (kind tls or credentials) on a CA or key that OpenSSL cannot read, naming which.
ApiExpected<std::shared_ptr<boost::asio::ssl::context>> make_tls_context(
    const ApiEndpoint& endpoint, const Credentials& credentials);

using TlsStream = boost::beast::ssl_stream<boost::beast::tcp_stream>;

// A stream not yet connected, on `context`, using `tls` (kept alive by the stream's owner).
std::shared_ptr<TlsStream> make_tls_stream(boost::asio::io_context& context,
                                           boost::asio::ssl::context& tls);

// [loop-thread] Resolves the server, connects and completes the TLS handshake within `timeout`,
// then calls `done` once, never before returning: success, or an ApiError whose message names the server and the step
// that failed. Cancelling: close the stream's lowest layer (done then reports `cancelled` if
// `cancelled()` says so, else the socket error).
struct ConnectRequest {
  ServerUrl url;
  std::string tls_server_name;   // the name to verify and send as SNI; the URL's host when empty
  bool verify_peer = true;       // false for insecure-skip-tls-verify
  std::chrono::milliseconds timeout{30000};
  std::function<bool()> cancelled;  // optional
};
void async_connect_tls(std::shared_ptr<TlsStream> stream, ConnectRequest request,
                       std::function<void(ApiExpected<void>)> done);

// The sentence for a transport failure `what` ("connection refused") while talking to `url`,
// with the advice that fits its kind. Shared by every part that talks to the server.
ApiError transport_failure(const ServerUrl& url, ApiErrorKind kind, const std::string& what);

}  // namespace vc::kubernetes
