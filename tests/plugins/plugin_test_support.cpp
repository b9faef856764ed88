#include "plugin_test_support.h"

#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <mutex>
#include <random>
#include <thread>

namespace vc::plugins::testing {

fs::path test_backend_dir() { return VC_TEST_BACKEND_DIR; }

fs::path test_backend(const std::string& name) {
  return test_backend_dir() / ("vc-backend-" + name + ".so");
}

fs::path relocatable_object() { return VC_TEST_RELOCATABLE_OBJECT; }

// ---- ScratchDir -------------------------------------------------------------------------------

ScratchDir::ScratchDir() {
  std::random_device seed;
  const fs::path base = fs::temp_directory_path();
  for (;;) {
    path_ = base / ("vc-plugins-test-" + std::to_string(seed()));
    if (fs::create_directory(path_)) break;
  }
}

ScratchDir::~ScratchDir() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

fs::path ScratchDir::subdir(const std::string& name) const {
  fs::path dir = path_ / name;
  fs::create_directories(dir);
  return dir;
}

fs::path ScratchDir::copy_as(const fs::path& file, const fs::path& dir, const std::string& name) {
  const fs::path target = dir / name;
  fs::copy_file(file, target, fs::copy_options::overwrite_existing);
  fs::permissions(target, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec);
  return target;
}

// ---- LogCapture -------------------------------------------------------------------------------

namespace {

class CaptureSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  std::string text() {
    std::lock_guard lock(mutex_);
    return text_;
  }
  void clear() {
    std::lock_guard lock(mutex_);
    text_.clear();
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    text_.append(msg.logger_name.data(), msg.logger_name.size());
    text_ += ": ";
    text_.append(msg.payload.data(), msg.payload.size());
    text_ += "\n";
  }
  void flush_() override {}

 private:
  std::string text_;
};

std::shared_ptr<CaptureSink>& capture_sink() {
  static auto sink = std::make_shared<CaptureSink>();
  return sink;
}

}  // namespace

void LogCapture::install() {
  auto console = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  console->set_level(spdlog::level::warn);
  auto logger =
      std::make_shared<spdlog::logger>("host", spdlog::sinks_init_list{console, capture_sink()});
  logger->set_level(spdlog::level::trace);
  spdlog::set_default_logger(logger);
}

void LogCapture::clear() { capture_sink()->clear(); }

bool LogCapture::contains(const std::string& text) {
  return capture_sink()->text().find(text) != std::string::npos;
}

std::string LogCapture::all() { return capture_sink()->text(); }

// ---- ScopedEnv --------------------------------------------------------------------------------

ScopedEnv::ScopedEnv(const char* name, const char* value) : name_(name) {
  if (const char* old = std::getenv(name)) previous_ = old;
  if (value != nullptr)
    ::setenv(name, value, 1);
  else
    ::unsetenv(name);
}

ScopedEnv::~ScopedEnv() {
  if (previous_)
    ::setenv(name_.c_str(), previous_->c_str(), 1);
  else
    ::unsetenv(name_.c_str());
}

// ---- LoopTest ---------------------------------------------------------------------------------

void LoopTest::SetUp() {
  ASSERT_EQ(uv_loop_init(&loop_), 0);
  LogCapture::clear();
}

void LoopTest::TearDown() {
  for (int turn = 0; turn < 10000; ++turn) {
    uv_run(&loop_, UV_RUN_NOWAIT);
    if (uv_loop_close(&loop_) == 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ADD_FAILURE() << "the loop still has open handles after the test";
}

bool LoopTest::run_until(const std::function<bool()>& done, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    uv_run(&loop_, UV_RUN_NOWAIT);
    if (!done()) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  return true;
}

void LoopTest::run_turns(int turns) {
  for (int turn = 0; turn < turns; ++turn) {
    uv_run(&loop_, UV_RUN_NOWAIT);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// ---- OpTrace ----------------------------------------------------------------------------------

backend_proxy::OpCallbacks OpTrace::record(const std::shared_ptr<OpTrace>& trace, uint64_t output_limit) {
  backend_proxy::OpCallbacks callbacks;
  callbacks.output_limit = output_limit;
  callbacks.on_emit = [trace](vc_stream stream, std::string_view bytes) {
    const char* name = stream == VC_STREAM_STDOUT   ? "stdout"
                       : stream == VC_STREAM_STDERR ? "stderr"
                                                    : "progress";
    trace->events.push_back(std::string(name) + ":" + std::string(bytes));
    if (stream == VC_STREAM_STDOUT) trace->out.append(bytes);
    if (stream == VC_STREAM_STDERR) trace->err.append(bytes);
  };
  callbacks.on_complete = [trace](Expected<Json> result) {
    trace->events.emplace_back("complete");
    trace->result.emplace(std::move(result));
    ++trace->completions;
  };
  return callbacks;
}

}  // namespace vc::plugins::testing
