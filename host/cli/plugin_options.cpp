// plugin_options.cpp — see plugin_options.h.
#include "cli/plugin_options.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <regex>

#include "cli/env_flag.h"

namespace vc::cli {
namespace {

const char* type_name(vc_option_type type) {
  switch (type) {
    case VC_OPTION_STRING: return "a string";
    case VC_OPTION_INTEGER: return "an integer";
    case VC_OPTION_NUMBER: return "a number";
    case VC_OPTION_BOOL: return "a boolean";
    case VC_OPTION_STRING_LIST: return "a list of strings";
    default: return "an unknown type";
  }
}

bool is_valid_option_name(const std::string& name) {
  static const std::regex kName("^[a-z0-9][a-z0-9-]*$");
  return std::regex_match(name, kName);
}

std::string option_error_prefix(const plugins::PluginInfo& plugin, const std::string& name) {
  return "the " + plugin.name + " backend (" + plugin.path.string() + ") declares option --" +
         name;
}

}  // namespace

Expected<Json> typed_option_default(vc_option_type type, const std::string& text) {
  switch (type) {
    case VC_OPTION_STRING: return Json(text);
    case VC_OPTION_STRING_LIST: return Json::array({text});
    case VC_OPTION_INTEGER: {
      int64_t value = 0;
      const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (error == std::errc() && end == text.data() + text.size() && !text.empty()) return Json(value);
      break;
    }
    case VC_OPTION_NUMBER: {
      char* end = nullptr;
      const double value = std::strtod(text.c_str(), &end);
      if (!text.empty() && end == text.c_str() + text.size() && std::isfinite(value)) return Json(value);
      break;
    }
    case VC_OPTION_BOOL: {
      auto value = parse_flag_value("default", text);
      if (value) return Json(value.value());
      break;
    }
    default: return Failure{-1, "has an unknown type " + std::to_string(type)};
  }
  return Failure{-1, "has the default '" + text + "', which is not " + type_name(type)};
}

std::optional<Failure> PluginOptions::add_to(CLI::App& app, const plugins::PluginInfo& plugin) {
  const std::string group = plugin.name + " backend options";
  for (const auto& decl : plugin.options) {
    auto entry = std::make_unique<Entry>();
    entry->decl = decl;
    if (auto failure = add_one(app, group, plugin, *entry)) return failure;
    entries_.push_back(std::move(entry));
  }
  return std::nullopt;
}

std::optional<Failure> PluginOptions::add_one(CLI::App& app, const std::string& group,
                                              const plugins::PluginInfo& plugin, Entry& entry) {
  const plugins::OptionDecl& decl = entry.decl;
  if (!is_valid_option_name(decl.name)) {
    return Failure{-1, "the " + plugin.name + " backend (" + plugin.path.string() +
                           ") declares an option named '" + decl.name +
                           "'; names are lowercase letters, digits and '-'"};
  }
  const std::string flag = "--" + decl.name;
  const bool is_bool = decl.type == VC_OPTION_BOOL;
  for (const std::string& spelling : {flag, "--no-" + decl.name}) {
    if (spelling != flag && !is_bool) continue;
    if (app.get_option_no_throw(spelling) != nullptr) {
      return Failure{-1, option_error_prefix(plugin, decl.name) + ", which clashes with the host's " +
                             spelling + " option"};
    }
  }
  if (decl.default_value) {
    auto typed = typed_option_default(decl.type, *decl.default_value);
    if (!typed) return Failure{-1, option_error_prefix(plugin, decl.name) + ", which " + typed.error().message};
    entry.default_value = std::move(typed).value();
  }

  switch (decl.type) {
    case VC_OPTION_STRING: entry.option = app.add_option(flag, entry.text, decl.help); break;
    case VC_OPTION_INTEGER: entry.option = app.add_option(flag, entry.integer, decl.help); break;
    case VC_OPTION_NUMBER: entry.option = app.add_option(flag, entry.number, decl.help); break;
    case VC_OPTION_BOOL:
      entry.option = app.add_flag(flag + ",!--no-" + decl.name, entry.flag, decl.help);
      break;
    case VC_OPTION_STRING_LIST:
      // One value per occurrence: "--x a --x b", never "--x a b".
      entry.option = app.add_option(flag, entry.list, decl.help)->allow_extra_args(false);
      break;
    default:
      return Failure{-1, option_error_prefix(plugin, decl.name) + " of unknown type " +
                             std::to_string(decl.type)};
  }
  entry.option->group(group);
  if (decl.default_value) entry.option->default_str(*decl.default_value);
  if (decl.env_var && !decl.env_var->empty()) entry.option->envname(*decl.env_var);
  return std::nullopt;
}

Json PluginOptions::parsed_value(const Entry& entry) {
  if (entry.option->count() == 0) return entry.default_value;
  switch (entry.decl.type) {
    case VC_OPTION_STRING: return entry.text;
    case VC_OPTION_INTEGER: return entry.integer;
    case VC_OPTION_NUMBER: return entry.number;
    case VC_OPTION_BOOL: return entry.flag;
    case VC_OPTION_STRING_LIST: return entry.list;
    default: return nullptr;
  }
}

Json PluginOptions::values() const {
  Json values = Json::object();
  for (const auto& entry : entries_) values[entry->decl.name] = parsed_value(*entry);
  return values;
}

}  // namespace vc::cli
