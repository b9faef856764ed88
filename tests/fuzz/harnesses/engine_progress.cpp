// engine_progress — the NDJSON an image pull (POST /images/create) or a build (POST /build)
// streams: split into lines as the client does, each line fed to the pull and the build
// progress readers. Their events must stay well-formed, their progress must never go back, and
// nothing may throw, whatever the lines say.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "build_progress.h"
#include "pull_progress.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  vc::container::PullProgress pull("fuzz:latest");
  vc::container::BuildProgress build("fuzz:latest");
  double last_pull = 0;
  double last_build = 0;
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    if (pull.feed(line)) {
      const double progress = pull.event().at("progress").get<double>();
      if (progress < last_pull) __builtin_trap();
      last_pull = progress;
    }
    if (build.feed(line)) {
      const double progress = build.event().at("progress").get<double>();
      if (progress < last_build) __builtin_trap();
      last_build = progress;
    }
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  (void)pull.event().dump();
  (void)build.event().dump();
  (void)build.tail();
  return 0;
}
