// desktop_test.cpp — desktop computers on the real engines: Xfce switched in place, the desktop
// view behind its secret, restarts and resets that keep the mode, and the network switch as a
// firewall the agent cannot undo (docs/desktop.md).
//
// The only addresses contacted are the computer's published view on 127.0.0.1 and listeners
// this test started in containers of its own.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <regex>
#include <sstream>
#include <thread>

#include "engine_test.h"
#include "test_names.h"

namespace vc::integration {
namespace {

// The first bytes a VNC server sends: the view really reached the desktop.
constexpr const char* kRfbGreeting = "RFB 003.008";

struct DesktopAddress {
  int port = 0;
  std::string token;
};

DesktopAddress parse_desktop_url(const std::string& url) {
  static const std::regex pattern(
      R"(^http://127\.0\.0\.1:([0-9]+)/vnc\.html#autoconnect=1&resize=scale&reconnect=1&path=websockify%3Ftoken%3D([0-9a-f]{48})$)");
  std::smatch match;
  if (!std::regex_match(url, match, pattern)) return {};
  return DesktopAddress{std::stoi(match[1]), match[2]};
}

std::string websocket_request(const std::string& path) {
  return "GET " + path +
         " HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
         "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
         "Sec-WebSocket-Protocol: binary\r\n\r\n";
}

// Opens a WebSocket to the view on 127.0.0.1:port and returns what arrives within 3 s.
std::string websocket_first_bytes(int port, const std::string& path) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return "socket failed";
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    ::close(fd);
    return "connect failed";
  }
  const std::string request = websocket_request(path);
  if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) < 0) {
    ::close(fd);
    return "send failed";
  }
  std::string received;
  const auto deadline = std::chrono::steady_clock::now() + 3s;
  while (std::chrono::steady_clock::now() < deadline &&
         received.find(kRfbGreeting) == std::string::npos) {
    pollfd waiting{fd, POLLIN, 0};
    if (::poll(&waiting, 1, 200) <= 0) continue;
    char buffer[4096];
    ssize_t got = ::recv(fd, buffer, sizeof buffer, 0);
    if (got <= 0) break;
    received.append(buffer, static_cast<size_t>(got));
  }
  ::close(fd);
  return received;
}

class DesktopTest : public EngineTest {
 protected:
  void SetUp() override {
    EngineTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    if (!engine().image_present(kDesktopImage)) {
      FAIL() << "the " << engine().name << " engine has no " << kDesktopImage
             << "; run `mcp-virtual-computer --backend " << engine().backend
             << " computers prepare` (scripts/test.sh does) first";
    }
  }

  HostOptions desktop_options(bool xfce_on) const {
    HostOptions options;
    options.image = kDesktopImage;
    options.extra_args = {"--lifecycle-tools"};
    options.environment = {{"DESKTOP_ENVIRONMENT", xfce_on ? "true" : "false"}};
    return options;
  }

  // A tool call that must succeed; returns its structured content.
  static Json ok(test::McpClient& host, const std::string& tool,
                 const Json& arguments = Json::object(),
                 std::chrono::milliseconds timeout = 180s) {
    const Json result = host.call_tool(tool, arguments, timeout);
    EXPECT_EQ(result.value("isError", true), false) << tool << ": " << result.dump();
    return result.value("structuredContent", Json::object());
  }

  std::string container_id() const {
    auto inspected = engine().inspect_container(container_name());
    return inspected ? inspected->value("Id", "") : "";
  }

  // The bridge port the engine publishes right now, from its own inspect.
  int published_port() const {
    auto inspected = engine().inspect_container(container_name());
    if (!inspected) return 0;
    const Json ports = (*inspected)["NetworkSettings"].value("Ports", Json::object());
    if (!ports.contains("6080/tcp") || !ports["6080/tcp"].is_array() || ports["6080/tcp"].empty()) {
      return 0;
    }
    return std::stoi(ports["6080/tcp"][0].value("HostPort", "0"));
  }

  bool process_running(const std::string& name) {
    const auto names = engine().process_names(container_name());
    return std::find(names.begin(), names.end(), name) != names.end();
  }

