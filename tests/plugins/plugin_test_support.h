// plugin_test_support.h — paths of the test plugins, scratch directories, a uv loop to run, a
// capture of every log line, and a recorder of what one operation reported.
#pragma once

#include <gtest/gtest.h>
#include <uv.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/json.h"
#include "backend_proxy/backend.h"

namespace vc::plugins::testing {

namespace fs = std::filesystem;

// The directory the test plugins are built into, and one of them by backend name.
fs::path test_backend_dir();
fs::path test_backend(const std::string& name);
// An ELF relocatable object file (not a shared object).
fs::path relocatable_object();

// A fresh directory, removed with its contents at the end of the test.
class ScratchDir {
 public:
  ScratchDir();
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  const fs::path& path() const { return path_; }
  // Creates (if needed) and returns the subdirectory `name`.
  fs::path subdir(const std::string& name) const;
  // Copies `file` into `dir` as `name`; returns the new path.
  static fs::path copy_as(const fs::path& file, const fs::path& dir, const std::string& name);

 private:
  fs::path path_;
};

// Every log line of the process, formatted "<logger>: <message>". Installed by main() on the
// default logger before any backend logger exists, so backend loggers inherit it.
class LogCapture {
 public:
  static void install();
  static void clear();
  static bool contains(const std::string& text);
  static std::string all();
};

// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> previous_;
};

// A test owning a uv loop. TearDown runs the loop until every handle is closed and checks that
// the loop can be closed: nothing may be left behind.
class LoopTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
  uv_loop_t* loop() { return &loop_; }

  // Runs the loop until `done` is true or `timeout` passed (a bound, not a timing assertion).
  bool run_until(const std::function<bool()>& done,
                 std::chrono::milliseconds timeout = std::chrono::seconds(60));
  // Runs `turns` non-blocking loop iterations, sleeping a little between them.
  void run_turns(int turns);

 private:
  uv_loop_t loop_{};
};

// What one operation reported, in order.
struct OpTrace {
  std::vector<std::string> events;  // "stdout:<bytes>", "stderr:...", "progress:...", "complete"
  std::string out;                  // all stdout bytes
  std::string err;                  // all stderr bytes
  std::optional<Expected<Json>> result;
  int completions = 0;

  bool done() const { return completions > 0; }
  const Json& value() const { return result->value(); }
  const Failure& failure() const { return result->error(); }

  // Callbacks that record into `trace`.
  static backend_proxy::OpCallbacks record(const std::shared_ptr<OpTrace>& trace, uint64_t output_limit = 0);
};

}  // namespace vc::plugins::testing
