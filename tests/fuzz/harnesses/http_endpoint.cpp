// http_endpoint — what clients send to the Streamable HTTP endpoint: a real McpHttpEndpoint
// (listener, connections with llhttp, Host/Origin checks, the bearer token "fuzz-token",
// sessions, SSE streams, the activity feed) on 127.0.0.1 with an ephemeral port, serving the
// real tool catalog over the fuzz backend (fuzz_tool_fixture.h). Up to four client
// connections, one per segment of the input (segments are separated by kNextConnection), send
// their bytes in turn, in pieces, with the loop run until quiet after each round. "@SID@" is
// replaced, when it is sent, by the latest Mcp-Session-Id the server handed out, so that
// requests can name a live session: a piece ends before a placeholder, and a connection waits
// one round at a placeholder while no id is known. Then the clients reset their connections,
// the endpoint closes and everything is torn down: a fresh endpoint and loop for every input.
//
// The first byte chooses the piece size (bits 0-2: 1, 2, 3, 7, 16, 61, 512 bytes or
// everything at once; a long input gets larger pieces, so that it is sent in at most about 2048
// rounds), the largest body (bits 3-4: 300 B, 2 KiB, 64 KiB or 1 MiB, so 413 is
// reachable both by Content-Length and by a chunked body), the largest head (bit 5: 512 B or
// 8 KiB, for 431), the number of sessions (bit 6: 2 or 16, for 503) and the timers (bit 7:
// the defaults, or 1 ms for the header, idle and session timeouts, with the loop given two
// more rounds 2 ms apart once everything is sent, so that the timers fire mid-request and on
// idle connections and sessions).
//
// Beyond "no crash, no leak, no hang": what each client receives parses as HTTP/1.1 responses
// (llhttp), each with a status the endpoint documents, and an answer to a HEAD without
// content (the client reads its own requests with llhttp to know which were HEADs); afterwards
// every handle is closed and the loop closes.
#include <algorithm>
#include <csignal>
#include <deque>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <llhttp.h>
#include <spdlog/spdlog.h>
#include <uv.h>

#include "fuzz_tool_fixture.h"
#include "mcp/session.h"
#include "transport/http_mcp_endpoint.h"

namespace {

using vc::Json;

constexpr std::string_view kNextConnection = "\n@@NEXT-CONNECTION@@\n";
constexpr std::string_view kSessionPlaceholder = "@SID@";
constexpr std::string_view kSessionHeader = "Mcp-Session-Id: ";
constexpr size_t kSessionIdChars = 32;
constexpr size_t kMaxConnections = 4;

bool documented_status(int status) {
  for (int known : {200, 202, 400, 401, 403, 404, 405, 406, 409, 413, 415, 421, 431, 503}) {
    if (status == known) return true;
  }
  return false;
}

struct Harness;

struct Client {
  Harness* harness = nullptr;
  uv_tcp_t tcp{};
  uv_connect_t connect{};
  bool connected = false;
  bool ended = false;  // the server closed, or the connection failed
  std::string to_send;
  bool waited = false;  // at a placeholder, for one round
  std::string received;
  size_t scanned = 0;  // of `received`, for session ids
  llhttp_settings_t settings{};
  llhttp_t parser{};
  // The requests as the server reads them, for the methods in order: a response to a HEAD has
  // no content whatever its Content-Length says.
  llhttp_settings_t request_settings{};
  llhttp_t request_parser{};
  std::deque<bool> head_requests;  // one per request whose method was read, oldest first
};

struct Harness {
  std::vector<std::unique_ptr<Client>> clients;
  std::string session_id;
  uint64_t activity = 0;  // callbacks seen; the loop is quiet when it stops moving
  uint64_t settled_activity = 0;
  size_t writes_in_flight = 0;
  size_t connects_in_flight = 0;

