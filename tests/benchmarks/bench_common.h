// bench_common.h — what every engine's rows of the exec benchmark share: the settings, a row's
// samples and its quantiles, the clock, and the Markdown table lines.
//
// Single-threaded: the driver measures one thing at a time.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

namespace vc::bench {

using Clock = std::chrono::steady_clock;

struct Settings {
  std::string host_binary;
  std::string plugin_dir;
  std::string engine = "docker";
  int runs = 30;
  int create_runs = 0;  // 0: the engine's default (create_runs_or_default)
  std::string image = "debian:bookworm-slim";
  std::string kubeconfig;  // Kubernetes only
  std::string kubectl;     // Kubernetes only: the kubectl the rows compare with

  // Creating takes seconds on Kubernetes (a claim, a pod, an init container), a fraction of
  // that on the container engines.
  int create_runs_or_default() const {
    if (create_runs > 0) return create_runs;
    return engine == "kubernetes" ? 5 : 8;
  }
};

struct Samples {
  std::string name;
  std::vector<double> ms;

  double quantile(double q) const {
    std::vector<double> sorted = ms;
    std::sort(sorted.begin(), sorted.end());
    if (sorted.empty()) return 0;
    const double position = q * static_cast<double>(sorted.size() - 1);
    const auto low = static_cast<size_t>(position);
    const size_t high = std::min(low + 1, sorted.size() - 1);
    const double fraction = position - static_cast<double>(low);
    return sorted[low] * (1 - fraction) + sorted[high] * fraction;
  }
  double median() const { return quantile(0.5); }
  double min() const { return ms.empty() ? 0 : *std::min_element(ms.begin(), ms.end()); }
};

inline double elapsed_ms(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

[[noreturn]] inline void die(const std::string& message) {
  std::cerr << "vc_exec_benchmark: " << message << '\n';
  std::exit(1);
}

inline void print_row(const Samples& samples) {
  std::printf("| %s | %zu | %.1f | %.1f | %.1f |\n", samples.name.c_str(), samples.ms.size(),
              samples.median(), samples.min(), samples.quantile(0.9));
}

inline void print_ratio(const std::string& label, const Samples& ours, const Samples& cli) {
  std::printf("| **%s** | | **%.3f** | | |\n", label.c_str(), ours.median() / cli.median());
}

}  // namespace vc::bench
