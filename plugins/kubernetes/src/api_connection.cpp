// api_connection.cpp — URL parsing, TLS context, resolve + connect + handshake.
// Thread rule: see api_connection.h.
#include "api_connection.h"

#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>

#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/beast/core/error.hpp>

namespace vc::kubernetes {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;

bool is_ip_address(const std::string& host) {
  boost::system::error_code error;
  asio::ip::make_address(host, error);
  return !error;
}

ConfigError bad_url(const std::string& server, const std::string& why) {
  return ConfigError{"The cluster's server address \"" + bounded_quote(server, 200) +
                     "\" is not usable: " + why + "."};
}

// The handshake's failure, with the certificate check's own words when that was the cause.
std::string handshake_failure(TlsStream& stream, const boost::system::error_code& error) {
  const long verify = SSL_get_verify_result(stream.native_handle());
  if (verify != X509_V_OK) {
    return std::string("the server's certificate was not accepted (") +
           X509_verify_cert_error_string(verify) + ")";
  }
  return error.message();
}

}  // namespace

ConfigExpected<ServerUrl> parse_server_url(const std::string& server) {
  constexpr std::string_view kHttps = "https://";
  if (server.rfind("http://", 0) == 0) {
    return bad_url(server, "plain http is not supported, since every request carries "
                           "credentials; use the server's https address");
  }
  if (server.rfind(kHttps, 0) != 0) return bad_url(server, "it does not start with https://");
  std::string rest = server.substr(kHttps.size());
  if (rest.find_first_of("?#") != std::string::npos) {
    return bad_url(server, "a server address has no query or fragment");
  }
  ServerUrl url;
  bool port_given = false;  // "host:" with nothing after the colon is a mistake, not 443
  url.text = server;
  const auto slash = rest.find('/');
  std::string authority = rest.substr(0, slash);
  if (slash != std::string::npos) {
    url.base_path = rest.substr(slash);
    while (!url.base_path.empty() && url.base_path.back() == '/') url.base_path.pop_back();
  }
  if (authority.find('@') != std::string::npos) {
    return bad_url(server, "user information in the address is not supported");
  }
  if (!authority.empty() && authority.front() == '[') {  // [v6]:port
    const auto close = authority.find(']');
    if (close == std::string::npos) return bad_url(server, "its IPv6 address lacks ']'");
    url.host = authority.substr(1, close - 1);
    const std::string after = authority.substr(close + 1);
    if (!after.empty() && after.front() != ':') return bad_url(server, "text follows ']'");
    port_given = !after.empty();
    url.port = after.empty() ? "" : after.substr(1);
  } else {
    const auto colon = authority.rfind(':');
    url.host = authority.substr(0, colon);
    port_given = colon != std::string::npos;
    url.port = port_given ? authority.substr(colon + 1) : "";
  }
  if (url.host.empty()) return bad_url(server, "it names no host");
  if (!port_given) url.port = "443";
  if (url.port.empty() || url.port.size() > 5 ||
      url.port.find_first_not_of("0123456789") != std::string::npos ||
      std::stoi(url.port) == 0 || std::stoi(url.port) > 65535) {
    return bad_url(server, "its port is not a number from 1 to 65535");
  }
  return url;
}

ApiExpected<std::shared_ptr<asio::ssl::context>> make_tls_context(const ApiEndpoint& endpoint,
                                                                  const Credentials& credentials) {
  auto tls = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_client);
  tls->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                   asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 |
                   asio::ssl::context::no_tlsv1_1);
  boost::system::error_code error;
  if (endpoint.insecure_skip_tls_verify) {
    tls->set_verify_mode(asio::ssl::verify_none);
  } else {
    tls->set_verify_mode(asio::ssl::verify_peer);
    if (endpoint.ca_pem.empty()) {
      tls->set_default_verify_paths(error);
    } else {
      tls->add_certificate_authority(asio::buffer(endpoint.ca_pem), error);
    }
    if (error) {
      return ApiError{ApiErrorKind::tls, 0, "",
                      "The certificate authority of " + endpoint.origin +
                          " could not be loaded: " + error.message() + "."};
    }
  }
  if (!credentials.client_certificate_pem.empty() || !credentials.client_key_pem.empty()) {
    tls->use_certificate_chain(asio::buffer(credentials.client_certificate_pem), error);
    if (!error) {
      tls->use_private_key(asio::buffer(credentials.client_key_pem), asio::ssl::context::pem,
                           error);
    }
    if (error) {
      return ApiError{ApiErrorKind::credentials, 0, "",
                      "The client certificate or key of " + endpoint.origin +
                          " could not be loaded: " + error.message() +
                          ". Are they PEM, and does the key match the certificate?"};
    }
  }
  return tls;
}

