// The checks a 2026-07-28 POST passes before it is served, in the revision's order: envelope
// (-32602), headers (-32020), version (-32022); base64 header values; error statuses.
#include "transport/http_stateless_checks.h"

#include <gtest/gtest.h>

#include "common/base64.h"

namespace vc::transport {
namespace {

Json enveloped(const std::string& method, Json params = Json::object(),
               const std::string& version = "2026-07-28") {
  params["_meta"] = {{mcp::envelope_keys::kProtocolVersion, version},
                     {mcp::envelope_keys::kClientCapabilities, Json::object()}};
  return Json{{"jsonrpc", "2.0"}, {"id", 1}, {"method", method}, {"params", std::move(params)}};
}

HttpRequest post(HeaderList headers) {
  HttpRequest request;
  request.method = "POST";
  request.path = "/mcp";
  request.headers = std::move(headers);
  return request;
}

TEST(HttpStatelessChecks, AMatchingRequestPasses) {
  const auto request = post({{"mcp-protocol-version", "2026-07-28"},
                             {"mcp-method", "tools/call"},
                             {"mcp-name", " terminal_execute\t"}});
  EXPECT_FALSE(check_stateless_post(request, enveloped("tools/call", {{"name", "terminal_execute"}})));
  const auto listing = post({{"mcp-protocol-version", "2026-07-28"}, {"mcp-method", "tools/list"}});
  EXPECT_FALSE(check_stateless_post(listing, enveloped("tools/list")));
}

TEST(HttpStatelessChecks, TheEnvelopeIsCheckedFirst) {
  const auto request = post({{"mcp-protocol-version", "2026-07-28"}});  // no Mcp-Method either
  Json message = enveloped("tools/list");
  message["params"]["_meta"].erase(mcp::envelope_keys::kClientCapabilities);
  const auto refused = check_stateless_post(request, message);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->code, -32602);
  EXPECT_EQ(refused->http_status, 400);
}

TEST(HttpStatelessChecks, HeadersMustRepeatTheBody) {
  const Json call = enveloped("tools/call", {{"name", "bar"}});
  const auto missing_version = check_stateless_post(post({{"mcp-method", "tools/call"}}), call);
  ASSERT_TRUE(missing_version);
  EXPECT_EQ(missing_version->code, -32020);
  const auto wrong_method = check_stateless_post(
      post({{"mcp-protocol-version", "2026-07-28"}, {"mcp-method", "tools/list"}}), call);
  ASSERT_TRUE(wrong_method);
  EXPECT_EQ(wrong_method->code, -32020);
  const auto wrong_name = check_stateless_post(post({{"mcp-protocol-version", "2026-07-28"},
                                                     {"mcp-method", "tools/call"},
                                                     {"mcp-name", "foo"}}),
                                               call);
  ASSERT_TRUE(wrong_name);
  EXPECT_EQ(wrong_name->message, "Header mismatch: Mcp-Name header value 'foo' does not match body value 'bar'");
  const auto missing_name = check_stateless_post(
      post({{"mcp-protocol-version", "2026-07-28"}, {"mcp-method", "tools/call"}}), call);
  ASSERT_TRUE(missing_name);
  EXPECT_EQ(missing_name->code, -32020);
  const auto resource = check_stateless_post(post({{"mcp-protocol-version", "2026-07-28"},
                                                   {"mcp-method", "resources/read"},
                                                   {"mcp-name", "ui://other"}}),
                                             enveloped("resources/read", {{"uri", "ui://app"}}));
  ASSERT_TRUE(resource);
  EXPECT_EQ(resource->code, -32020);
}

TEST(HttpStatelessChecks, AMismatchComesBeforeAnUnservedVersion) {
  const Json future = enveloped("tools/list", Json::object(), "v999.0.0");
  const auto mismatched = check_stateless_post(
      post({{"mcp-protocol-version", "2026-07-28"}, {"mcp-method", "tools/list"}}), future);
  ASSERT_TRUE(mismatched);
  EXPECT_EQ(mismatched->code, -32020);
  const auto unserved = check_stateless_post(
      post({{"mcp-protocol-version", "v999.0.0"}, {"mcp-method", "tools/list"}}), future);
  ASSERT_TRUE(unserved);
  EXPECT_EQ(unserved->code, -32022);
  EXPECT_EQ(unserved->data["requested"], "v999.0.0");
}

TEST(HttpStatelessChecks, Base64HeaderValuesAreComparedDecoded) {
  const std::string name = "naïve tool ✓";
  const auto request = post({{"mcp-protocol-version", "2026-07-28"},
                             {"mcp-method", "prompts/get"},
                             {"mcp-name", "=?base64?" + base64_encode(name) + "?="}});
  EXPECT_FALSE(check_stateless_post(request, enveloped("prompts/get", {{"name", name}})));
  EXPECT_EQ(header_value_text("=?base64?!!!?="), std::nullopt);
  EXPECT_EQ(header_value_text("  plain "), "plain");
}

TEST(HttpStatelessChecks, StatusesFollowTheRevision) {
  EXPECT_EQ(stateless_error_status(-32601), 404);
  EXPECT_EQ(stateless_error_status(-32020), 400);
  EXPECT_EQ(stateless_error_status(-32021), 400);
  EXPECT_EQ(stateless_error_status(-32022), 400);
  EXPECT_EQ(stateless_error_status(-32602), 200) << "a handler's invalid params is in-band";
}

}  // namespace
}  // namespace vc::transport
