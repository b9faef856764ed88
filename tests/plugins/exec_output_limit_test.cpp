// exec_output_limit_test.cpp — the output limit of a command, end to end through the real
// plugin backend: the computers room's exec keeps what the proxy delivers, and the proxy is the
// one place the limit is enforced (the cut, and the outcome), whatever the plugin reports.
#include <gtest/gtest.h>

#include <optional>

#include "backend_proxy/backend.h"
#include "computers/exec_operation.h"
#include "plugin_test_support.h"

namespace vc::plugins {
namespace {

using computers::ExecOutcome;
using computers::ExecRequest;
using computers::ExecResult;
using testing::LogCapture;
using testing::ScratchDir;
using testing::test_backend;

// What the conformance plugin's "overrun" command emits before saying it exited 0.
constexpr uint64_t kOverrunBytes = 4 * 64 * 1024;

class ExecOutputLimitTest : public testing::LoopTest {
 protected:
  void SetUp() override {
    LoopTest::SetUp();
    auto module = PluginModule::load(test_backend("conformance"));
    ASSERT_TRUE(module.ok()) << module.error().message;
    auto backend =
        backend_proxy::Backend::create(loop(), module.value(), Json::object(), scratch_.path());
    ASSERT_TRUE(backend.ok()) << backend.error().message;
    backend_ = backend.value();
  }

  void TearDown() override {
    if (backend_) {
      bool done = false;
      backend_->shutdown(60000, [&done] { done = true; });
      EXPECT_TRUE(run_until([&] { return done; }));
      handle_.reset();
      backend_.reset();
    }
    LoopTest::TearDown();
  }

  Expected<ExecResult> run_overrun(uint64_t output_limit) {
    ExecRequest request;
    request.command = "overrun";
    request.output_limit = output_limit;
    computers::ComputerInfo computer;
    computer.computer_id = "limit-test";
    std::optional<Expected<ExecResult>> outcome;
    handle_ = computers::run_exec_operation(*backend_, computer, "/bin/sh", request,
                                            [&outcome](Expected<ExecResult> result) {
                                              outcome = std::move(result);
                                            });
    EXPECT_TRUE(run_until([&] { return outcome.has_value(); })) << "exec never completed";
    return outcome.value_or(Failure{VC_E_FAILED, "no outcome"});
  }

  ScratchDir scratch_;
  std::shared_ptr<backend_proxy::Backend> backend_;
  CancelHandle handle_;
};

TEST_F(ExecOutputLimitTest, APluginThatRunsPastTheLimitStillReportsIt) {
  LogCapture::clear();
  const uint64_t limit = 100000;
  auto result = run_overrun(limit);
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result.value().outcome, ExecOutcome::output_limit_exceeded)
      << "the plugin said it exited, but its output was cut";
  ASSERT_EQ(result.value().stdout_bytes.size(), limit) << "exactly the first `limit` bytes";
  EXPECT_EQ(result.value().stdout_bytes.front(), '\0');
  EXPECT_EQ(result.value().stdout_bytes.back(), '\1') << "byte 99999 lies in the second chunk";
  EXPECT_TRUE(result.value().stderr_bytes.empty());
  EXPECT_TRUE(LogCapture::contains("plugin misbehaving: the conformance backend's exec said "
                                   "\"exited\" although its output was cut"))
      << LogCapture::all();
}

TEST_F(ExecOutputLimitTest, OutputWithinTheLimitIsKeptWhole) {
  LogCapture::clear();
  auto result = run_overrun(kOverrunBytes);  // exactly at the limit is not over it
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result.value().outcome, ExecOutcome::exited);
  EXPECT_EQ(result.value().stdout_bytes.size(), kOverrunBytes);
  EXPECT_EQ(result.value().stdout_bytes.back(), '\3');
  EXPECT_FALSE(LogCapture::contains("plugin misbehaving")) << LogCapture::all();
}

TEST_F(ExecOutputLimitTest, ALimitOfZeroMeansNone) {
  auto result = run_overrun(0);
  ASSERT_TRUE(result.ok()) << result.error().message;
  EXPECT_EQ(result.value().outcome, ExecOutcome::exited);
  EXPECT_EQ(result.value().stdout_bytes.size(), kOverrunBytes);
}

}  // namespace
}  // namespace vc::plugins
