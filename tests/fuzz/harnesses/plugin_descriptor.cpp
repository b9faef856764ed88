// plugin_descriptor — what a plugin's entry function hands the host: a vc_plugin_descriptor
// and its option declarations, their sizes, magic, ABI numbers, capabilities, strings (cut at
// an embedded NUL, absent, over-long) and option kinds all taken from the input, checked by
// check_descriptor as a loaded module is. An accepted plugin is then listed the way
// `mcp-virtual-computer plugins` lists it, and its options are registered with the host's
// command line and parsed from the rest of the input (one argument per line, after the
// program name) by parse_command_line, as main() does once the plugin is loaded.
//
// The harness owns every byte the descriptor points to (each string NUL-terminated in its own
// buffer, every struct allocated at full size whatever its struct_size says): the checker
// trusts its memory, the values are what is fuzzed.
//
// Beyond "no crash": an accepted descriptor's strings are the given ones up to their first
// NUL; its options are at most kMaxOptionDecls, validly and uniquely named; every default the
// check accepted is accepted by the command line's typed conversion too; registering the
// options fails only when one clashes with a host option; and a parsed command line's
// backend options are exactly the declared ones, each null or of its declared type.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <vc-backend-1/vc_plugin.h>

#include "cli/command_line.h"
#include "cli/plugin_options.h"
#include "plugin_loader/descriptor_check.h"
#include "plugin_loader/plugin_capabilities.h"
#include "plugin_loader/plugin_discovery.h"
#include "plugin_loader/plugin_search.h"

namespace {

using vc::Json;

// Reads the input front to back; past its end every read is zero or empty.
class Bytes {
 public:
  Bytes(const uint8_t* data, size_t size) : rest_(reinterpret_cast<const char*>(data), size) {}

  uint8_t byte() {
    if (rest_.empty()) return 0;
    const auto value = static_cast<uint8_t>(rest_.front());
    rest_.remove_prefix(1);
    return value;
  }
  uint32_t u32() {
    uint32_t value = 0;
    for (int i = 0; i < 4; ++i) value |= static_cast<uint32_t>(byte()) << (8 * i);
    return value;
  }
  uint64_t u64() {
    const uint64_t low = u32();
    return low | static_cast<uint64_t>(u32()) << 32;
  }
  // A length byte, then that many bytes (NULs included).
  std::string text() {
    const size_t wanted = byte();  // before rest_.size(): argument order is unspecified
    const size_t length = std::min<size_t>(wanted, rest_.size());
    std::string value(rest_.substr(0, length));
    rest_.remove_prefix(length);
    return value;
  }
  std::string_view rest() const { return rest_; }

 private:
  std::string_view rest_;
};

// Strings the descriptor points to: each in a buffer of its own, so a string that holds a NUL
// is read up to it and nothing is read past the buffer's terminator.
class Strings {
 public:
  // nullptr when `present` is false.
  const char* keep(bool present, std::string value) {
    if (!present) return nullptr;
    kept_.push_back(std::make_unique<std::string>(std::move(value)));
    return kept_.back()->c_str();
  }

