// plugin_check_report.cpp — see plugin_check_report.h.
#include "operator/plugin_check_report.h"

#include <algorithm>
#include <ostream>
#include <utility>

namespace vc::operator_cli {

const char* check_status_name(CheckStatus status) {
  switch (status) {
    case CheckStatus::pass: return "pass";
    case CheckStatus::fail: return "fail";
    case CheckStatus::skip: return "skip";
  }
  return "fail";
}

void PluginCheckReport::pass(std::string name, std::string note) {
  checks_.push_back({std::move(name), CheckStatus::pass, std::move(note)});
}

void PluginCheckReport::fail(std::string name, std::string reason) {
  checks_.push_back({std::move(name), CheckStatus::fail, std::move(reason)});
}

void PluginCheckReport::skip(std::string name, std::string reason) {
  checks_.push_back({std::move(name), CheckStatus::skip, std::move(reason)});
}

size_t PluginCheckReport::count(CheckStatus status) const {
  return static_cast<size_t>(std::count_if(checks_.begin(), checks_.end(),
                                           [status](const CheckResult& check) {
                                             return check.status == status;
                                           }));
}

void PluginCheckReport::print_text(std::ostream& out, const std::string& subject) const {
  out << "Validating " << subject << "\n";
  size_t width = 0;
  for (const auto& check : checks_) width = std::max(width, check.name.size());
  for (const auto& check : checks_) {
    const char* label = check.status == CheckStatus::pass   ? "PASS"
                        : check.status == CheckStatus::fail ? "FAIL"
                                                            : "SKIP";
    out << label << "  " << check.name;
    if (!check.detail.empty()) {
      out << std::string(width - check.name.size() + 2, ' ') << check.detail;
    }
    out << "\n";
  }
  out << count(CheckStatus::pass) << " passed, " << count(CheckStatus::fail) << " failed, "
      << count(CheckStatus::skip) << " skipped: "
      << (all_passed() ? "the plugin passed validation." : "the plugin FAILED validation.")
      << std::endl;
}

Json PluginCheckReport::to_json(const std::string& subject) const {
  Json checks = Json::array();
  for (const auto& check : checks_) {
    checks.push_back(
        {{"name", check.name}, {"status", check_status_name(check.status)}, {"detail", check.detail}});
  }
  return Json{{"plugin", subject},
              {"passed", all_passed()},
              {"checks", std::move(checks)},
              {"counts",
               {{"pass", count(CheckStatus::pass)},
                {"fail", count(CheckStatus::fail)},
                {"skip", count(CheckStatus::skip)}}}};
}

}  // namespace vc::operator_cli
