// plugin_fixture.h — a test fixture that creates one backend of a plugin in a temporary
// directory and runs its operations through the C ABI, as the host would.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "fake_host.h"

namespace vc_test {

class PluginFixture : public ::testing::Test {
 protected:
  // Creates the backend; the host's state directory is <dir>/state. `config` may name <dir>.
  void open(const PluginModule& module,
            const std::function<nlohmann::json(const std::filesystem::path&)>& config) {
    char pattern[] = "/tmp/vc-plugin-test-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    dir_ = pattern;
    std::filesystem::create_directory(dir_ / "state");  // the host creates it, as here
    host_ = std::make_unique<FakeHost>((dir_ / "state").string());
    std::string text = config(dir_).dump();
    char errbuf[256] = "";
    ASSERT_EQ(module.descriptor()->create_backend(host_->services(), text.data(), text.size(),
                                                  &backend_, errbuf, sizeof errbuf),
              VC_OK)
        << errbuf;
  }

  void TearDown() override {
    if (backend_ != nullptr) backend_->ops->destroy(backend_);
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }

  std::unique_ptr<FakeOp> start(vc_async_op_fn fn, const nlohmann::json& request) {
    auto op = std::make_unique<FakeOp>();
    std::string text = request.dump();
    EXPECT_EQ(fn(backend_, text.data(), text.size(), op->get()), VC_OK) << request;
    return op;
  }
  std::unique_ptr<FakeOp> run(vc_async_op_fn fn, const nlohmann::json& request) {
    auto op = start(fn, request);
    EXPECT_TRUE(op->wait()) << "no completion for " << request;
    return op;
  }
  // The op's emit keeps the request's output_limit as the host does.
  std::unique_ptr<FakeOp> start_exec(const nlohmann::json& request, const std::string& input = {}) {
    auto op = std::make_unique<FakeOp>();
    op->truncate_after = request.value("output_limit", uint64_t{0});
    std::string text = request.dump();
    EXPECT_EQ(backend_->ops->exec(backend_, text.data(), text.size(),
                                  reinterpret_cast<const uint8_t*>(input.data()), input.size(),
                                  op->get()),
              VC_OK)
        << request;
    return op;
  }
  std::unique_ptr<FakeOp> exec(const nlohmann::json& request, const std::string& input = {}) {
    auto op = start_exec(request, input);
    EXPECT_TRUE(op->wait()) << "no completion for " << request;
    return op;
  }
  // A command string on computer "box".
  static nlohmann::json shell(const std::string& command, int64_t timeout_ms = 10000,
                              uint64_t output_limit = 0) {
    return {{"computer_id", "box"}, {"command", command}, {"shell", "/bin/sh"},
            {"timeout_ms", timeout_ms}, {"output_limit", output_limit}};
  }

  std::filesystem::path dir_;
  std::unique_ptr<FakeHost> host_;
  vc_backend* backend_ = nullptr;
};

}  // namespace vc_test