 private:
  std::vector<std::unique_ptr<std::string>> kept_;
};

uint32_t struct_size(uint8_t choice, size_t full, Bytes& in) {
  switch (choice % 8) {
    case 0: return static_cast<uint32_t>(full);
    case 1: return static_cast<uint32_t>(full + 16);  // a newer 1.x header
    case 2: return static_cast<uint32_t>(full - 8);
    case 3: return static_cast<uint32_t>(vc::plugins::kDescriptorSize_1_0);
    case 4: return 0;
    case 5: return 8;
    default: return in.u32();
  }
}

vc_status VC_CALL create_backend(const vc_host_services*, const char*, size_t, vc_backend**,
                                 char*, size_t) {
  return VC_E_UNSUPPORTED;
}

std::string up_to_nul(const char* text) { return text == nullptr ? std::string() : std::string(text); }

bool valid_name(const std::string& name) {
  if (name.empty() || name.size() > 64 || name.front() == '-') return false;
  for (const char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return true;
}

bool has_type(vc_option_type type, const Json& value) {
  if (value.is_null()) return true;
  switch (type) {
    case VC_OPTION_STRING: return value.is_string();
    case VC_OPTION_INTEGER: return value.is_number_integer();
    case VC_OPTION_NUMBER: return value.is_number();
    case VC_OPTION_BOOL: return value.is_boolean();
    case VC_OPTION_STRING_LIST:
      if (!value.is_array()) return false;
      for (const auto& item : value) {
        if (!item.is_string()) return false;
      }
      return true;
    default: return false;
  }
}

void check_accepted(const vc::plugins::CheckedDescriptor& checked, const vc_plugin_descriptor& given) {
  const vc::plugins::PluginInfo& info = checked.info;
  if (info.id != up_to_nul(given.id) || info.name != up_to_nul(given.name) ||
      info.version != up_to_nul(given.version) || info.description != up_to_nul(given.description)) {
    __builtin_trap();
  }
  if (!valid_name(info.name) || info.options.size() > vc::plugins::kMaxOptionDecls) __builtin_trap();
  std::set<std::string> names;
  for (const auto& option : info.options) {
    if (!valid_name(option.name) || !names.insert(option.name).second) __builtin_trap();
    if (option.default_value && !vc::cli::typed_option_default(option.type, *option.default_value)) {
      __builtin_trap();
    }
  }
  if (vc::plugins::capability_names(info.capabilities).size() > 64) __builtin_trap();
  vc::plugins::Discovery listing;
  listing.plugins.push_back(info);
  (void)vc::plugins::format_discovery(listing);
}

size_t occurrences(std::string_view text, std::string_view part) {
  size_t count = 0;
  for (size_t at = text.find(part); at != std::string_view::npos; at = text.find(part, at + 1)) ++count;
  return count;
}

// The host's command line with the plugin's options, as main() parses it.
void parse_with(const vc::plugins::PluginInfo& info, std::string_view arguments) {
  std::vector<std::string> words{vc::cli::kProgramName};
  while (!arguments.empty() && words.size() < 32) {
    const size_t end = arguments.find('\n');
    words.emplace_back(arguments.substr(0, end));
    if (end == std::string_view::npos) break;
    arguments.remove_prefix(end + 1);
  }
  std::vector<const char*> argv;
  for (const auto& word : words) argv.push_back(word.c_str());
  std::ostringstream out;
  std::ostringstream err;
  const vc::cli::ParseOutcome outcome = vc::cli::parse_command_line(
      static_cast<int>(argv.size()), argv.data(), &info, "", out, err);
  // The host's own words for a declaration it refused. A usage error echoes arguments (whole
  // or in part), and an argument may hold any text, that sentence included: only a sentence
  // beyond those the arguments themselves carry is the host's.
  const std::string errors = err.str();
  const std::string refusal = "the " + info.name + " backend (" + info.path.string() + ") declares ";
  size_t in_arguments = 0;
  for (size_t i = 1; i < words.size(); ++i) in_arguments += occurrences(words[i], refusal);
  if (outcome.exit_code == 1 && occurrences(errors, refusal) > in_arguments &&
      errors.find("clashes with the host's") == std::string::npos) {
    __builtin_trap();  // registering an accepted option failed for another reason
  }
  if (!outcome.command_line || outcome.command_line->command == vc::cli::Command::list_plugins) return;
  const Json& options = outcome.command_line->config.backend_options;
  if (!options.is_object() || options.size() != info.options.size()) __builtin_trap();
  for (const auto& option : info.options) {
    const auto value = options.find(option.name);
    if (value == options.end() || !has_type(option.type, *value)) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Bytes in(data, size);
  Strings strings;
  const uint8_t shape = in.byte();  // bit i: field i is present
  auto descriptor = std::make_unique<vc_plugin_descriptor>();
  descriptor->struct_size = struct_size(in.byte(), sizeof(vc_plugin_descriptor), in);
  descriptor->magic = (shape & 0x80) != 0 ? in.u32() : VC_DESCRIPTOR_MAGIC;
  const uint8_t versions = in.byte();
  descriptor->abi_major = (versions & 1) != 0 ? in.u32() : VC_ABI_MAJOR;
  descriptor->abi_minor = (versions & 2) != 0 ? in.u32() : VC_ABI_MINOR;
  descriptor->min_host_abi_minor = (versions & 4) != 0 ? in.u32() : 0u;
  descriptor->capabilities = in.u64();
  descriptor->id = strings.keep((shape & 1) != 0, in.text());
  descriptor->name = strings.keep((shape & 2) != 0, in.text());
  descriptor->version = strings.keep((shape & 4) != 0, in.text());
  descriptor->vendor = strings.keep((shape & 8) != 0, in.text());
  descriptor->description = strings.keep((shape & 16) != 0, in.text());
  descriptor->create_backend = (shape & 32) != 0 ? &create_backend : nullptr;

  // Up to 8 declarations from the input, or those 8 followed by renamed copies up to one past
  // the limit, so that the list limit is reachable.
  std::vector<std::unique_ptr<vc_option_decl>> decls;
  std::vector<const vc_option_decl*> list;
  const uint8_t count = in.byte();
  const size_t declared =
      (count & 0x80) != 0 ? vc::plugins::kMaxOptionDecls + 1 : static_cast<size_t>(count % 9);
  for (size_t i = 0; i < declared; ++i) {
    if (i >= 8) {
      auto copy = std::make_unique<vc_option_decl>(*decls[i % 8]);
      copy->name = strings.keep(true, "copy-" + std::to_string(i));
      list.push_back(copy.get());
      decls.push_back(std::move(copy));
      continue;
    }
    auto decl = std::make_unique<vc_option_decl>();
    const uint8_t fields = in.byte();
    decl->struct_size = struct_size(in.byte(), sizeof(vc_option_decl), in);
    decl->type = (fields & 0x80) != 0 ? in.u32() : static_cast<vc_option_type>(1 + in.byte() % 5);
    decl->name = strings.keep((fields & 1) != 0, in.text());
    decl->help = strings.keep((fields & 2) != 0, in.text());
    decl->default_value = strings.keep((fields & 4) != 0, in.text());
    decl->env_var = strings.keep((fields & 8) != 0, in.text());
    list.push_back(decl.get());
    decls.push_back(std::move(decl));
  }
  if ((shape & 64) != 0 && !list.empty()) {
    list.push_back(nullptr);
    descriptor->options = list.data();
  }

  auto checked = vc::plugins::check_descriptor(descriptor.get(), "/fuzz/vc-backend-fuzz.so");
  if (!checked) return 0;
  check_accepted(checked.value(), *descriptor);
  parse_with(checked.value().info, in.rest());
  return 0;
}