  bool moved() {
    const bool changed = activity != settled_activity || writes_in_flight + connects_in_flight > 0;
    settled_activity = activity;
    return changed;
  }
};

struct Write {
  uv_write_t request{};
  std::string bytes;
  Harness* harness = nullptr;
};

// Picks up the session ids the server announces.
void learn_session_ids(Client& client) {
  Harness& harness = *client.harness;
  for (;;) {
    const size_t at = client.received.find(kSessionHeader, client.scanned);
    if (at == std::string::npos) {
      // Only a header cut off at the end can still begin before this.
      const size_t tail = client.received.size() - std::min(client.received.size(), kSessionHeader.size());
      client.scanned = std::max(client.scanned, tail);
      break;
    }
    if (at + kSessionHeader.size() + kSessionIdChars > client.received.size()) {
      client.scanned = at;  // the id is still to come
      break;
    }
    harness.session_id = client.received.substr(at + kSessionHeader.size(), kSessionIdChars);
    client.scanned = at + kSessionHeader.size() + kSessionIdChars;
  }
}

void on_read(uv_stream_t* stream, ssize_t nread, const uv_buf_t* buffer) {
  auto* client = static_cast<Client*>(stream->data);
  ++client->harness->activity;
  if (nread < 0) {
    client->ended = true;
    uv_read_stop(stream);
    return;
  }
  if (nread == 0) return;
  const auto length = static_cast<size_t>(nread);
  client->received.append(buffer->base, length);
  const llhttp_errno_t parsed = llhttp_execute(&client->parser, buffer->base, length);
  if (parsed != HPE_OK) __builtin_trap();  // the server sent something that is not HTTP
  learn_session_ids(*client);
}

void open_client(Harness& harness, uv_loop_t* loop, uint16_t port, std::string bytes) {
  auto client = std::make_unique<Client>();
  client->harness = &harness;
  client->to_send = std::move(bytes);
  llhttp_settings_init(&client->settings);
  client->settings.on_headers_complete = [](llhttp_t* parser) {
    if (!documented_status(parser->status_code)) __builtin_trap();
    auto* owner = static_cast<Client*>(parser->data);
    if (owner->head_requests.empty()) return 0;
    const bool head = owner->head_requests.front();
    owner->head_requests.pop_front();
    return head ? 1 : 0;  // 1: this message has no body
  };
  llhttp_init(&client->parser, HTTP_RESPONSE, &client->settings);
  client->parser.data = client.get();
  llhttp_settings_init(&client->request_settings);
  client->request_settings.on_method_complete = [](llhttp_t* parser) {
    static_cast<Client*>(parser->data)->head_requests.push_back(parser->method == HTTP_HEAD);
    return 0;
  };
  llhttp_init(&client->request_parser, HTTP_REQUEST, &client->request_settings);
  client->request_parser.data = client.get();
  uv_tcp_init(loop, &client->tcp);
  client->tcp.data = client.get();
  client->connect.data = client.get();
  sockaddr_in address{};
  uv_ip4_addr("127.0.0.1", port, &address);
  ++harness.connects_in_flight;
  const int status = uv_tcp_connect(
      &client->connect, &client->tcp, reinterpret_cast<const sockaddr*>(&address),
      [](uv_connect_t* request, int result) {
        auto* connecting = static_cast<Client*>(request->data);
        --connecting->harness->connects_in_flight;
        ++connecting->harness->activity;
        if (result != 0) {
          connecting->ended = true;
          return;
        }
        connecting->connected = true;
        uv_read_start(
            reinterpret_cast<uv_stream_t*>(&connecting->tcp),
            [](uv_handle_t*, size_t, uv_buf_t* buffer) {
              static char storage[64 * 1024];
              *buffer = uv_buf_init(storage, sizeof storage);
            },
            &on_read);
      });
  if (status != 0) {
    --harness.connects_in_flight;
    client->ended = true;
  }
  harness.clients.push_back(std::move(client));
}

void send_piece(Client& client, size_t piece) {
  if (client.to_send.rfind(kSessionPlaceholder, 0) == 0) {
    const std::string& id = client.harness->session_id;
    if (id.empty() && !client.waited) {
      client.waited = true;
      return;
    }
    if (!id.empty()) client.to_send.replace(0, kSessionPlaceholder.size(), id);
  }
  client.waited = false;
  const size_t placeholder = client.to_send.find(kSessionPlaceholder, 1);
  auto* write = new Write;
  write->harness = client.harness;
  const size_t take = std::min({piece, client.to_send.size(), placeholder});
  write->bytes = client.to_send.substr(0, take);
  client.to_send.erase(0, take);
  // Past its first error the server reads no more of this connection, and neither does this.
  llhttp_execute(&client.request_parser, write->bytes.data(), write->bytes.size());
  write->request.data = write;
  uv_buf_t buffer = uv_buf_init(write->bytes.data(), static_cast<unsigned>(write->bytes.size()));
  ++client.harness->writes_in_flight;
  const int status = uv_write(&write->request, reinterpret_cast<uv_stream_t*>(&client.tcp), &buffer,
                              1, [](uv_write_t* request, int) {
                                auto* done = static_cast<Write*>(request->data);
                                --done->harness->writes_in_flight;
                                ++done->harness->activity;
                                delete done;
                              });
  if (status != 0) {
    --client.harness->writes_in_flight;
    delete write;
    client.ended = true;
  }
}

// Resets rather than closes: no connection of the harness lingers in TIME_WAIT, whichever
// side went first, so millions of inputs do not use up the ephemeral ports.
void close_client(Client& client) {
  auto* handle = reinterpret_cast<uv_handle_t*>(&client.tcp);
  if (uv_is_closing(handle)) return;
  if (client.connected && uv_tcp_close_reset(&client.tcp, nullptr) == 0) return;
  uv_close(handle, nullptr);
}

std::vector<std::string> segments_of(std::string_view input) {
  std::vector<std::string> segments;
  while (segments.size() + 1 < kMaxConnections) {
    const size_t next = input.find(kNextConnection);
    if (next == std::string_view::npos) break;
    segments.emplace_back(input.substr(0, next));
    input.remove_prefix(next + kNextConnection.size());
  }
  segments.emplace_back(input);
  return segments;
}

bool timers_fire(uint8_t mode) { return (mode & 0x80) != 0; }

vc::transport::McpHttpSettings endpoint_settings(uint8_t mode) {
  static const size_t kBodyLimits[] = {300, 2048, 64 * 1024, 1024 * 1024};
  vc::transport::McpHttpSettings settings;
  settings.bind_host = "127.0.0.1";
  settings.port = 0;
  settings.auth_token = "fuzz-token";
  settings.limits.max_body_bytes = kBodyLimits[(mode >> 3) & 3];
  settings.limits.max_header_bytes = (mode & 0x20) != 0 ? 512 : 8192;
  settings.max_sessions = (mode & 0x40) != 0 ? 2 : 16;
  if (timers_fire(mode)) {
    settings.limits.header_timeout_ms = 1;
    settings.limits.idle_timeout_ms = 1;
    settings.session_timeout_ms = 1;
  }
  return settings;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  vc::fuzz::silence_logging();
  static const bool once = [] {
    std::signal(SIGPIPE, SIG_IGN);  // as the server does: a reset peer is an error, not a signal
    return true;
  }();
  (void)once;
  if (size == 0) return 0;
  static const size_t kPieces[] = {1, 2, 3, 7, 16, 61, 512, SIZE_MAX};
  const uint8_t mode = data[0];
  const size_t piece = std::max(kPieces[mode & 7], size / 2048);
  const std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);

