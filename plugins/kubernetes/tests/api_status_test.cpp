// api_status_test.cpp — HTTP error answers and watch ERROR events as ApiError kinds and
// sentences.
#include "api_status.h"

#include <gtest/gtest.h>

namespace vc::kubernetes {
namespace {

constexpr const char* kServer = "https://127.0.0.1:6443";

std::string status_json(int code, const std::string& reason, const std::string& message) {
  return nlohmann::json{{"kind", "Status"},     {"apiVersion", "v1"}, {"status", "Failure"},
                        {"message", message},   {"reason", reason},   {"code", code}}
      .dump();
}

TEST(ApiStatus, NotFoundNamesTheCallTheObjectAndTheServer) {
  const ApiError error = api_error_from_answer(
      {"GET", "/api/v1/namespaces/x/pods/y", kServer},
      404, status_json(404, "NotFound", "pods \"y\" not found"));
  EXPECT_EQ(error.kind, ApiErrorKind::not_found);
  EXPECT_EQ(error.http_status, 404);
  EXPECT_EQ(error.reason, "NotFound");
  EXPECT_EQ(error.message,
            "The Kubernetes API at https://127.0.0.1:6443 refused GET "
            "/api/v1/namespaces/x/pods/y: pods \"y\" not found (NotFound).");
}

TEST(ApiStatus, EachStatusHasItsKind) {
  const ApiCallSummary call{"POST", "/api/v1/namespaces/x/configmaps", kServer};
  EXPECT_EQ(api_error_from_answer(call, 409, status_json(409, "AlreadyExists", "exists")).kind,
            ApiErrorKind::conflict);
  EXPECT_EQ(api_error_from_answer(call, 422, status_json(422, "Invalid", "bad name")).kind,
            ApiErrorKind::invalid);
  EXPECT_EQ(api_error_from_answer(call, 400, status_json(400, "BadRequest", "bad")).kind,
            ApiErrorKind::invalid);
  EXPECT_EQ(api_error_from_answer(call, 410, status_json(410, "Gone", "gone")).kind,
            ApiErrorKind::gone);
  EXPECT_EQ(api_error_from_answer(call, 500, status_json(500, "InternalError", "etcd")).kind,
            ApiErrorKind::server);
  EXPECT_EQ(api_error_from_answer(call, 418, "").kind, ApiErrorKind::server);
}

TEST(ApiStatus, UnauthorizedAsksAboutTheCredentials) {
  const ApiError error = api_error_from_answer({"GET", "/version", kServer}, 401,
                                               status_json(401, "Unauthorized", "Unauthorized"));
  EXPECT_EQ(error.kind, ApiErrorKind::unauthorized);
  EXPECT_NE(error.message.find("Are the kubeconfig's credentials current?"), std::string::npos)
      << error.message;
}

TEST(ApiStatus, ForbiddenNamesThePermissionAndTheDocument) {
  const ApiError error = api_error_from_answer(
      {"POST", "/api/v1/namespaces/vc/pods/computer-1/exec", kServer}, 403,
      status_json(403, "Forbidden", "pods \"computer-1\" is forbidden: User \"u\" cannot create"));
  EXPECT_EQ(error.kind, ApiErrorKind::forbidden);
  EXPECT_NE(error.message.find("The account lacks RBAC permission to create pods/exec in the "
                               "namespace vc; docs/kubernetes-backend.md lists what the plugin "
                               "needs."),
            std::string::npos)
      << error.message;
}

TEST(ApiStatus, RbacActionFollowsTheMethodAndThePath) {
  EXPECT_EQ(rbac_action({"GET", "/api/v1/namespaces/ns/configmaps", kServer}),
            "list configmaps in the namespace ns");
  EXPECT_EQ(rbac_action({"GET", "/api/v1/namespaces/ns/configmaps", kServer, true}),
            "watch configmaps in the namespace ns");
  EXPECT_EQ(rbac_action({"GET", "/api/v1/namespaces/ns/configmaps/c", kServer}),
            "get configmaps in the namespace ns");
  EXPECT_EQ(rbac_action({"PATCH", "/apis/apps/v1/namespaces/ns/deployments/d", kServer}),
            "patch deployments in the namespace ns");
  EXPECT_EQ(rbac_action({"DELETE", "/api/v1/namespaces/ns/pods", kServer}),
            "deletecollection pods in the namespace ns");
  EXPECT_EQ(rbac_action({"DELETE", "/api/v1/namespaces/vc-1", kServer}), "delete namespaces");
  EXPECT_EQ(rbac_action({"POST", "/api/v1/namespaces", kServer}), "create namespaces");
  EXPECT_EQ(rbac_action({"GET", "/api/v1/namespaces/ns/status", kServer}), "get namespaces/status");
  EXPECT_EQ(rbac_action({"GET", "/version", kServer}), "GET /version");
}

TEST(ApiStatus, AnAnswerThatIsNotAStatusIsQuotedBoundedOnOneLine) {
  const std::string page = "<html>\n<body>Bad gateway\r\n" + std::string(10000, 'x') + "</html>";
  const ApiError error = api_error_from_answer({"GET", "/version", kServer}, 502, page);
  EXPECT_EQ(error.kind, ApiErrorKind::server);
  EXPECT_EQ(error.reason, "");
  EXPECT_NE(error.message.find("HTTP 502 with the answer \"<html> <body>Bad gateway"),
            std::string::npos)
      << error.message;
  EXPECT_EQ(error.message.find('\n'), std::string::npos);
  EXPECT_LT(error.message.size(), 600u);
}

TEST(ApiStatus, AServersLongMessageIsCut) {
  const ApiError error = api_error_from_answer(
      {"GET", "/version", kServer}, 500, status_json(500, "InternalError", std::string(5000, 'm')));
  EXPECT_LT(error.message.size(), 600u);
  EXPECT_NE(error.message.find("…"), std::string::npos);
}

TEST(ApiStatus, AnEmptyAnswerSaysSo) {
  const ApiError error = api_error_from_answer({"GET", "/version", kServer}, 503, "");
  EXPECT_NE(error.message.find("HTTP 503 without an explanation (HTTP 503)."), std::string::npos)
      << error.message;
}

TEST(ApiStatus, AWatchsGoneIsKindGoneWithWhatToDo) {
  const auto status = nlohmann::json::parse(
      status_json(410, "Expired", "too old resource version: 5 (77)"));
  const ApiError error =
      api_error_from_watch_status({"GET", "/api/v1/namespaces/ns/configmaps", kServer, true},
                                  status);
  EXPECT_EQ(error.kind, ApiErrorKind::gone);
  EXPECT_EQ(error.http_status, 410);
  EXPECT_EQ(error.reason, "Expired");
  EXPECT_NE(error.message.find("too old resource version: 5 (77) (Expired)."), std::string::npos)
      << error.message;
  EXPECT_NE(error.message.find("list again"), std::string::npos) << error.message;
}

TEST(ApiStatus, AWatchStatusWithoutACodeIsAServerError) {
  const ApiError error =
      api_error_from_watch_status({"GET", "/api/v1/pods", kServer, true}, nlohmann::json::object());
  EXPECT_EQ(error.kind, ApiErrorKind::server);
  EXPECT_FALSE(error.message.empty());
}

}  // namespace
}  // namespace vc::kubernetes
