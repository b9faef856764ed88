// exec_credential.cpp — building the request and reading the answer of an exec credential
// plugin, with every way the answer can be wrong named.
#include "exec_credential.h"

#include "base64.h"
#include "bounded_file.h"
#include "message_text.h"
#include "text_checks.h"

namespace vc::kubernetes {
namespace {

using nlohmann::json;

// The string field `key` of `object`: empty when absent, nullopt when it is not a string.
std::optional<std::string> string_field(const json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::string();
  if (!it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

// Reads `digits` decimal digits at text[at…], advancing `at`; nullopt when any is not one.
std::optional<int> read_number(std::string_view text, std::size_t& at, std::size_t digits) {
  if (text.size() < at + digits) return std::nullopt;
  int value = 0;
  for (std::size_t i = 0; i < digits; ++i) {
    const char c = text[at + i];
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  at += digits;
  return value;
}

// Times outside these are read as these: long expired, or as good as never expiring. Both are
// far from where system_clock (nanoseconds since 1970, in 64 bits) ends, so that adding or
// subtracting a margin cannot overflow.
constexpr std::chrono::sys_seconds kEarliestTime{std::chrono::seconds(0)};
constexpr std::chrono::sys_seconds kLatestTime =
    std::chrono::sys_days(std::chrono::year(2200) / 1 / 1);

bool expect_char(std::string_view text, std::size_t& at, std::string_view allowed) {
  if (at >= text.size() || allowed.find(text[at]) == std::string_view::npos) return false;
  ++at;
  return true;
}

}  // namespace

std::string exec_credential_request(const std::string& api_version, const nlohmann::json* cluster) {
  json spec = {{"interactive", false}};
  if (cluster != nullptr && !cluster->is_null()) spec["cluster"] = *cluster;
  const json request = {{"apiVersion", api_version}, {"kind", "ExecCredential"}, {"spec", spec}};
  // replace: a kubeconfig's extension may hold bytes that are not UTF-8.
  return request.dump(-1, ' ', false, json::error_handler_t::replace);
}

nlohmann::json exec_cluster_json(const ExecClusterInfo& cluster) {
  json object = {{"server", cluster.server}};
  if (!cluster.tls_server_name.empty()) object["tls-server-name"] = cluster.tls_server_name;
  if (cluster.insecure_skip_tls_verify) object["insecure-skip-tls-verify"] = true;
  if (!cluster.ca_pem.empty()) {
    object["certificate-authority-data"] = encode_base64(cluster.ca_pem);
  }
  if (cluster.disable_compression) object["disable-compression"] = true;
  if (cluster.config) object["config"] = *cluster.config;
  return object;
}

ConfigExpected<Credentials> parse_exec_credential(std::string_view output,
                                                  const std::string& api_version) {
  if (output.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return ConfigError{"nothing on its standard output"};
  }
  const json answer = json::parse(output.begin(), output.end(), nullptr, false);
  if (answer.is_discarded() || !answer.is_object()) {
    return ConfigError{"something other than a JSON object: " + quote_for_message(output, 120)};
  }
  const auto kind = string_field(answer, "kind");
  if (!kind || *kind != "ExecCredential") {
    return ConfigError{"JSON whose kind is not ExecCredential"};
  }
  const auto version = string_field(answer, "apiVersion");
  if (!version || *version != api_version) {
    return ConfigError{"an ExecCredential of apiVersion " +
                       quote_for_message(version ? *version : std::string("?")) +
                       " while the kubeconfig asks for " + api_version};
  }
  auto status = answer.find("status");
  if (status == answer.end() || !status->is_object()) {
    return ConfigError{"an ExecCredential without a status"};
  }
  const auto token = string_field(*status, "token");
  const auto certificate = string_field(*status, "clientCertificateData");
  const auto key = string_field(*status, "clientKeyData");
  const auto expiration = string_field(*status, "expirationTimestamp");
  if (!token || !certificate || !key || !expiration) {
    return ConfigError{
        "an ExecCredential whose status.token, status.clientCertificateData, "
        "status.clientKeyData or status.expirationTimestamp is not a string"};
  }
  if (token->size() > kMaxTokenBytes || certificate->size() > kMaxPemBytes ||
      key->size() > kMaxPemBytes) {
    return ConfigError{"an ExecCredential larger than a credential can be"};
  }
  if (certificate->empty() != key->empty()) {
    return ConfigError{"a client certificate without its key, or a key without its certificate"};
  }
  if (token->empty() && certificate->empty()) {
    return ConfigError{"an ExecCredential with neither a token nor a client certificate"};
  }
  if (!certificate->empty() && (!looks_like_pem(*certificate) || !looks_like_pem(*key))) {
    return ConfigError{"a status.clientCertificateData or status.clientKeyData that is not PEM"};
  }
  Credentials credentials{*token, *certificate, *key, std::nullopt};
  if (!expiration->empty()) {
    credentials.expires_at = parse_rfc3339(*expiration);
    if (!credentials.expires_at) {
      return ConfigError{"a status.expirationTimestamp that is not an RFC 3339 time: " +
                         quote_for_message(*expiration)};
    }
  }
  return credentials;
}

std::optional<std::chrono::system_clock::time_point> parse_rfc3339(std::string_view text) {
  using namespace std::chrono;
  std::size_t at = 0;
  const auto year = read_number(text, at, 4);
  if (!year || !expect_char(text, at, "-")) return std::nullopt;
  const auto month = read_number(text, at, 2);
  if (!month || !expect_char(text, at, "-")) return std::nullopt;
  const auto day = read_number(text, at, 2);
  if (!day || !expect_char(text, at, "Tt ")) return std::nullopt;
  const auto hour = read_number(text, at, 2);
  if (!hour || !expect_char(text, at, ":")) return std::nullopt;
  const auto minute = read_number(text, at, 2);
  if (!minute || !expect_char(text, at, ":")) return std::nullopt;
  const auto second = read_number(text, at, 2);
  if (!second) return std::nullopt;
  // A leap second (60) is read as the next second, as Go's time package cannot hold it either.
  if (*hour > 23 || *minute > 59 || *second > 60) return std::nullopt;
  const year_month_day date{std::chrono::year(*year),
                            std::chrono::month(static_cast<unsigned>(*month)),
                            std::chrono::day(static_cast<unsigned>(*day))};
  if (!date.ok()) return std::nullopt;
  nanoseconds fraction{0};
  if (at < text.size() && text[at] == '.') {
    ++at;
    std::size_t digits = 0;
    std::int64_t scale = 100'000'000;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
      fraction += nanoseconds((text[at] - '0') * scale);
      scale /= 10;
      ++at;
      ++digits;
    }
    if (digits == 0) return std::nullopt;
  }
  minutes offset{0};
  if (expect_char(text, at, "Zz")) {
    // UTC
  } else if (at < text.size() && (text[at] == '+' || text[at] == '-')) {
    const bool east = text[at++] == '+';
    const auto offset_hours = read_number(text, at, 2);
    if (!offset_hours || !expect_char(text, at, ":")) return std::nullopt;
    const auto offset_minutes = read_number(text, at, 2);
    if (!offset_minutes || *offset_hours > 23 || *offset_minutes > 59) return std::nullopt;
    offset = minutes(*offset_hours * 60 + *offset_minutes);
    if (!east) offset = -offset;
  } else {
    return std::nullopt;
  }
  if (at != text.size()) return std::nullopt;
  // In seconds first: system_clock counts nanoseconds, which end in 2262.
  const sys_seconds utc_time =
      sys_days(date) + hours(*hour) + minutes(*minute) + seconds(*second) - offset;
  if (utc_time < kEarliestTime) return time_point_cast<system_clock::duration>(kEarliestTime);
  if (utc_time > kLatestTime) return time_point_cast<system_clock::duration>(kLatestTime);
  return time_point_cast<system_clock::duration>(utc_time) + fraction;
}

}  // namespace vc::kubernetes