  uv_loop_t loop;
  if (uv_loop_init(&loop) != 0) __builtin_trap();
  {
    vc::fuzz::ToolFixture fixture(&loop);
    const std::vector<vc::mcp::Tool*> tools = fixture.borrowed();
    vc::mcp::ActivityFeed activity(&loop);  // outlives the endpoint's sessions
    std::unique_ptr<vc::transport::McpHttpEndpoint> endpoint;
    auto settings = endpoint_settings(mode);
    settings.activity = &activity;
    auto started = vc::transport::McpHttpEndpoint::start(
        &loop, settings,
        [&](vc::mcp::Session::SendFn send) {
          vc::mcp::SessionOptions options;
          options.server_version = "fuzz";
          options.catalog = fixture.catalog.get();
          vc::mcp::ActivityFeed* feed = &activity;
          options.on_tool_request = [feed](const std::string& tool, const Json& arguments) {
            feed->record_request(tool, arguments);
          };
          options.on_tool_result = [feed](const std::string& tool, const Json& arguments,
                                          const Json& result) {
            feed->record_result(tool, arguments, result);
          };
          return std::make_unique<vc::mcp::Session>(tools, options, std::move(send));
        },
        [] { return Json{{"name", "mcp-virtual-computer"}, {"version", "fuzz"}}; });
    if (!started) __builtin_trap();  // 127.0.0.1 with an ephemeral port is always there
    endpoint = std::move(started).value();

    Harness harness;
    auto quiet = [&harness] { return harness.moved(); };
    for (auto& segment : segments_of(input)) {
      open_client(harness, &loop, endpoint->port(), std::move(segment));
    }
    fixture.settle(quiet);
    for (;;) {
      bool sending = false;
      for (auto& client : harness.clients) {
        if (client->connected && !client->ended && !client->to_send.empty()) {
          send_piece(*client, piece);
          sending = true;
        }
      }
      if (!sending) break;
      fixture.settle(quiet);
    }
    if (timers_fire(mode)) {
      for (int round = 0; round < 2; ++round) {
        uv_sleep(2);
        fixture.settle(quiet);
      }
    }

    for (auto& client : harness.clients) close_client(*client);
    fixture.settle(quiet);
    bool closed = false;
    endpoint->close([&closed] { closed = true; });
    fixture.settle([&] { return !closed || harness.moved(); });
    endpoint.reset();
  }
  if (uv_loop_close(&loop) != 0) __builtin_trap();  // a handle outlived its owner
  return 0;
}