  // From a throwaway container on the engine's bridge: a WebSocket handshake to the computer's
  // bridge address, or a raw connection to its VNC port; what came back.
  std::string from_neighbour(const std::string& computer_ip, const std::string& what) {
    std::string script;
    if (what == "vnc") {
      script = "nc -w 3 " + computer_ip + " 5900 </dev/null; echo nc-exit=$?";
    } else {
      std::string request = websocket_request(what);
      std::string escaped;
      for (char c : request) escaped += c == '\r' ? std::string("\\r") : c == '\n' ? std::string("\\n") : std::string(1, c);
      // stdin stays open for 2 s: nc would otherwise hang up before the greeting arrives.
      script = "(printf '" + escaped + "'; sleep 2) | nc -w 3 " + computer_ip +
               " 6080; echo nc-exit=$?";
    }
    const std::string name = test::unique_name("vc-test-neighbour");
    remove_at_teardown(name);
    const auto ran = engine().run_cli({"run", "--rm", "--name", name, "--label", kTestLabel,
                                       kBusyboxImage, "sh", "-c", script});
    return ran.out + ran.err;
  }

  // Connects from the computer to a listener with bash's /dev/tcp.
  Json connect_from_computer(test::McpClient& host, const std::string& address) {
    return execute(host, {{"command", "timeout 5 bash -c 'exec 3<>/dev/tcp/" + address +
                                          "/8080 && cat <&3'"},
                          {"timeout", 30}});
  }

  static void expect_refused(const Json& payload) {
    EXPECT_NE(payload["exit_code"], 0) << payload.dump();
    EXPECT_EQ(payload["stdout"], "") << payload.dump();
    // Refused at once by the firewall's TCP reset, not a slow timeout (exit 124).
    EXPECT_NE(payload["exit_code"], 124) << payload.dump();
    EXPECT_NE(payload["stderr"].get<std::string>().find("Connection refused"), std::string::npos)
        << payload.dump();
  }
};

TEST_P(DesktopTest, XfceSwitchesOffAndOnInPlaceKeepingTheContainerAndItsFiles) {
  auto host = start_host(desktop_options(false));
  const Json first = ok(*host, "computer_ui");
  EXPECT_EQ(first["desktop_environment"], false) << first.dump();
  EXPECT_TRUE(first["desktop_url"].is_null()) << first.dump();
  execute(*host, {{"command", "echo kept > /workspace/kept.txt"}});
  const std::string id_before = container_id();
  ASSERT_FALSE(id_before.empty());

  const Json on = ok(*host, "set_desktop_environment", {{"enabled", true}});
  EXPECT_EQ(on["desktop_environment"], true) << on.dump();
  EXPECT_NE(parse_desktop_url(on.value("desktop_url", "")).port, 0) << on.dump();
  EXPECT_TRUE(process_running("xfwm4"));
  EXPECT_TRUE(process_running("xfce4-panel"));

  const Json off = ok(*host, "set_desktop_environment", {{"enabled", false}});
  EXPECT_EQ(off["desktop_environment"], false) << off.dump();
  EXPECT_TRUE(off["desktop_url"].is_null()) << off.dump();
  EXPECT_FALSE(process_running("xfce4-session"));
  EXPECT_FALSE(process_running("xfwm4"));

  const Json again = ok(*host, "set_desktop_environment", {{"enabled", true}});
  EXPECT_EQ(again["desktop_environment"], true) << again.dump();
  EXPECT_EQ(container_id(), id_before) << "the switch replaced the container";
  const Json file = execute(*host, {{"command", "cat /workspace/kept.txt"}});
  EXPECT_EQ(file["stdout"], "kept\n") << file.dump();
  close_host(host);
}

TEST_P(DesktopTest, TheViewOpensWithItsSecretOnlyFromTheHostOrABridgeNeighbour) {
  auto host = start_host(desktop_options(true));
  const Json ui = ok(*host, "computer_ui");
  ASSERT_EQ(ui["desktop_environment"], true) << ui.dump();
  const DesktopAddress view = parse_desktop_url(ui.value("desktop_url", ""));
  ASSERT_NE(view.port, 0) << "not a desktop URL: " << ui.dump();
  EXPECT_EQ(view.port, published_port());

  // From the host (any local user): with the secret the VNC greeting comes through...
  EXPECT_NE(websocket_first_bytes(view.port, "/websockify?token=" + view.token).find(kRfbGreeting),
            std::string::npos);
  // ...without it, or with another, the bridge closes the connection before any VNC byte.
  for (const std::string& path :
       std::vector<std::string>{"/websockify", "/websockify?token=" + std::string(48, '0'),
                                "/websockify?token=" + view.token.substr(0, 47)}) {
    EXPECT_EQ(websocket_first_bytes(view.port, path).find("RFB"), std::string::npos) << path;
  }

  // From another container on the same bridge: the same rule, and no direct VNC port.
  const std::string ip = engine().container_ip(container_name());
  ASSERT_FALSE(ip.empty());
  EXPECT_NE(from_neighbour(ip, "/websockify?token=" + view.token).find(kRfbGreeting),
            std::string::npos);
  const std::string stranger = from_neighbour(ip, "/websockify?token=" + std::string(48, 'a'));
  EXPECT_EQ(stranger.find("RFB"), std::string::npos) << stranger;
  const std::string vnc = from_neighbour(ip, "vnc");
  EXPECT_EQ(vnc.find("RFB"), std::string::npos) << vnc;
  // The secret is in the payloads, never in the server's log (at debug level here).
  const std::string log = host->stderr_text();
  close_host(host);
  EXPECT_FALSE(log.empty());
  EXPECT_EQ(log.find(view.token), std::string::npos) << "the desktop secret was logged";
}

