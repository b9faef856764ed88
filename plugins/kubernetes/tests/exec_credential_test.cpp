// exec_credential_test.cpp — the small pure pieces under the loader: reading an ExecCredential,
// RFC 3339 times, base64, and how outside text is made fit for a message.
#include "exec_credential.h"

#include <gtest/gtest.h>

#include "base64.h"
#include "kubeconfig_document.h"
#include "message_text.h"

namespace vc::kubernetes {
namespace {

using namespace std::chrono;

sys_seconds utc(int y, unsigned mo, unsigned d, int h, int mi, int s) {
  return sys_days(year(y) / month(mo) / day(d)) + hours(h) + minutes(mi) + seconds(s);
}

TEST(Rfc3339, ReadsUtcOffsetsAndFractions) {
  EXPECT_EQ(parse_rfc3339("2025-01-02T03:04:05Z"), utc(2025, 1, 2, 3, 4, 5));
  EXPECT_EQ(parse_rfc3339("2025-01-02t03:04:05z"), utc(2025, 1, 2, 3, 4, 5));
  EXPECT_EQ(parse_rfc3339("2018-03-05T17:30:20-08:00"), utc(2018, 3, 6, 1, 30, 20));
  EXPECT_EQ(parse_rfc3339("2024-02-29T23:59:59+05:30"), utc(2024, 2, 29, 18, 29, 59));
  EXPECT_EQ(parse_rfc3339("2025-01-02T03:04:05.25Z"),
            time_point_cast<system_clock::duration>(utc(2025, 1, 2, 3, 4, 5) + milliseconds(250)));
}

TEST(Rfc3339, TimesPastWhatTheClockHoldsAreClamped) {
  EXPECT_EQ(parse_rfc3339("2680-06-01T00:00:00.5+02:00"), utc(2200, 1, 1, 0, 0, 0));
  EXPECT_EQ(parse_rfc3339("9999-12-31T23:59:59Z"), utc(2200, 1, 1, 0, 0, 0));
  EXPECT_EQ(parse_rfc3339("0001-01-01T00:00:00Z"), utc(1970, 1, 1, 0, 0, 0));
}

TEST(Rfc3339, RefusesWhatIsNotOne) {
  for (const char* text : {"", "2025-01-02", "2025-01-02T03:04:05", "2025-13-02T03:04:05Z",
                           "2025-02-30T03:04:05Z", "2025-01-02T24:00:00Z", "2025-01-02T03:04:05.Z",
                           "2025-01-02T03:04:05Z ", "2025-01-02T03:04:05+0100", "1736000000"}) {
    EXPECT_FALSE(parse_rfc3339(text)) << text;
  }
}

TEST(ExecCredentialAnswer, TokenWithExpiry) {
  auto credentials = parse_exec_credential(
      R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",
          "status":{"token":"abc","expirationTimestamp":"2030-06-01T00:00:00Z"}})",
      kExecCredentialV1);
  ASSERT_TRUE(credentials) << credentials.error().message;
  EXPECT_EQ(credentials.value().bearer_token, "abc");
  EXPECT_EQ(credentials.value().expires_at, utc(2030, 6, 1, 0, 0, 0));
}

TEST(ExecCredentialAnswer, EachWrongAnswerIsNamed) {
  const auto error = [](const std::string& output) {
    auto credentials = parse_exec_credential(output, kExecCredentialV1);
    return credentials ? std::string("accepted") : credentials.error().message;
  };
  const std::string head =
      R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential",)";
  EXPECT_EQ(error("  \n"), "nothing on its standard output");
  EXPECT_EQ(error("[1]"), "something other than a JSON object: \"[1]\"");
  EXPECT_EQ(error(R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"Pod"})"),
            "JSON whose kind is not ExecCredential");
  EXPECT_EQ(error(head + R"("spec":{}})"), "an ExecCredential without a status");
  EXPECT_EQ(error(head + R"("status":{}})"),
            "an ExecCredential with neither a token nor a client certificate");
  EXPECT_EQ(error(head + R"("status":{"token":7}})"),
            "an ExecCredential whose status.token, status.clientCertificateData, "
            "status.clientKeyData or status.expirationTimestamp is not a string");
  EXPECT_EQ(error(head + R"("status":{"clientCertificateData":"-----BEGIN CERTIFICATE-----"}})"),
            "a client certificate without its key, or a key without its certificate");
  EXPECT_EQ(error(head + R"("status":{"clientCertificateData":"x","clientKeyData":"y"}})"),
            "a status.clientCertificateData or status.clientKeyData that is not PEM");
  EXPECT_EQ(error(head + R"("status":{"token":"t","expirationTimestamp":"tomorrow"}})"),
            "a status.expirationTimestamp that is not an RFC 3339 time: \"tomorrow\"");
}

