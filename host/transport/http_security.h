// http_security.h — the checks that keep the HTTP transport safe by default: DNS-rebinding
// protection (Host and Origin allow-lists on loopback binds) and the bearer token.
//
// Pure functions; any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace vc::transport {

// Whether `bind_host` is a loopback address or name ("127.0.0.1", "localhost", "::1", ...).
bool is_loopback_bind(std::string_view bind_host);

// Host header allowed on a loopback bind: localhost, 127.0.0.1 or [::1], any port.
bool host_header_allowed(std::string_view host);

// Origin allowed on a loopback bind: http(s)://localhost|127.0.0.1|[::1][:port]. An absent
// Origin (not a browser) is allowed; "null" is not.
bool origin_allowed(std::optional<std::string_view> origin);

// Whether `authorization` is "Bearer <token>" (scheme case-insensitive) for `token`, compared
// in constant time.
bool bearer_matches(std::optional<std::string_view> authorization, std::string_view token);

// Whether an Accept header offers `media_type` ("application/json"), directly or through a
// wildcard ("application/*", "*/*").
bool accepts(std::optional<std::string_view> accept, std::string_view media_type);

// Whether a Content-Type header is `media_type`, ignoring parameters and case.
bool content_type_is(std::optional<std::string_view> content_type, std::string_view media_type);

}  // namespace vc::transport
