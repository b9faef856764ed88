// JSON-RPC error handling of the real binary: the server answers and keeps running.
#include <gtest/gtest.h>

#include "host_process.h"

namespace vc::protocol_test {
namespace {

class ProtocolErrors : public ::testing::Test {
 protected:
  ProtocolErrors() : host_(process_args(scratch_)) { host_.initialize(); }

  Json next_reply() {
    auto message = host_.next_message(10s);
    EXPECT_TRUE(message) << "no reply";
    return message.value_or(Json());
  }
  void expect_still_serving() { EXPECT_EQ(host_.request("alive", "ping")["result"], Json::object()); }

  TempDir scratch_;
  HostProcess host_;
};

TEST_F(ProtocolErrors, MalformedJsonIsAParseErrorWithNullId) {
  host_.send_raw("{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \n");
  const Json reply = next_reply();
  EXPECT_TRUE(reply["id"].is_null());
  EXPECT_EQ(reply["error"]["code"], -32700);
  expect_still_serving();
}

TEST_F(ProtocolErrors, ANumberThatOverflowsADoubleIsAParseErrorNotACrash) {
  host_.send_raw("{\"jsonrpc\":\"2.0\",\"id\":1e999999,\"method\":\"ping\"}\n");
  const Json reply = next_reply();
  EXPECT_TRUE(reply["id"].is_null()) << reply.dump();
  EXPECT_EQ(reply["error"]["code"], -32700) << reply.dump();
  expect_still_serving();
}

TEST_F(ProtocolErrors, BatchesAreInvalidRequests) {
  host_.send(Json::array({Json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", "ping"}}}));
  const Json reply = next_reply();
  EXPECT_EQ(reply["error"]["code"], -32600);
  EXPECT_TRUE(reply["id"].is_null());
  expect_still_serving();
}

TEST_F(ProtocolErrors, WrongJsonRpcVersionAndIdTypes) {
  host_.send(Json{{"jsonrpc", "1.0"}, {"id", 3}, {"method", "ping"}});
  EXPECT_EQ(next_reply()["error"]["code"], -32600);
  host_.send(Json{{"jsonrpc", "2.0"}, {"id", Json{{"x", 1}}}, {"method", "ping"}});
  EXPECT_EQ(next_reply()["error"]["code"], -32600);
  host_.send_raw("42\n");
  EXPECT_EQ(next_reply()["error"]["code"], -32600);
  expect_still_serving();
}

TEST_F(ProtocolErrors, UnknownMethodIsMethodNotFound) {
  const Json reply = host_.request(4, "no/such-method");
  EXPECT_EQ(reply["error"]["code"], -32601);
  EXPECT_EQ(reply["id"], 4);
}

TEST_F(ProtocolErrors, UnknownNotificationsAndResponsesAreIgnored) {
  host_.send(Json{{"jsonrpc", "2.0"}, {"method", "notifications/something"}});
  host_.send(Json{{"jsonrpc", "2.0"}, {"id", 99}, {"result", Json::object()}});
  host_.send(Json{{"jsonrpc", "2.0"}, {"method", "notifications/cancelled"}, {"params", {{"requestId", 12345}}}});
  const Json reply = host_.request("after", "ping");
  EXPECT_EQ(reply["id"], "after");
  EXPECT_TRUE(host_.others().empty());
}

TEST_F(ProtocolErrors, CrLfAndBlankLinesAreAccepted) {
  host_.send_raw("\r\n\n{\"jsonrpc\":\"2.0\",\"id\":\"crlf\",\"method\":\"ping\"}\r\n");
  EXPECT_EQ(next_reply()["id"], "crlf");
}

TEST_F(ProtocolErrors, InvalidParams) {
  EXPECT_EQ(host_.request(5, "tools/call", {{"arguments", Json::object()}})["error"]["code"], -32602);
  EXPECT_EQ(host_.request(6, "tools/call", {{"name", "terminal_execute"}, {"arguments", Json::array()}})["error"]["code"], -32602);
  EXPECT_EQ(host_.request(7, "tools/list", {{"cursor", "bogus"}})["error"]["code"], -32602);
}

}  // namespace
}  // namespace vc::protocol_test