TEST(ExecCredentialRequest, ClusterInfoAsClientGoBuildsIt) {
  const auto cluster =
      exec_cluster_json({"https://h:6443", "", true, "PEM", false, nlohmann::json{{"k", "v"}}});
  EXPECT_EQ(cluster, (nlohmann::json{{"server", "https://h:6443"},
                                     {"insecure-skip-tls-verify", true},
                                     {"certificate-authority-data", "UEVN"},
                                     {"config", {{"k", "v"}}}}));
  EXPECT_EQ(nlohmann::json::parse(exec_credential_request(kExecCredentialV1beta1, &cluster)),
            (nlohmann::json{{"apiVersion", kExecCredentialV1beta1},
                            {"kind", "ExecCredential"},
                            {"spec", {{"interactive", false}, {"cluster", cluster}}}}));
}

TEST(Base64, DecodesStandardBase64AndRefusesTheRest) {
  EXPECT_EQ(decode_base64("aGVsbG8="), "hello");
  EXPECT_EQ(decode_base64("aGVs\nbG8h"), "hello!");
  EXPECT_EQ(decode_base64("aGk="), "hi");
  EXPECT_EQ(decode_base64(""), "");
  for (const char* bad : {"aGVsbG8", "aGVs-G8=", "a===", "aG=k", "aGVsbG8=aGk=", "****"}) {
    EXPECT_FALSE(decode_base64(bad)) << bad;
  }
  EXPECT_EQ(encode_base64("hello!"), "aGVsbG8h");
  EXPECT_EQ(encode_base64("hi"), "aGk=");
}

TEST(MessageText, EscapesCutsAndKeepsUtf8) {
  EXPECT_EQ(quote_for_message("kind-dev"), "\"kind-dev\"");
  EXPECT_EQ(quote_for_message("a\"b\\c\nd\x1b"), "\"a\\\"b\\\\c\\nd\\x1b\"");
  EXPECT_EQ(quote_for_message("héllo wörld", 4), "\"héll…\"");
  EXPECT_EQ(quote_for_message("\xff\xc3("), "\"\\xff\\xc3(\"");
  EXPECT_EQ(printable_for_message("/root/.kube/config"), "/root/.kube/config");
  EXPECT_EQ(printable_for_message("/a\"b"), "/a\"b");
  EXPECT_EQ(printable_for_message(std::string(600, 'p'), 512), std::string(512, 'p') + "…");
}

TEST(KubeconfigDocument, ParsesWithoutAFileSystemAndMergesFirstWins) {
  auto first = parse_kubeconfig(
      "clusters:\n- {name: c, cluster: {server: 'https://one', certificate-authority: ca.crt}}\n"
      "current-context: x\n",
      "/etc/a/config");
  auto second = parse_kubeconfig(
      "clusters:\n- {name: c, cluster: {server: 'https://two'}}\n"
      "- {name: d, cluster: {server: 'https://three'}}\ncurrent-context: y\n",
      "/etc/b/config");
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first.value().clusters[0].origin.folder, "/etc/a");
  EXPECT_EQ(first.value().clusters[0].origin.field, "clusters[0] (name \"c\")");
  const Kubeconfig merged = merge_kubeconfigs({first.value(), second.value()});
  ASSERT_EQ(merged.clusters.size(), 2u);
  EXPECT_EQ(merged.find_cluster("c")->server, "https://one");
  EXPECT_EQ(merged.find_cluster("d")->origin.file, "/etc/b/config");
  EXPECT_EQ(merged.current_context, "x");
  EXPECT_EQ(merged.describe(), "kubeconfig files /etc/a/config and /etc/b/config");
}

}  // namespace
}  // namespace vc::kubernetes