TEST_P(DesktopTest, RestartBringsTheDesktopBackOnThePortTheEngineNowPublishes) {
  auto host = start_host(desktop_options(true));
  const Json before = ok(*host, "computer_ui");
  ASSERT_EQ(before["desktop_environment"], true) << before.dump();
  ok(*host, "computer_restart", {{"computer_id", computer_id()}});
  const Json after = ok(*host, "computer_ui");
  EXPECT_EQ(after["desktop_environment"], true) << after.dump();
  const DesktopAddress view = parse_desktop_url(after.value("desktop_url", ""));
  ASSERT_NE(view.port, 0) << after.dump();
  EXPECT_EQ(view.port, published_port()) << "the payload must report the port of this start";
  EXPECT_NE(websocket_first_bytes(view.port, "/websockify?token=" + view.token).find(kRfbGreeting),
            std::string::npos);
  EXPECT_TRUE(process_running("xfdesktop"));
  close_host(host);
}

TEST_P(DesktopTest, FactoryResetKeepsTheDesktopModeAndReplacesTheFiles) {
  auto host = start_host(desktop_options(false));
  ok(*host, "computer_ui");
  ok(*host, "set_desktop_environment", {{"enabled", true}});
  execute(*host, {{"command", "echo gone > /workspace/gone.txt"}});
  const std::string id_before = container_id();
  ok(*host, "computer_factory_reset", {{"computer_id", computer_id()}});
  const Json after = ok(*host, "computer_ui");
  EXPECT_EQ(after["desktop_environment"], true) << after.dump();
  EXPECT_NE(container_id(), id_before);
  const Json file = execute(*host, {{"command", "test -e /workspace/gone.txt; echo $?"}});
  EXPECT_EQ(file["stdout"], "1\n") << file.dump();
  close_host(host);
}

// A restore replaces the container but not the computer: the desktop comes back on, on the same
// secret, and a network switched off stays off behind the firewall applied again.
TEST_P(DesktopTest, RestoreBringsTheDesktopBackWithItsSecretAndKeepsTheNetworkOff) {
  const std::string listener = start_listener("vc-desktop-banner");
  ASSERT_FALSE(listener.empty());
  auto host = start_host(desktop_options(true));
  const DesktopAddress before = parse_desktop_url(ok(*host, "computer_ui").value("desktop_url", ""));
  ASSERT_FALSE(before.token.empty());
  ok(*host, "set_network_access", {{"enabled", false}});
  execute(*host, {{"command", "echo saved > /workspace/d.txt"}});
  ok(*host, "checkpoint_create", {{"name", "desk"}});
  execute(*host, {{"command", "echo later > /workspace/d.txt"}});
  const std::string id_before = container_id();

  ok(*host, "checkpoint_restore", {{"name", "desk"}});
  EXPECT_NE(container_id(), id_before);
  const Json after = ok(*host, "computer_ui");
  EXPECT_EQ(after["desktop_environment"], true) << after.dump();
  EXPECT_EQ(after["network_access"], false) << after.dump();
  const DesktopAddress view = parse_desktop_url(after.value("desktop_url", ""));
  EXPECT_EQ(view.token, before.token) << "the desktop secret is the computer's";
  ASSERT_NE(view.port, 0) << after.dump();
  EXPECT_EQ(view.port, published_port());
  EXPECT_NE(websocket_first_bytes(view.port, "/websockify?token=" + view.token).find(kRfbGreeting),
            std::string::npos);
  EXPECT_TRUE(process_running("xfdesktop"));
  EXPECT_EQ(execute(*host, {{"command", "cat /workspace/d.txt"}})["stdout"], "saved\n");
  expect_refused(connect_from_computer(*host, listener));
  // The firewall applied again is as firm as before: root inside cannot take it down.
  const Json undo = execute(*host, {{"command", "sudo iptables -F; echo v4=$?"}});
  EXPECT_EQ(undo["stdout"].get<std::string>().find("v4=0"), std::string::npos) << undo.dump();
  expect_refused(connect_from_computer(*host, listener));
  close_host(host);
}

