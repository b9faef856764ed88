// process_http_host.h — the HTTP host of these tests: the process backend, with its
// computers in the host's scratch directory. The product's binary unless told otherwise
// (VC_CONFORMANCE_HOST_BINARY: the test host that also serves the conformance fixtures).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "http_host.h"

namespace vc::http_test {

using test::HttpReply;
using test::Json;
using test::initialize_request;
using test::request;
using namespace std::chrono_literals;

class HttpHost : public test::HttpHost {
 public:
  explicit HttpHost(std::vector<std::string> extra_args = {},
                    test::Environment environment = {}, std::string binary = VC_HOST_BINARY)
      : test::HttpHost(
            options(std::move(extra_args), std::move(environment), std::move(binary))) {}

 private:
  static test::HttpHostOptions options(std::vector<std::string> extra_args,
                                       test::Environment environment, std::string binary) {
    test::HttpHostOptions options;
    options.binary = std::move(binary);
    options.args = {"--backend", "process", "--state-dir", "@SCRATCH@", "--scratch-root",
                    "@SCRATCH@"};
    options.args.insert(options.args.end(), extra_args.begin(), extra_args.end());
    options.environment = std::move(environment);
    return options;
  }
};

}  // namespace vc::http_test
