// plugin_options.h — a backend plugin's declared options on the host's command line.
//
// After the backend is chosen, each option it declares (vc_option.h) becomes a CLI11 option in
// a group named after the backend, so `--backend X --help` lists them with their defaults and
// environment variables. After parsing, values() is the "options" object the plugin's
// create_backend() receives: every declared option, typed, its default when not given, null
// when it has neither a value nor a default.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "common/failure.h"
#include "common/json.h"
#include "plugin_loader/plugin_module.h"

namespace vc::cli {

class PluginOptions {
 public:
  // Adds the plugin's options to `app`. Fails (a configuration error naming the option) when
  // a name is malformed, clashes with an option already in `app`, or has a default that is
  // not of its type.
  std::optional<Failure> add_to(CLI::App& app, const plugins::PluginInfo& plugin);

  // After a successful parse.
  Json values() const;

 private:
  struct Entry {
    plugins::OptionDecl decl;
    CLI::Option* option = nullptr;
    Json default_value;  // the declared default, typed; null when none
    std::string text;
    int64_t integer = 0;
    double number = 0;
    bool flag = false;
    std::vector<std::string> list;
  };

  std::optional<Failure> add_one(CLI::App& app, const std::string& group,
                                 const plugins::PluginInfo& plugin, Entry& entry);
  static Json parsed_value(const Entry& entry);

  // unique_ptr: CLI11 binds to the members, so their addresses must not move.
  std::vector<std::unique_ptr<Entry>> entries_;
};

// "Expected a value of type <kind>" conversions of a declared default (exposed for tests).
Expected<Json> typed_option_default(vc_option_type type, const std::string& text);

}  // namespace vc::cli
