// credential_sources.cpp — fixed credentials, a token file read again as it rotates, and an
// exec credential plugin run with a deadline and its answer cached.
#include "credential_sources.h"

#include <unistd.h>

#include <cstdlib>
#include <map>

#include "bounded_file.h"
#include "bounded_process.h"
#include "exec_credential.h"
#include "message_text.h"
#include "text_checks.h"

extern char** environ;  // NOLINT: POSIX declares it nowhere else

namespace vc::kubernetes {
namespace {

using SteadyClock = std::chrono::steady_clock;
using SystemClock = std::chrono::system_clock;

// How much of a plugin's stderr a message quotes.
constexpr std::size_t kQuotedStderrChars = 400;
constexpr const char* kFallbackPath = "/usr/local/bin:/usr/bin:/bin";

// A plugin's stderr as a message quotes it: trimmed, bounded, ": \"…\"" or nothing.
std::string quoted_stderr(const std::string& text) {
  const std::string trimmed = trim_whitespace(text);
  if (trimmed.empty()) return std::string();
  return ": " + quote_for_message(trimmed, kQuotedStderrChars);
}

std::string seconds_text(std::chrono::milliseconds duration) {
  const auto count = duration.count();
  if (count % 1000 == 0) return std::to_string(count / 1000) + " s";
  return std::to_string(count) + " ms";
}

}  // namespace

ConfigExpected<std::string> token_from_file_bytes(const std::string& bytes) {
  std::string token = trim_whitespace(bytes);
  if (token.empty()) return ConfigError{"is empty"};
  if (token.find_first_of("\r\n") != std::string::npos) {
    return ConfigError{"holds more than one line, and a bearer token is one line"};
  }
  return token;
}

// --- FixedCredentialSource ----------------------------------------------------------------------

FixedCredentialSource::FixedCredentialSource(Credentials credentials, std::string description)
    : credentials_(std::move(credentials)), description_(std::move(description)) {}

ConfigExpected<Credentials> FixedCredentialSource::current() { return credentials_; }

std::string FixedCredentialSource::describe() const { return description_; }

// --- TokenFileCredentialSource ------------------------------------------------------------------

TokenFileCredentialSource::TokenFileCredentialSource(Settings settings,
                                                     std::optional<std::string> token_read_at_load)
    : settings_(std::move(settings)),
      token_(std::move(token_read_at_load)),
      read_at_(SteadyClock::now()) {}

ConfigExpected<std::string> TokenFileCredentialSource::read_token(const std::string& path,
                                                                  const std::string& origin) {
  const std::string named = "The token file " + printable_for_message(path) + " (" + origin + ")";
  auto bytes = read_bounded_file(path, kMaxTokenBytes);
  auto token = bytes ? token_from_file_bytes(bytes.value()) : bytes;
  if (!token) return ConfigError{named + " " + token.error().message + "."};
  return token;
}

ConfigExpected<Credentials> TokenFileCredentialSource::current() {
  std::lock_guard lock(mutex_);
  const auto now = SteadyClock::now();
  if (!token_ || stale_ || now - read_at_ >= settings_.reread_after) {
    auto token = read_token(settings_.path, settings_.origin);
    // A failed re-read keeps the last good token, as client-go does: the file may be in the
    // middle of its rotation. Without one, the failure is the answer.
    if (!token && !token_) return token.error();
    if (token) token_ = std::move(token).value();
    read_at_ = now;
    stale_ = false;
  }
  const auto due_in = settings_.reread_after - (now - read_at_);
  return Credentials{
      *token_, settings_.client_certificate_pem, settings_.client_key_pem,
      SystemClock::now() + std::chrono::duration_cast<SystemClock::duration>(due_in)};
}

void TokenFileCredentialSource::invalidate() {
  std::lock_guard lock(mutex_);
  stale_ = true;
}

std::string TokenFileCredentialSource::describe() const {
  return "the token file " + printable_for_message(settings_.path) + " (" + settings_.origin + ")";
}

// --- ExecCredentialSource -----------------------------------------------------------------------

ExecCredentialSource::ExecCredentialSource(ExecPluginSettings settings)
    : settings_(std::move(settings)) {}

ConfigExpected<Credentials> ExecCredentialSource::current() {
  std::unique_lock lock(mutex_);
  if (cached_ && (!cached_->expires_at || SystemClock::now() < *cached_->expires_at)) {
    return *cached_;
  }
  if (running_) {
    // Another caller is running the plugin: its answer is ours too.
    const auto run = runs_finished_;
    run_finished_.wait(lock, [&] { return runs_finished_ != run; });
    return *last_run_;
  }
  running_ = true;
  lock.unlock();
  ConfigExpected<Credentials> result = ConfigError{""};
  try {
    result = run_plugin();
  } catch (const std::exception& error) {  // out of memory, or a thread that cannot start
    result = plugin_error(std::string("failed: ") + error.what());
  }
  lock.lock();
  running_ = false;
  ++runs_finished_;
  last_run_ = result;
  if (result) {
    cached_ = result.value();
  } else {
    cached_.reset();
  }
  run_finished_.notify_all();
  return result;
}

void ExecCredentialSource::invalidate() {
  std::lock_guard lock(mutex_);
  cached_.reset();
}

std::string ExecCredentialSource::describe() const {
  return "the exec plugin " + printable_for_message(settings_.command, 200);
}

ConfigError ExecCredentialSource::plugin_error(const std::string& what) const {
  return ConfigError{"The exec plugin " + printable_for_message(settings_.command, 200) + " (" +
                     settings_.origin + ") " + what + "."};
}

ConfigExpected<Credentials> ExecCredentialSource::run_plugin() const {
  const char* path_variable = std::getenv("PATH");
  const auto program =
      find_program(settings_.command, path_variable ? path_variable : kFallbackPath);
  if (!program) {
    const bool bare_name = settings_.command.find('/') == std::string::npos;
    std::string what = bare_name ? "was not found on PATH" : "does not exist or is not executable";
    const std::string hint = trim_whitespace(settings_.install_hint);
    if (hint.empty()) {
      what += "; install it, or write its full path as the kubeconfig's exec command";
    } else {
      what += "; its install hint: " + printable_for_message(hint, 600);
    }
    return plugin_error(what);
  }
  return run_found_plugin(*program);
}

ConfigExpected<Credentials> ExecCredentialSource::run_found_plugin(
    const std::string& program) const {
  BoundedProcessRequest request;
  request.program = program;
  request.arguments = settings_.args;
  request.environment = plugin_environment();
  request.timeout = settings_.timeout;
  auto outcome = run_bounded_process(request);
  if (!outcome) return plugin_error(outcome.error().message);
  const auto& ran = outcome.value();
  using ProcessEnding = BoundedProcessResult::Ending;
  switch (ran.ending) {
    case ProcessEnding::kTimedOut:
      return plugin_error("did not finish within " + seconds_text(settings_.timeout) +
                          " and was stopped" + quoted_stderr(ran.stderr_text));
    case ProcessEnding::kStdoutTooLarge:
      return plugin_error("printed more than " + describe_byte_count(request.max_stdout_bytes) +
                          " and was stopped");
    case ProcessEnding::kKilledBySignal:
      return plugin_error("was killed by signal " + std::to_string(ran.signal) +
                          quoted_stderr(ran.stderr_text));
    case ProcessEnding::kExited:
      break;
  }
  if (ran.exit_code != 0) {
    return plugin_error("exited with status " + std::to_string(ran.exit_code) +
                        quoted_stderr(ran.stderr_text));
  }
  auto credentials = parse_exec_credential(ran.stdout_text, settings_.api_version);
  if (!credentials) return plugin_error("printed " + credentials.error().message);
  return with_refresh_time(std::move(credentials).value());
}

std::vector<std::string> ExecCredentialSource::plugin_environment() const {
  // The server's environment, then the kubeconfig's additions over it (a name given twice
  // takes its later value), then KUBERNETES_EXEC_INFO.
  std::map<std::string, std::string> variables;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string text(*entry);
    const auto equals = text.find('=');
    if (equals == std::string::npos || equals == 0) continue;
    variables[text.substr(0, equals)] = text.substr(equals + 1);
  }
  for (const auto& [name, value] : settings_.env) variables[name] = value;
  variables["KUBERNETES_EXEC_INFO"] = exec_credential_request(
      settings_.api_version, settings_.cluster ? &*settings_.cluster : nullptr);
  std::vector<std::string> environment;
  environment.reserve(variables.size());
  for (const auto& [name, value] : variables) environment.push_back(name + "=" + value);
  return environment;
}

Credentials ExecCredentialSource::with_refresh_time(Credentials credentials) const {
  if (!credentials.expires_at) return credentials;
  const auto now = SystemClock::now();
  const auto expiry = *credentials.expires_at;
  auto due =
      expiry - std::chrono::duration_cast<SystemClock::duration>(settings_.refresh_before_expiry);
  // A credential that lives shorter than the margin is used for half its life instead of not
  // at all; one that already expired is due at once.
  if (due <= now) due = expiry > now ? now + (expiry - now) / 2 : expiry;
  credentials.expires_at = due;
  return credentials;
}

}  // namespace vc::kubernetes