std::shared_ptr<TlsStream> make_tls_stream(asio::io_context& context, asio::ssl::context& tls) {
  return std::make_shared<TlsStream>(context, tls);
}

ApiError transport_failure(const ServerUrl& url, ApiErrorKind kind, const std::string& what) {
  std::string advice;
  switch (kind) {
    case ApiErrorKind::unreachable: advice = " Is the cluster running, and is the kubeconfig's server address right?"; break;
    case ApiErrorKind::tls: advice = " Does the kubeconfig name the cluster's certificate authority?"; break;
    case ApiErrorKind::timeout: advice = " Is the cluster overloaded or the network slow? --api-timeout sets the limit."; break;
    default: break;
  }
  return ApiError{kind, 0, "", "Cannot reach the Kubernetes API at " + url.text + ": " +
                                   bounded_quote(what) + "." + advice};
}

void async_connect_tls(std::shared_ptr<TlsStream> stream, ConnectRequest request,
                       std::function<void(ApiExpected<void>)> done) {
  struct Attempt {
    std::shared_ptr<TlsStream> stream;
    ConnectRequest request;
    std::function<void(ApiExpected<void>)> done;
    tcp::resolver resolver;
    std::chrono::steady_clock::time_point deadline;

    bool was_cancelled() const { return request.cancelled && request.cancelled(); }
    void fail(ApiErrorKind kind, const std::string& what) {
      if (was_cancelled()) {
        done(ApiError{ApiErrorKind::cancelled, 0, "", "The call to " + request.url.text +
                                                          " was cancelled."});
      } else {
        done(transport_failure(request.url, kind, what));
      }
    }
    // A socket error as the kind it stands for: a passed deadline is a timeout.
    ApiErrorKind kind_of(const boost::system::error_code& error, ApiErrorKind otherwise) const {
      return error == beast::error::timeout ? ApiErrorKind::timeout : otherwise;
    }
  };
  auto& io = static_cast<asio::io_context&>(stream->get_executor().context());
  auto attempt = std::make_shared<Attempt>(
      Attempt{std::move(stream), std::move(request), std::move(done), tcp::resolver(io),
              std::chrono::steady_clock::now()});
  attempt->deadline = std::chrono::steady_clock::now() + attempt->request.timeout;

  const std::string name = attempt->request.tls_server_name.empty()
                               ? attempt->request.url.host
                               : attempt->request.tls_server_name;
  SSL* ssl = attempt->stream->native_handle();
  if (!is_ip_address(name) &&   // SSL_set_tlsext_host_name() without its macro's C cast.
      !SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
                const_cast<char*>(name.c_str()))) {
    // Posted, not called: `done` never runs inside async_connect_tls() itself.
    asio::post(io, [attempt, name] {
      attempt->fail(ApiErrorKind::tls, "the server name \"" + bounded_quote(name, 100) +
                                           "\" cannot be sent as SNI");
    });
    return;
  }
  if (attempt->request.verify_peer) {
    attempt->stream->set_verify_callback(asio::ssl::host_name_verification(name));
  }

  attempt->resolver.async_resolve(
      attempt->request.url.host, attempt->request.url.port,
      [attempt](const boost::system::error_code& resolve_error,
                tcp::resolver::results_type results) {
        if (resolve_error) {
          return attempt->fail(ApiErrorKind::unreachable, resolve_error.message());
        }
        // Name resolution cannot be cut short by closing the stream: look again here.
        if (attempt->was_cancelled()) return attempt->fail(ApiErrorKind::cancelled, "cancelled");
        auto& tcp_layer = beast::get_lowest_layer(*attempt->stream);
        tcp_layer.expires_at(attempt->deadline);
        tcp_layer.async_connect(results, [attempt](const boost::system::error_code& connect_error,
                                                   const tcp::endpoint&) {
          if (connect_error) {
            return attempt->fail(attempt->kind_of(connect_error, ApiErrorKind::unreachable),
                                 connect_error.message());
          }
          beast::get_lowest_layer(*attempt->stream).expires_at(attempt->deadline);
          attempt->stream->async_handshake(
              asio::ssl::stream_base::client, [attempt](const boost::system::error_code& handshake_error) {
                beast::get_lowest_layer(*attempt->stream).expires_never();
                if (handshake_error) {
                  return attempt->fail(attempt->kind_of(handshake_error, ApiErrorKind::tls),
                                       handshake_failure(*attempt->stream, handshake_error));
                }
                attempt->done(ApiExpected<void>());
              });
        });
      });
}

}  // namespace vc::kubernetes