TEST_P(DesktopTest, NetworkOffIsAFirewallTheAgentCannotUndoAndRestartsKeep) {
  const std::string listener = start_listener("vc-desktop-banner");
  ASSERT_FALSE(listener.empty());
  auto host = start_host(desktop_options(false));
  const Json online = connect_from_computer(*host, listener);
  EXPECT_EQ(online["stdout"], "vc-desktop-banner\n") << online.dump();

  const Json off = ok(*host, "set_network_access", {{"enabled", false}});
  EXPECT_EQ(off["network_access"], false) << off.dump();
  expect_refused(connect_from_computer(*host, listener));

  // Root and sudo inside the computer cannot take the rules down.
  const Json undo = execute(
      *host, {{"command",
               "sudo iptables -F; echo v4=$?; sudo ip6tables -F; echo v6=$?; "
               "sudo iptables -P OUTPUT ACCEPT; echo policy=$?; iptables -S 2>&1 | head -1"}});
  EXPECT_NE(undo["stdout"].get<std::string>().find("v4=4"), std::string::npos) << undo.dump();
  EXPECT_EQ(undo["stdout"].get<std::string>().find("v4=0"), std::string::npos) << undo.dump();
  EXPECT_EQ(undo["stdout"].get<std::string>().find("v6=0"), std::string::npos) << undo.dump();
  EXPECT_EQ(undo["stdout"].get<std::string>().find("policy=0"), std::string::npos) << undo.dump();
  expect_refused(connect_from_computer(*host, listener));

  // The desktop view keeps working behind the firewall.
  ok(*host, "set_desktop_environment", {{"enabled", true}});
  const Json ui = ok(*host, "computer_ui");
  const DesktopAddress view = parse_desktop_url(ui.value("desktop_url", ""));
  ASSERT_NE(view.port, 0) << ui.dump();
  EXPECT_NE(websocket_first_bytes(view.port, "/websockify?token=" + view.token).find(kRfbGreeting),
            std::string::npos);

  // A restart gives the computer a fresh network namespace: the rules come back with it.
  ok(*host, "computer_restart", {{"computer_id", computer_id()}});
  const Json after = ok(*host, "computer_ui");
  EXPECT_EQ(after["network_access"], false) << after.dump();
  expect_refused(connect_from_computer(*host, listener));
  close_host(host);

  // A host restart applies the configured state, as the original's attach does (on by default,
  // off with --no-network), and the firewall follows it.
  host = start_host(desktop_options(true));
  const Json attached = ok(*host, "computer_ui");
  EXPECT_EQ(attached["network_access"], true) << "NETWORK_ACCESS defaults to on at attach";
  const Json on = connect_from_computer(*host, listener);
  EXPECT_EQ(on["stdout"], "vc-desktop-banner\n") << on.dump();
  ok(*host, "set_network_access", {{"enabled", false}});
  close_host(host);
  HostOptions offline = desktop_options(true);
  offline.extra_args.push_back("--no-network");
  host = start_host(offline);
  const Json reattached = ok(*host, "computer_ui");
  EXPECT_EQ(reattached["network_access"], false) << reattached.dump();
  expect_refused(connect_from_computer(*host, listener));
  const Json back = ok(*host, "set_network_access", {{"enabled", true}});
  EXPECT_EQ(back["network_access"], true) << back.dump();
  const Json restored = connect_from_computer(*host, listener);
  EXPECT_EQ(restored["stdout"], "vc-desktop-banner\n") << restored.dump();
  close_host(host);
}

