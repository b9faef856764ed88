#include "plugin_loader/descriptor_check.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>

#include "common/ascii_text.h"
#include "plugin_loader/versioned_struct.h"

namespace vc::plugins {

namespace {

// Strings from a plugin are read up to this length; longer ones are cut, not trusted.
constexpr size_t kMaxPluginString = 64 * 1024;

constexpr size_t kOptionDeclMinSize = offsetof(vc_option_decl, help);  // type and name

std::string copy_plugin_string(const char* text) {
  if (text == nullptr) return {};
  return std::string(text, ::strnlen(text, kMaxPluginString));
}

std::optional<std::string> copy_optional_plugin_string(const char* text) {
  if (text == nullptr) return std::nullopt;
  return copy_plugin_string(text);
}

std::string hex32(uint32_t value) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%08" PRIx32, value);
  return text;
}

// [a-z0-9-]+, starting with a letter or digit: usable as "--<name>" and in file names.
bool is_valid_name(std::string_view name) {
  if (name.empty() || name.size() > 64 || name.front() == '-') return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

// An id is printed in listings and names a logger: printable ASCII, no spaces.
bool is_valid_id(std::string_view id) {
  if (id.empty() || id.size() > 256) return false;
  return std::all_of(id.begin(), id.end(), [](char c) { return c > ' ' && c < 0x7f; });
}

Failure refuse(int32_t status, std::string reason) { return Failure{status, std::move(reason)}; }

Failure descriptor_too_small(uint32_t struct_size) {
  return refuse(VC_E_INCOMPATIBLE, "its descriptor is too small (struct_size " +
                                       std::to_string(struct_size) +
                                       "; a backend ABI 1.0 descriptor has " +
                                       std::to_string(kDescriptorSize_1_0) + " bytes)");
}

std::optional<Failure> check_versions(const vc_plugin_descriptor& d, uint32_t host_minor) {
  if (d.struct_size < offsetof(vc_plugin_descriptor, abi_minor)) {
    return descriptor_too_small(d.struct_size);
  }
  if (d.magic != VC_DESCRIPTOR_MAGIC) {
    return refuse(VC_E_INCOMPATIBLE, "wrong magic in its descriptor (expected " +
                                         hex32(VC_DESCRIPTOR_MAGIC) + ", found " + hex32(d.magic) +
                                         ")");
  }
  if (d.abi_major != VC_ABI_MAJOR) {
    return refuse(VC_E_INCOMPATIBLE, "built for backend ABI " + std::to_string(d.abi_major) +
                                         ", this host speaks ABI " + std::to_string(VC_ABI_MAJOR));
  }
  if (d.struct_size < kDescriptorSize_1_0) return descriptor_too_small(d.struct_size);
  if (d.min_host_abi_minor > host_minor) {
    return refuse(VC_E_INCOMPATIBLE, "needs host ABI " + std::to_string(VC_ABI_MAJOR) + "." +
                                         std::to_string(d.min_host_abi_minor) +
                                         " or newer; this host is " + std::to_string(VC_ABI_MAJOR) +
                                         "." + std::to_string(host_minor) +
                                         " \u2014 upgrade mcp-virtual-computer");
  }
  return std::nullopt;
}

std::optional<Failure> check_identity(const vc_plugin_descriptor& d) {
  if (d.id == nullptr) return refuse(VC_E_FAILED, "its descriptor has no id");
  if (d.name == nullptr) return refuse(VC_E_FAILED, "its descriptor has no name");
  if (d.create_backend == nullptr) {
    return refuse(VC_E_FAILED, "its descriptor has no create_backend function");
  }
  const std::string id = copy_plugin_string(d.id);
  if (!is_valid_id(id)) {
    return refuse(VC_E_FAILED, "its id '" + id +
                                   "' is invalid (use a reverse-DNS name such as "
                                   "org.example.docker)");
  }
  const std::string name = copy_plugin_string(d.name);
  if (!is_valid_name(name)) {
    return refuse(VC_E_FAILED, "its backend name '" + name +
                                   "' is invalid (use lowercase letters, digits and '-')");
  }
  return std::nullopt;
}

bool is_known_option_type(vc_option_type type) {
  return type >= VC_OPTION_STRING && type <= VC_OPTION_STRING_LIST;
}

bool is_bool_text(std::string_view text) {
  const std::string word = ascii_lower(text);
  for (std::string_view known : {"true", "false", "1", "0", "yes", "no", "on", "off"}) {
    if (word == known) return true;
  }
  return false;
}

template <class Number>
bool parses_completely(std::string_view text) {
  Number value{};
  const char* end = text.data() + text.size();
  const auto [stop, error] = std::from_chars(text.data(), end, value);
  if constexpr (std::is_floating_point_v<Number>) {
    if (!std::isfinite(value)) return false;
  }
  return error == std::errc() && stop == end && !text.empty();
}

// Empty when `default_value` can be parsed as an option of `type`; else the type's noun.
std::optional<std::string> default_type_mismatch(vc_option_type type,
                                                 std::string_view default_value) {
  switch (type) {
    case VC_OPTION_INTEGER:
      if (!parses_completely<int64_t>(default_value)) return "an integer";
      break;
    case VC_OPTION_NUMBER:
      if (!parses_completely<double>(default_value)) return "a number";
      break;
    case VC_OPTION_BOOL:
      if (!is_bool_text(default_value)) return "a boolean (true or false)";
      break;
    default: break;
  }
  return std::nullopt;
}

vc_option_decl normalise_option(const vc_option_decl* raw) {
  vc_option_decl decl{};
  copy_versioned(&decl, raw);
  return decl;
}

Expected<OptionDecl> check_option(const vc_option_decl* raw, size_t position) {
  const std::string where = "option #" + std::to_string(position + 1);
  if (raw->struct_size < kOptionDeclMinSize) {
    return refuse(VC_E_INCOMPATIBLE,
                  where + " is too small (struct_size " + std::to_string(raw->struct_size) + ")");
  }
  const vc_option_decl decl = normalise_option(raw);
  if (decl.name == nullptr) return refuse(VC_E_FAILED, where + " has no name");

  OptionDecl option;
  option.type = decl.type;
  option.name = copy_plugin_string(decl.name);
  option.help = copy_plugin_string(decl.help);
  option.default_value = copy_optional_plugin_string(decl.default_value);
  option.env_var = copy_optional_plugin_string(decl.env_var);
  if (option.env_var && option.env_var->empty()) option.env_var.reset();

  const std::string named = "option '" + option.name + "'";
  if (!is_valid_name(option.name)) {
    return refuse(VC_E_FAILED, where + " ('" + option.name +
                                   "') has an invalid name (use lowercase letters, digits "
                                   "and '-')");
  }
  if (!is_known_option_type(option.type)) {
    return refuse(VC_E_FAILED, named + " has unknown type " + std::to_string(option.type));
  }
  if (option.default_value) {
    if (auto expected = default_type_mismatch(option.type, *option.default_value)) {
      return refuse(VC_E_FAILED, named + " has default '" + *option.default_value +
                                     "', which is not " + *expected);
    }
  }
  return option;
}

Expected<std::vector<OptionDecl>> check_options(const vc_option_decl* const* decls) {
  std::vector<OptionDecl> options;
  if (decls == nullptr) return options;
  std::set<std::string> seen;
  for (size_t i = 0; decls[i] != nullptr; ++i) {
    if (i == kMaxOptionDecls) {
      return refuse(VC_E_FAILED, "it declares more than " + std::to_string(kMaxOptionDecls) +
                                     " options (is the list NULL-terminated?)");
    }
    auto option = check_option(decls[i], i);
    if (!option) return option.error();
    if (!seen.insert(option.value().name).second) {
      return refuse(VC_E_FAILED, "option '" + option.value().name + "' is declared twice");
    }
    options.push_back(std::move(option).value());
  }
  return options;
}

PluginInfo copy_info(const vc_plugin_descriptor& d, const std::filesystem::path& path) {
  PluginInfo info;
  info.id = copy_plugin_string(d.id);
  info.name = copy_plugin_string(d.name);
  info.version = copy_plugin_string(d.version);
  info.vendor = copy_plugin_string(d.vendor);
  info.description = copy_plugin_string(d.description);
  info.abi_major = d.abi_major;
  info.abi_minor = d.abi_minor;
  info.capabilities = d.capabilities;
  info.path = path;
  return info;
}

}  // namespace

Expected<CheckedDescriptor> check_descriptor(const vc_plugin_descriptor* raw,
                                             const std::filesystem::path& path,
                                             uint32_t host_abi_minor) {
  CheckedDescriptor checked;
  copy_versioned(&checked.descriptor, raw, offsetof(vc_plugin_descriptor, id));
  const vc_plugin_descriptor& d = checked.descriptor;
  if (auto refusal = check_versions(d, host_abi_minor)) return *refusal;
  if (auto refusal = check_identity(d)) return *refusal;
  auto options = check_options(d.options);
  if (!options) return options.error();

  checked.info = copy_info(d, path);
  checked.info.options = std::move(options).value();
  return checked;
}

}  // namespace vc::plugins
