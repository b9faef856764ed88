// credential_sources_test.cpp — the credential sources on their own: a token file read again as
// it rotates, and exec credential plugins played by small shell scripts the tests write (v1
// token, v1beta1 client certificate, expiry and refresh, failures, a hang, a missing command,
// several threads asking at once).
#include "credential_sources.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/types.h>

#include <atomic>
#include <cerrno>
#include <ctime>
#include <fstream>
#include <iterator>
#include <thread>
#include <vector>

#include "test_folder.h"

namespace vc::kubernetes {
namespace {

using testing::kClientPem;
using testing::kKeyPem;
using testing::TestFolder;
using namespace std::chrono_literals;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// How many lines the file has: the scripts append one per run.
std::size_t line_count(const std::string& path) {
  const std::string text = read_text(path);
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

std::string rfc3339(std::chrono::system_clock::time_point time) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(time);
  std::tm utc{};
  ::gmtime_r(&seconds, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

// A script printing a v1 ExecCredential with a token numbered by its runs (token-1, token-2…)
// and, when given, an expirationTimestamp.
std::string counting_token_script(const TestFolder& folder, const std::string& expiry = "") {
  const std::string runs = folder.file("runs");
  const std::string expiration =
      expiry.empty() ? "" : ",\"expirationTimestamp\":\"" + expiry + "\"";
  return folder.script(
      "count-token",
      "echo run >> '" + runs +
          "'\n"
          "n=$(wc -l < '" +
          runs +
          "' | tr -d ' ')\n"
          "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
          "\"status\":{\"token\":\"token-%s\"" +
          expiration + "}}' \"$n\"");
}

ExecPluginSettings settings_for(const std::string& command, const std::string& api_version =
                                                                "client.authentication.k8s.io/v1") {
  ExecPluginSettings settings;
  settings.command = command;
  settings.api_version = api_version;
  settings.origin = "users[0] (name \"u\") of the kubeconfig /k";
  return settings;
}

std::string error_of(CredentialSource& source) {
  auto credentials = source.current();
  return credentials ? std::string() : credentials.error().message;
}

// --- fixed and token file -----------------------------------------------------------------------

TEST(FixedCredentialSource, GivesWhatItWasMadeWith) {
  FixedCredentialSource source({"t", kClientPem, kKeyPem, std::nullopt}, "the token of x");
  auto credentials = source.current();
  ASSERT_TRUE(credentials);
  EXPECT_EQ(credentials.value().bearer_token, "t");
  EXPECT_EQ(credentials.value().client_key_pem, kKeyPem);
  source.invalidate();
  EXPECT_EQ(source.current().value().bearer_token, "t");
  EXPECT_EQ(source.describe(), "the token of x");
}

TEST(TokenFileCredentialSource, ReadsAgainWhenOlderThanItsInterval) {
  TestFolder folder;
  const auto path = folder.write("token", "one\n");
  TokenFileCredentialSource source({path, kClientPem, kKeyPem, 200ms, "a test"}, std::nullopt);
  auto first = source.current();
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(first.value().bearer_token, "one");
  EXPECT_EQ(first.value().client_certificate_pem, kClientPem);
  folder.write("token", "two\n");
  EXPECT_EQ(source.current().value().bearer_token, "one");
  std::this_thread::sleep_for(250ms);
  EXPECT_EQ(source.current().value().bearer_token, "two");
}

TEST(TokenFileCredentialSource, KeepsTheLastGoodTokenWhenTheFileGoesAway) {
  TestFolder folder;
  const auto path = folder.write("token", "kept");
  TokenFileCredentialSource source({path, "", "", 60s, "a test"}, std::string("kept"));
  std::filesystem::remove(path);
  source.invalidate();
  auto credentials = source.current();
  ASSERT_TRUE(credentials) << credentials.error().message;
  EXPECT_EQ(credentials.value().bearer_token, "kept");
}

TEST(TokenFileCredentialSource, WithoutAnyTokenTheFailureIsTheAnswer) {
  TestFolder folder;
  TokenFileCredentialSource source({folder.file("none"), "", "", 60s, "a test"}, std::nullopt);
  EXPECT_EQ(error_of(source),
            "The token file " + folder.file("none") + " (a test) does not exist.");
  folder.write("lines", "a\nb\n");
  TokenFileCredentialSource lines({folder.file("lines"), "", "", 60s, "a test"}, std::nullopt);
  EXPECT_EQ(error_of(lines),
            "The token file " + folder.file("lines") +
                " (a test) holds more than one line, and a bearer token is one line.");
}

// --- exec plugins -------------------------------------------------------------------------------

TEST(ExecCredentialSource, V1TokenWithArgsEnvAndExecInfo) {
  TestFolder folder;
  const auto info = folder.file("info");
  const auto stdin_copy = folder.file("stdin");
  const auto plugin = folder.script(
      "plugin",
      "printf '%s' \"$KUBERNETES_EXEC_INFO\" > '" + info +
          "'\n"
          "cat > '" +
          stdin_copy +
          "'\n"  // stdin is /dev/null: this ends at once
          "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\","
          "\"status\":{\"token\":\"%s/%s/%s\"}}' \"$1\" \"$2\" \"$PLUGIN_MODE\"");
  auto settings = settings_for(plugin);
  settings.args = {"first arg", "$HOME"};  // no shell: passed as written
  settings.env = {{"PLUGIN_MODE", "ci"}};
  ExecCredentialSource source(settings);
  auto credentials = source.current();
  ASSERT_TRUE(credentials) << credentials.error().message;
  EXPECT_EQ(credentials.value().bearer_token, "first arg/$HOME/ci");
  EXPECT_FALSE(credentials.value().expires_at);
  EXPECT_EQ(nlohmann::json::parse(read_text(info)),
            (nlohmann::json{{"apiVersion", "client.authentication.k8s.io/v1"},
                            {"kind", "ExecCredential"},
                            {"spec", {{"interactive", false}}}}));
  EXPECT_EQ(read_text(stdin_copy), "");
  EXPECT_EQ(source.describe(), "the exec plugin " + plugin);
}

TEST(ExecCredentialSource, V1beta1ClientCertificate) {
  TestFolder folder;
  const nlohmann::json answer = {
      {"apiVersion", "client.authentication.k8s.io/v1beta1"},
      {"kind", "ExecCredential"},
      {"status", {{"clientCertificateData", kClientPem}, {"clientKeyData", kKeyPem}}}};
  folder.write("answer.json", answer.dump());
  const auto plugin = folder.script("plugin", "cat '" + folder.file("answer.json") + "'");
  ExecCredentialSource source(settings_for(plugin, "client.authentication.k8s.io/v1beta1"));
  auto credentials = source.current();
  ASSERT_TRUE(credentials) << credentials.error().message;
  EXPECT_TRUE(credentials.value().bearer_token.empty());
  EXPECT_EQ(credentials.value().client_certificate_pem, kClientPem);
  EXPECT_EQ(credentials.value().client_key_pem, kKeyPem);
}

TEST(ExecCredentialSource, CachedUntilShortlyBeforeExpiryOrInvalidate) {
  TestFolder folder;
  const auto expiry = std::chrono::system_clock::now() + 1h;
  ExecCredentialSource source(settings_for(counting_token_script(folder, rfc3339(expiry))));
  auto first = source.current();
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(first.value().bearer_token, "token-1");
  ASSERT_TRUE(first.value().expires_at);
  // Due 10 s before the plugin's expirationTimestamp (which has whole seconds).
  const auto due = *first.value().expires_at;
  EXPECT_LE(due, expiry - 9s);
  EXPECT_GE(due, expiry - 11s);
  EXPECT_EQ(source.current().value().bearer_token, "token-1");
  EXPECT_EQ(line_count(folder.file("runs")), 1u);
  source.invalidate();
  EXPECT_EQ(source.current().value().bearer_token, "token-2");
  EXPECT_EQ(line_count(folder.file("runs")), 2u);
}

TEST(ExecCredentialSource, RunsAgainOnceTheAnswerExpired) {
  TestFolder folder;
  const auto expired = std::chrono::system_clock::now() - 1min;
  ExecCredentialSource source(settings_for(counting_token_script(folder, rfc3339(expired))));
  EXPECT_EQ(source.current().value().bearer_token, "token-1");
  EXPECT_EQ(source.current().value().bearer_token, "token-2");
  EXPECT_EQ(line_count(folder.file("runs")), 2u);
}

TEST(ExecCredentialSource, WithoutExpiryTheAnswerIsKeptUntilInvalidate) {
  TestFolder folder;
  ExecCredentialSource source(settings_for(counting_token_script(folder)));
  EXPECT_EQ(source.current().value().bearer_token, "token-1");
  EXPECT_EQ(source.current().value().bearer_token, "token-1");
  source.invalidate();
  EXPECT_EQ(source.current().value().bearer_token, "token-2");
}

TEST(ExecCredentialSource, ConcurrentCallersShareOneRun) {
  TestFolder folder;
  const std::string runs = folder.file("runs");
  const auto plugin = folder.script(
      "slow", "echo run >> '" + runs +
                  "'\nsleep 0.5\n"
                  "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":"
                  "\"ExecCredential\",\"status\":{\"token\":\"shared\"}}'");
  ExecCredentialSource source(settings_for(plugin));
  std::atomic<int> shared{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 6; ++i) {
    threads.emplace_back([&] {
      auto credentials = source.current();
      if (credentials && credentials.value().bearer_token == "shared") ++shared;
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(shared.load(), 6);
  EXPECT_EQ(line_count(runs), 1u);
}

TEST(ExecCredentialSource, ConcurrentCallersShareOneFailure) {
  TestFolder folder;
  const std::string runs = folder.file("runs");
  const auto plugin = folder.script("fails", "echo run >> '" + runs + "'\nsleep 0.5\nexit 3");
  ExecCredentialSource source(settings_for(plugin));
  std::atomic<int> failed{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      if (!source.current()) ++failed;
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failed.load(), 4);
  EXPECT_EQ(line_count(runs), 1u);
  // A failure is not cached: the next caller runs the plugin again.
  EXPECT_FALSE(source.current());
  EXPECT_EQ(line_count(runs), 2u);
}

TEST(ExecCredentialSource, NonZeroExitQuotesStderr) {
  TestFolder folder;
  const auto plugin =
      folder.script("plugin",
                    "echo 'partial output'\necho 'error: the SSO session has expired' >&2\n"
                    "echo 'run: sso login' >&2\nexit 2");
  ExecCredentialSource source(settings_for(plugin));
  EXPECT_EQ(error_of(source),
            "The exec plugin " + plugin +
                " (users[0] (name \"u\") of the kubeconfig /k) exited "
                "with status 2: \"error: the SSO session has expired\\nrun: sso login\".");
}

TEST(ExecCredentialSource, LongStderrIsCut) {
  TestFolder folder;
  const auto plugin = folder.script(
      "plugin", "i=0; while [ $i -lt 2000 ]; do printf 'xxxxxxxxxx' >&2; i=$((i+1)); done; exit 1");
  ExecCredentialSource source(settings_for(plugin));
  const std::string message = error_of(source);
  EXPECT_EQ(message, "The exec plugin " + plugin +
                         " (users[0] (name \"u\") of the kubeconfig /k) "
                         "exited with status 1: \"" +
                         std::string(400, 'x') + "…\".");
}

bool process_is_gone(pid_t pid) {
  if (::kill(pid, 0) != 0) return errno == ESRCH;
  // A zombie (killed, not yet reaped by whoever adopted it) is gone too.
  const std::string stat = read_text("/proc/" + std::to_string(pid) + "/stat");
  const auto close_paren = stat.rfind(')');
  return close_paren != std::string::npos && stat.size() > close_paren + 2 &&
         stat[close_paren + 2] == 'Z';
}

TEST(ExecCredentialSource, AHangIsKilledWithItsProcessGroupAtTheDeadline) {
  TestFolder folder;
  const auto child_pid = folder.file("child.pid");
  const auto plugin = folder.script(
      "hang", "sleep 300 &\necho $! > '" + child_pid + "'\necho 'waiting for a browser' >&2\nwait");
  auto settings = settings_for(plugin);
  settings.timeout = 700ms;
  ExecCredentialSource source(settings);
  const auto started = std::chrono::steady_clock::now();
  const std::string message = error_of(source);
  const auto took = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(message,
            "The exec plugin " + plugin +
                " (users[0] (name \"u\") of the kubeconfig "
                "/k) did not finish within 700 ms and was stopped: \"waiting for a browser\".");
  EXPECT_GE(took, 700ms);
  EXPECT_LT(took, 5s);
  const std::string pid_text = read_text(child_pid);
  ASSERT_FALSE(pid_text.empty());
  const pid_t sleeper = static_cast<pid_t>(std::stol(pid_text));
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    gone = process_is_gone(sleeper);
    if (!gone) std::this_thread::sleep_for(20ms);
  }
  EXPECT_TRUE(gone) << "the plugin's child " << sleeper << " outlived the deadline";
}

TEST(ExecCredentialSource, MissingCommandShowsTheInstallHint) {
  auto settings = settings_for("vc-test-no-such-credential-plugin");
  settings.install_hint =
      "vc-test-no-such-credential-plugin is needed to reach this cluster.\n"
      "Install it from https://example.com/plugin.";
  ExecCredentialSource source(settings);
  EXPECT_EQ(error_of(source),
            "The exec plugin vc-test-no-such-credential-plugin (users[0] (name \"u\") of the "
            "kubeconfig /k) was not found on PATH; its install hint: "
            "vc-test-no-such-credential-plugin is needed to reach this cluster.\\nInstall it from "
            "https://example.com/plugin..");
  ExecCredentialSource no_hint(settings_for("/nonexistent/plugin"));
  EXPECT_EQ(error_of(no_hint),
            "The exec plugin /nonexistent/plugin (users[0] (name \"u\") of the kubeconfig /k) does "
            "not exist or is not executable; install it, or write its full path as the "
            "kubeconfig's exec command.");
}

TEST(ExecCredentialSource, BadAnswers) {
  TestFolder folder;
  const auto origin = " (users[0] (name \"u\") of the kubeconfig /k) ";
  const auto wrong_version =
      folder.script("wrong-version",
                    "echo '{\"apiVersion\":\"client.authentication.k8s.io/v1beta1\","
                    "\"kind\":\"ExecCredential\",\"status\":{\"token\":\"t\"}}'");
  ExecCredentialSource version_source(settings_for(wrong_version));
  EXPECT_EQ(error_of(version_source),
            "The exec plugin " + wrong_version + origin +
                "printed an ExecCredential of apiVersion "
                "\"client.authentication.k8s.io/v1beta1\" while the kubeconfig asks for "
                "client.authentication.k8s.io/v1.");
  const auto not_json = folder.script("not-json", "echo 'Please log in'");
  ExecCredentialSource json_source(settings_for(not_json));
  EXPECT_EQ(error_of(json_source), "The exec plugin " + not_json + origin +
                                       "printed something other than a JSON object: "
                                       "\"Please log in\\n\".");
  const auto silent = folder.script("silent", "exit 0");
  ExecCredentialSource silent_source(settings_for(silent));
  EXPECT_EQ(error_of(silent_source),
            "The exec plugin " + silent + origin + "printed nothing on its standard output.");
  const auto flood = folder.script("flood", "head -c 3000000 /dev/zero");
  ExecCredentialSource flood_source(settings_for(flood));
  EXPECT_EQ(error_of(flood_source),
            "The exec plugin " + flood + origin + "printed more than 1 MiB and was stopped.");
}

TEST(ExecCredentialSource, KilledBySignal) {
  TestFolder folder;
  const auto plugin = folder.script("plugin", "echo 'dying' >&2\nkill -TERM $$");
  ExecCredentialSource source(settings_for(plugin));
  EXPECT_EQ(error_of(source), "The exec plugin " + plugin +
                                  " (users[0] (name \"u\") of the "
                                  "kubeconfig /k) was killed by signal 15: \"dying\".");
}

}  // namespace
}  // namespace vc::kubernetes
