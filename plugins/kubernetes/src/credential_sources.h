// credential_sources.h — the three CredentialSources a kubeconfig or a pod yields:
//
//   FixedCredentialSource      a token and/or client certificate read once, at load
//   TokenFileCredentialSource  a token file read again when the last read is older than
//                              60 s or after invalidate() (client-go's rule: service account
//                              tokens are rotated on disk), the last good token kept when a
//                              later read fails
//   ExecCredentialSource       an exec credential plugin (users[].user.exec), run again when
//                              its answer is about to expire or after invalidate()
//
// Thread rule (api_endpoint.h): current(), invalidate() and describe() from any thread. Each
// source locks its state; ExecCredentialSource runs the plugin outside its lock, and callers
// that arrive during a run wait for that run and share its result (one run, not one each).
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api_endpoint.h"

namespace vc::kubernetes {

inline constexpr std::chrono::milliseconds kTokenFileRereadAfter{60'000};
inline constexpr std::chrono::milliseconds kDefaultExecTimeout{30'000};
// An exec credential is asked for again this long before its expirationTimestamp, so that a
// request does not leave with a token that expires on the way.
inline constexpr std::chrono::milliseconds kExecRefreshBeforeExpiry{10'000};

// The bearer token in a token file's bytes: the text without surrounding whitespace (as
// client-go trims it). The error's message is a predicate to follow the file's name ("is empty").
ConfigExpected<std::string> token_from_file_bytes(const std::string& bytes);

class FixedCredentialSource final : public CredentialSource {
 public:
  // `description`: "the token of users[0] (name \"admin\") of the kubeconfig /root/.kube/config".
  FixedCredentialSource(Credentials credentials, std::string description);
  ConfigExpected<Credentials> current() override;
  void invalidate() override {}  // nothing to read again: the server refused for good
  std::string describe() const override;

 private:
  const Credentials credentials_;
  const std::string description_;
};

class TokenFileCredentialSource final : public CredentialSource {
 public:
  struct Settings {
    std::string path;
    // Sent along with the token (a kubeconfig user may have both); empty: none.
    std::string client_certificate_pem;
    std::string client_key_pem;
    std::chrono::milliseconds reread_after = kTokenFileRereadAfter;
    // Where the file was named, for messages: "users[0] (name \"ci\").user.tokenFile of the
    // kubeconfig /k" or "the pod's service account".
    std::string origin;
  };
  // `token_read_at_load`: the token the loader already read (so that a bad file failed the
  // load), used until it is older than reread_after; nullopt: read at the first current().
  TokenFileCredentialSource(Settings settings, std::optional<std::string> token_read_at_load);
  ConfigExpected<Credentials> current() override;
  void invalidate() override;
  std::string describe() const override;

  // The token the file at `path` holds (token_from_file_bytes), or an error sentence naming
  // the file and `origin`.
  static ConfigExpected<std::string> read_token(const std::string& path, const std::string& origin);

 private:
  const Settings settings_;
  std::mutex mutex_;
  std::optional<std::string> token_;
  std::chrono::steady_clock::time_point read_at_;
  bool stale_ = false;
};

struct ExecPluginSettings {
  // As run: a path (relative ones already resolved against the kubeconfig's folder) or a name
  // looked up in PATH.
  std::string command;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> env;  // added to the server's environment
  std::string api_version;                               // exec_credential.h's two versions
  std::string install_hint;                              // shown when the command is missing
  std::optional<nlohmann::json> cluster;  // spec.cluster, when provideClusterInfo is true
  // For messages: "users[0] (name \"eks\") of the kubeconfig /root/.kube/config".
  std::string origin;
  std::chrono::milliseconds timeout = kDefaultExecTimeout;
  std::chrono::milliseconds refresh_before_expiry = kExecRefreshBeforeExpiry;
};

class ExecCredentialSource final : public CredentialSource {
 public:
  explicit ExecCredentialSource(ExecPluginSettings settings);
  // Runs the plugin when there is no answer yet, the answer is due (expires_at, which is
  // refresh_before_expiry ahead of the plugin's expirationTimestamp) or after invalidate().
  // An answer without expirationTimestamp is kept until invalidate().
  ConfigExpected<Credentials> current() override;
  void invalidate() override;
  std::string describe() const override;

 private:
  ConfigExpected<Credentials> run_plugin() const;
  ConfigExpected<Credentials> run_found_plugin(const std::string& program) const;
  ConfigError plugin_error(const std::string& what) const;
  std::vector<std::string> plugin_environment() const;
  // The answer with expires_at moved to when it is due for a refresh.
  Credentials with_refresh_time(Credentials credentials) const;

  const ExecPluginSettings settings_;
  std::mutex mutex_;
  std::condition_variable run_finished_;
  std::optional<Credentials> cached_;
  bool running_ = false;
  std::uint64_t runs_finished_ = 0;
  std::optional<ConfigExpected<Credentials>> last_run_;
};

}  // namespace vc::kubernetes
