// plugin_check_report.h — the result of `validate-plugin`: one line per check, pass, fail or
// skip, with the reason; printed for people or as one JSON document for scripts.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include "common/json.h"

namespace vc::operator_cli {

enum class CheckStatus { pass, fail, skip };

struct CheckResult {
  std::string name;    // dotted and stable, e.g. "exec.exit-code": scripts and tests match it
  CheckStatus status = CheckStatus::pass;
  std::string detail;  // the reason of a failure or skip; a short note on a pass
};

// Collects the checks in the order they ran. [loop-thread] (single-threaded use)
class PluginCheckReport {
 public:
  void pass(std::string name, std::string note = {});
  void fail(std::string name, std::string reason);
  void skip(std::string name, std::string reason);

  const std::vector<CheckResult>& checks() const { return checks_; }
  size_t count(CheckStatus status) const;
  bool all_passed() const { return count(CheckStatus::fail) == 0; }

  // "PASS  load.file" lines, then a summary line. `subject` names the plugin file.
  void print_text(std::ostream& out, const std::string& subject) const;
  // {"plugin": subject, "passed": bool, "checks": [{"name","status","detail"}...],
  //  "counts": {"pass","fail","skip"}}
  Json to_json(const std::string& subject) const;

 private:
  std::vector<CheckResult> checks_;
};

const char* check_status_name(CheckStatus status);  // "pass", "fail", "skip"

}  // namespace vc::operator_cli
