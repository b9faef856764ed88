// plugin_load_checks.cpp — see plugin_load_checks.h. The stages are the loader's own
// (plugin_loader/plugin_module.cpp), run one by one so that the report says which one refused.
#include "operator/plugin_load_checks.h"

#include <algorithm>
#include <cstdio>
#include <regex>
#include <string>
#include <system_error>

#include "plugin_loader/elf_exports.h"
#include "plugin_loader/plugin_capabilities.h"
#include "plugin_loader/plugin_file_check.h"

namespace vc::operator_cli {
namespace {

namespace fs = std::filesystem;

// Every bit vc_backend.h of this host defines.
constexpr vc_caps kKnownCapabilities = (VC_CAP_IMAGES << 1) - 1;

std::string joined(const std::vector<std::string>& words, const char* separator) {
  std::string text;
  for (const auto& word : words) text += (text.empty() ? "" : separator) + word;
  return text;
}

bool is_reverse_dns(const std::string& id) {
  static const std::regex pattern("^[A-Za-z0-9-]+(\\.[A-Za-z0-9_-]+)+$");
  return std::regex_match(id, pattern);
}

bool is_semver(const std::string& version) {
  static const std::regex pattern(
      "^(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)\\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\\+[0-9A-Za-z.-]+)?$");
  return std::regex_match(version, pattern);
}

}  // namespace

std::shared_ptr<plugins::PluginModule> load_plugin_with_checks(const fs::path& file,
                                                               PluginCheckReport& report) {
  std::error_code error;
  fs::path path = fs::absolute(file, error).lexically_normal();
  if (error) path = file;

  if (auto refusal = plugins::check_plugin_file(path)) {
    report.fail("load.file", refusal->message);
    return nullptr;
  }
  report.pass("load.file");

  auto exports = plugins::read_shared_object_exports(path);
  if (!exports) {
    report.fail("load.elf", exports.error().message);
    return nullptr;
  }
  const auto& entries = exports.value().entry_symbols;
  if (exports.value().symbol_table_read &&
      std::find(entries.begin(), entries.end(), VC_ENTRY_SYMBOL) == entries.end()) {
    std::string reason = std::string("it does not export ") + VC_ENTRY_SYMBOL;
    if (!entries.empty()) reason += " (it exports " + joined(entries, ", ") + ")";
    report.fail("load.elf", reason + "; is it a backend plugin built with the SDK?");
    return nullptr;
  }
  report.pass("load.elf", exports.value().symbol_table_read
                              ? std::string("exports ") + VC_ENTRY_SYMBOL
                              : "no section headers: the entry is looked up after dlopen");

  auto module = plugins::load_plugin_file(path);
  if (!module) {
    report.fail("load.module", module.error().message);
    return nullptr;
  }
  report.pass("load.module", "dlopen, entry function and descriptor accepted");
  return std::move(module).value();
}

void check_descriptor_fields(const plugins::PluginInfo& info, PluginCheckReport& report) {
  if (!is_reverse_dns(info.id)) {
    report.fail("descriptor.identity",
                "id '" + info.id + "' is not reverse-DNS (e.g. \"org.example." + info.name + "\")");
  } else if (info.description.empty()) {
    report.fail("descriptor.identity",
                "description is empty: `plugins` and --help show it as the backend's summary");
  } else if (info.vendor.empty()) {
    report.fail("descriptor.identity", "vendor is empty");
  } else {
    report.pass("descriptor.identity", info.id + " (" + info.name + ")");
  }

  if (is_semver(info.version)) {
    report.pass("descriptor.version", info.version);
  } else {
    report.fail("descriptor.version", "version '" + info.version + "' is not semver (MAJOR.MINOR.PATCH)");
  }

  report.pass("descriptor.abi",
              "built for " + std::to_string(info.abi_major) + "." + std::to_string(info.abi_minor));

  const vc_caps unknown = info.capabilities & ~kKnownCapabilities;
  const std::string names = joined(plugins::capability_names(info.capabilities), ", ");
  if (unknown != 0) {
    report.fail("descriptor.capabilities",
                "bits this ABI does not define are set (0x" +
                    [&] {
                      char hex[32];
                      std::snprintf(hex, sizeof hex, "%llx", static_cast<unsigned long long>(unknown));
                      return std::string(hex);
                    }() +
                    ")");
  } else {
    report.pass("descriptor.capabilities", names.empty() ? "none" : names);
  }

  const std::string expected = "vc-backend-" + info.name + ".so";
  if (info.path.filename() == expected) {
    report.pass("descriptor.file-name", expected);
  } else {
    // Loading by path (--backend ./file.so) does not need the name: only the search does.
    report.skip("descriptor.file-name",
                "the file is " + info.path.filename().string() + ", so --backend " + info.name +
                    " will not find it on the plugin search path (it looks for " + expected +
                    "); load it by path, or rename it");
  }
}

}  // namespace vc::operator_cli