TEST_P(DesktopTest, NetworkOffBlocksIpv6Too) {
  // IPv6 is off in containers on the default bridge; this computer and its target turn it on
  // in their own namespaces and talk over link-local addresses.
  const std::string sysctls =
      R"({"net.ipv6.conf.all.disable_ipv6":"0","net.ipv6.conf.default.disable_ipv6":"0","net.ipv6.conf.eth0.disable_ipv6":"0"})";
  const std::string target = test::unique_name("vc-test-v6");
  remove_at_teardown(target);
  std::vector<std::string> run = {"run", "-d", "--name", target, "--label", kTestLabel};
  for (const char* key : {"net.ipv6.conf.all.disable_ipv6", "net.ipv6.conf.default.disable_ipv6",
                          "net.ipv6.conf.eth0.disable_ipv6"}) {
    run.push_back("--sysctl");
    run.push_back(std::string(key) + "=0");
  }
  for (const char* arg : {kBusyboxImage, "nc", "-ll", "-p", "8080", "-e", "echo", "vc-v6-banner"}) {
    run.push_back(arg);
  }
  const auto started = engine().run_cli(run);
  ASSERT_TRUE(started.ok()) << started.describe(run);
  // The target's link-local address on eth0, from /proc/net/if_inet6 (it appears after DAD).
  std::string address;
  for (int attempt = 0; attempt < 50 && address.empty(); ++attempt) {
    const auto table = engine().run_cli({"exec", target, "cat", "/proc/net/if_inet6"});
    std::istringstream lines(table.out);
    for (std::string line; std::getline(lines, line);) {
      std::istringstream fields(line);
      std::string hex, index, prefix, scope, flags, name;
      fields >> hex >> index >> prefix >> scope >> flags >> name;
      if (name == "eth0" && hex.rfind("fe80", 0) == 0 && hex.size() == 32 &&
          (std::stoi(flags, nullptr, 16) & 0x40) == 0) {  // not tentative
        for (size_t i = 0; i < 32; i += 4) address += (i ? ":" : "") + hex.substr(i, 4);
      }
    }
    if (address.empty()) std::this_thread::sleep_for(100ms);
  }
  ASSERT_FALSE(address.empty()) << "the target got no link-local IPv6 address";

  HostOptions options = desktop_options(false);
  options.extra_args.push_back("--create-overrides");
  options.extra_args.push_back(R"({"HostConfig":{"Sysctls":)" + sysctls + "}}");
  auto host = start_host(options);
  const std::string scoped = address + "%eth0";
  // The computer's own link-local address is usable once duplicate address detection is done.
  const Json settled = execute(
      *host, {{"command",
               "for i in $(seq 50); do ok=0; while read -r a x p s f n; do "
               "if [ \"$n\" = eth0 ] && [ $(( 16#$f & 0x40 )) -eq 0 ]; then ok=1; fi; "
               "done < /proc/net/if_inet6; [ $ok = 1 ] && exit 0; sleep 0.1; done; exit 1"}});
  ASSERT_EQ(settled["exit_code"], 0) << "the computer got no usable IPv6 address: " << settled.dump();
  const Json before = connect_from_computer(*host, scoped);
  ASSERT_EQ(before["stdout"], "vc-v6-banner\n") << before.dump();
  ok(*host, "set_network_access", {{"enabled", false}});
  expect_refused(connect_from_computer(*host, scoped));
  ok(*host, "set_network_access", {{"enabled", true}});
  const Json after = connect_from_computer(*host, scoped);
  EXPECT_EQ(after["stdout"], "vc-v6-banner\n") << after.dump();
  close_host(host);
}

TEST_P(DesktopTest, AHeadlessComputerRefusesXfceAndKeepsItsData) {
  HostOptions options;  // debian:bookworm-slim
  auto host = start_host(options);
  execute(*host, {{"command", "echo mine > /workspace/mine.txt"}});
  const Json refused = host->call_tool("set_desktop_environment", {{"enabled", true}}, 60s);
  EXPECT_EQ(refused.value("isError", false), true) << refused.dump();
  const std::string message = refused["structuredContent"].value("error", "");
  EXPECT_NE(message.find("cannot start Xfce in place"), std::string::npos) << message;
  EXPECT_NE(message.find("data was left untouched"), std::string::npos) << message;
  const Json off = ok(*host, "set_desktop_environment", {{"enabled", false}});
  EXPECT_EQ(off["desktop_environment"], false) << off.dump();
  const Json file = execute(*host, {{"command", "cat /workspace/mine.txt"}});
  EXPECT_EQ(file["stdout"], "mine\n") << file.dump();
  close_host(host);
}

VC_INSTANTIATE_FOR_ENGINES(DesktopTest);

}  // namespace
}  // namespace vc::integration
