// api_url_test.cpp — percent-encoding of query parameters and paths, and the request target.
#include "api_url.h"

#include <gtest/gtest.h>

namespace vc::kubernetes {
namespace {

TEST(ApiUrl, QueryComponentKeepsOnlyUnreservedBytes) {
  EXPECT_EQ(percent_encode_query_component("AZaz09-._~"), "AZaz09-._~");
  EXPECT_EQ(percent_encode_query_component("app in (web,db)"), "app%20in%20%28web%2Cdb%29");
  EXPECT_EQ(percent_encode_query_component("a=b,c!=d"), "a%3Db%2Cc%21%3Dd");
  // '+' would be read as a space by the server, '&' and '#' would end the value.
  EXPECT_EQ(percent_encode_query_component("a+b&c#d/e?f%"), "a%2Bb%26c%23d%2Fe%3Ff%25");
  EXPECT_EQ(percent_encode_query_component("\xC3\xA9\n"), "%C3%A9%0A");
  EXPECT_EQ(percent_encode_query_component(""), "");
}

TEST(ApiUrl, PathKeepsSeparatorsAndEncodesTheRest) {
  EXPECT_EQ(percent_encode_path("/api/v1/namespaces/ns/pods/p-1.x_y~z"),
            "/api/v1/namespaces/ns/pods/p-1.x_y~z");
  const std::string role = "/apis/rbac.authorization.k8s.io/v1/clusterroles/system:basic-user";
  EXPECT_EQ(percent_encode_path(role), role);
  EXPECT_EQ(percent_encode_path("/a b/c?d#e%f"), "/a%20b/c%3Fd%23e%25f");
  EXPECT_EQ(percent_encode_path("/\xC3\xA9"), "/%C3%A9");
}

TEST(ApiUrl, TargetJoinsBasePathPathAndQuery) {
  EXPECT_EQ(make_request_target("", "/api/v1/namespaces", {}), "/api/v1/namespaces");
  EXPECT_EQ(make_request_target("/k8s/clusters/c-1", "/version", {}),
            "/k8s/clusters/c-1/version");
  EXPECT_EQ(make_request_target("", "api/v1/pods", {}), "/api/v1/pods");
  EXPECT_EQ(make_request_target("", "/api/v1/namespaces/ns/pods",
                                {{"labelSelector", "app=web,tier!=db"},
                                 {"fieldSelector", "status.phase=Running"},
                                 {"limit", "5"}}),
            "/api/v1/namespaces/ns/pods?labelSelector=app%3Dweb%2Ctier%21%3Ddb"
            "&fieldSelector=status.phase%3DRunning&limit=5");
  // Order is kept and a name may repeat.
  EXPECT_EQ(make_request_target("/p", "/x", {{"a", "1"}, {"a", "2"}, {"b c", ""}}),
            "/p/x?a=1&a=2&b%20c=");
}

}  // namespace
}  // namespace vc::kubernetes
