// process_request.cpp — parsing and checking the supervisor's requests (process_request.h).
#include "process_request.h"

#include <string.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <csignal>
#include <nlohmann/json.hpp>

namespace vc::exec_agent {
namespace {

using nlohmann::json;

struct NamedSignal {
  const char* name;
  int number;
};

// The signals a caller names (docs/processes.md); others by number.
constexpr std::array<NamedSignal, 10> kNamedSignals = {{{"TERM", SIGTERM},
                                                        {"KILL", SIGKILL},
                                                        {"INT", SIGINT},
                                                        {"HUP", SIGHUP},
                                                        {"QUIT", SIGQUIT},
                                                        {"USR1", SIGUSR1},
                                                        {"USR2", SIGUSR2},
                                                        {"STOP", SIGSTOP},
                                                        {"CONT", SIGCONT},
                                                        {"WINCH", SIGWINCH}}};
constexpr int kHighestSignal = 64;

// Thrown inside the parser only, caught in parse_process_request: a refusal is one line where
// it is found rather than a returned error threaded through every helper.
struct Refusal {
  std::string why;
};

[[noreturn]] void refuse_request(std::string why) { throw Refusal{std::move(why)}; }

bool contains_nul_character(const std::string& text) { return text.find('\0') != std::string::npos; }

const json* field(const json& body, const char* name) {
  const auto found = body.find(name);
  return found == body.end() || found->is_null() ? nullptr : &*found;
}

std::string quoted(const char* name) { return std::string("\"") + name + "\""; }

// A refusal quotes at most this much of a value the caller sent: enough to recognise it, and the
// refusal stays one short line whatever was sent.
constexpr std::size_t kMaxQuotedBytes = 64;

// `text` cut to kMaxQuotedBytes before a character, "…" marking the cut. The text is valid UTF-8
// (the JSON parser checked it), so stepping back over continuation bytes finds a boundary.
std::string clipped(std::string text) {
  if (text.size() <= kMaxQuotedBytes) return text;
  std::size_t cut = kMaxQuotedBytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  text.resize(cut);
  return text + "\u2026";
}

// A value as a refusal shows it: a string, number or boolean as JSON, clipped; an array or an
// object only by its kind (writing out one nested a million levels deep recurses that deep).
std::string shown(const json& value) {
  if (value.is_array()) return "an array";
  if (value.is_object()) return "an object";
  return clipped(value.dump());
}

std::int64_t read_integer(const json& body, const char* name, std::int64_t lowest,
                          std::int64_t highest, std::int64_t fallback) {
  const json* value = field(body, name);
  if (value == nullptr) return fallback;
  const std::string range = std::to_string(lowest) + " to " + std::to_string(highest);
  if (!value->is_number_integer()) refuse_request(quoted(name) + " must be an integer from " + range);
  if (value->is_number_unsigned() &&
      value->get<std::uint64_t>() > static_cast<std::uint64_t>(highest)) {
    refuse_request(quoted(name) + " must be from " + range + " (it is " + value->dump() + ")");
  }
  const auto number = value->get<std::int64_t>();
  if (number < lowest || number > highest) {
    refuse_request(quoted(name) + " must be from " + range + " (it is " + std::to_string(number) + ")");
  }
  return number;
}

bool read_flag(const json& body, const char* name, bool fallback) {
  const json* value = field(body, name);
  if (value == nullptr) return fallback;
  if (!value->is_boolean()) refuse_request(quoted(name) + " must be true or false");
  return value->get<bool>();
}

std::string read_text(const json& body, const char* name) {
  const json* value = field(body, name);
  if (value == nullptr) refuse_request(quoted(name) + " is missing");
  if (!value->is_string()) refuse_request(quoted(name) + " must be a string");
  return value->get<std::string>();
}

std::optional<std::string> read_optional_text(const json& body, const char* name) {
  if (field(body, name) == nullptr) return std::nullopt;
  return read_text(body, name);
}

void check_protocol(const json& body) {
  const json* protocol = field(body, "protocol");
  if (protocol == nullptr) refuse_request("\"protocol\" is missing (this supervisor speaks protocol 1)");
  if (!protocol->is_number_integer() || protocol->get<std::int64_t>() != kSupervisorProtocol) {
    refuse_request("protocol " + shown(*protocol) + " is not spoken by this supervisor (" +
           std::to_string(kSupervisorProtocol) + ")");
  }
}

RequestOp read_op(const json& body) {
  const std::string op = read_text(body, "op");
  if (op == "start") return RequestOp::kStart;
  if (op == "read") return RequestOp::kRead;
  if (op == "write") return RequestOp::kWrite;
  if (op == "kill") return RequestOp::kKill;
  if (op == "list") return RequestOp::kList;
  refuse_request("\"op\" '" + clipped(op) + "' is not one of start, read, write, kill, list");
}

void read_argv(const json& body, ProcessRequest& request) {
  const json* argv = field(body, "argv");
  if (argv == nullptr || !argv->is_array()) refuse_request("\"argv\" must be an array of strings");
  if (argv->empty()) refuse_request("\"argv\" must not be empty");
  if (argv->size() > kMaxArguments) {
    refuse_request("\"argv\" has " + std::to_string(argv->size()) + " arguments; at most " +
           std::to_string(kMaxArguments) + " are allowed");
  }
  std::size_t bytes = 0;
  for (const auto& word : *argv) {
    if (!word.is_string()) refuse_request("\"argv\" must hold only strings");
    request.argv.push_back(word.get<std::string>());
    if (contains_nul_character(request.argv.back())) refuse_request("\"argv\" must not contain NUL characters");
    bytes += request.argv.back().size() + 1;
  }
  if (bytes > kMaxArgumentBytes) {
    refuse_request("\"argv\" is " + std::to_string(bytes) + " bytes; at most " +
           std::to_string(kMaxArgumentBytes) + " are allowed");
  }
  if (request.argv.front().empty()) refuse_request("\"argv\"[0] must not be empty");
}

bool is_variable_name(const std::string& name) {
  const auto starts_name = [](char c) { return c == '_' || std::isalpha(static_cast<unsigned char>(c)); };
  const auto continues_name = [](char c) { return c == '_' || std::isalnum(static_cast<unsigned char>(c)); };
  return !name.empty() && starts_name(name.front()) &&
         std::all_of(name.begin() + 1, name.end(), continues_name);
}

void read_env(const json& body, ProcessRequest& request) {
  const json* env = field(body, "env");
  if (env == nullptr) return;
  if (!env->is_object()) refuse_request("\"env\" must be an object of strings");
  if (env->size() > kMaxEnvironmentVariables) {
    refuse_request("\"env\" has " + std::to_string(env->size()) + " variables; at most " +
           std::to_string(kMaxEnvironmentVariables) + " are allowed");
  }
  for (const auto& [name, value] : env->items()) {
    if (!is_variable_name(name)) {
      refuse_request("\"env\" variable name '" + clipped(name) + "' is not of the form [A-Za-z_][A-Za-z0-9_]*");
    }
    if (!value.is_string()) refuse_request("\"env\" value of " + clipped(name) + " must be a string");
    request.env.emplace_back(name, value.get<std::string>());
    if (contains_nul_character(request.env.back().second)) {
      refuse_request("\"env\" value of " + clipped(name) + " must not contain NUL characters");
    }
  }
}

std::string joined(const std::vector<std::string>& words) {
  std::string line;
  for (const auto& word : words) {
    if (!line.empty()) line += ' ';
    line += word;
  }
  return line;
}

void read_start(const json& body, ProcessRequest& request) {
  read_argv(body, request);
  request.cwd = read_optional_text(body, "cwd");
  if (request.cwd && (request.cwd->empty() || contains_nul_character(*request.cwd))) {
    refuse_request("\"cwd\" must be a non-empty path without NUL characters");
  }
  read_env(body, request);
  request.pty = read_flag(body, "pty", false);
  request.rows = static_cast<int>(read_integer(body, "rows", 2, 500, 24));
  request.cols = static_cast<int>(read_integer(body, "cols", 10, 1000, 80));
  request.command = read_optional_text(body, "command").value_or(joined(request.argv));
}

void read_output_window(const json& body, ProcessRequest& request) {
  request.wait_ms = read_integer(body, "wait_ms", 0, kMaxWaitMs, kDefaultWaitMs);
  request.max_bytes = static_cast<std::size_t>(
      read_integer(body, "max_bytes", 1, kMaxMaxBytes, kDefaultMaxBytes));
}

void read_from(const json& body, ProcessRequest& request) {
  const json* from = field(body, "from");
  if (from == nullptr) return;
  if (!from->is_object()) refuse_request("\"from\" must be an object {\"stdout\": N, \"stderr\": N}");
  constexpr std::int64_t kLargest = std::int64_t{1} << 62;
  request.from = {static_cast<std::uint64_t>(read_integer(*from, "stdout", 0, kLargest, 0)),
                  static_cast<std::uint64_t>(read_integer(*from, "stderr", 0, kLargest, 0))};
}

int signal_by_name(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  if (name.starts_with("SIG")) name.erase(0, 3);
  for (const auto& known : kNamedSignals) {
    if (name == known.name) return known.number;
  }
  if (!name.empty() && name.size() <= 2 &&
      std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::stoi(name);
  }
  return 0;
}

void read_signal(const json& body, ProcessRequest& request) {
  const json* value = field(body, "signal");
  if (value == nullptr) return;  // TERM
  const std::string choices =
      "one of TERM, KILL, INT, HUP, QUIT, USR1, USR2, STOP, CONT, WINCH or a number from 1 to " +
      std::to_string(kHighestSignal);
  int number = 0;
  if (value->is_number_integer()) {
    number = static_cast<int>(read_integer(body, "signal", 1, kHighestSignal, 15));
  } else if (value->is_string()) {
    number = signal_by_name(value->get<std::string>());
  } else {
    refuse_request("\"signal\" must be " + choices);
  }
  if (number < 1 || number > kHighestSignal) {
    refuse_request("\"signal\" " + shown(*value) + " is not " + choices);
  }
  request.signal = number;
}

ProcessRequest parse_object(const json& body) {
  check_protocol(body);
  ProcessRequest request;
  request.op = read_op(body);
  if (request.op != RequestOp::kStart && request.op != RequestOp::kList) {
    request.process_id = read_text(body, "process_id");
  }
  switch (request.op) {
    case RequestOp::kStart:
      read_start(body, request);
      read_output_window(body, request);
      break;
    case RequestOp::kRead:
      read_output_window(body, request);
      read_from(body, request);
      break;
    case RequestOp::kWrite:
      read_output_window(body, request);
      request.input = read_optional_text(body, "input").value_or("");
      if (request.input.size() > kMaxInputBytes) {
        refuse_request("input is " + std::to_string(request.input.size()) + " bytes; at most " +
               std::to_string(kMaxInputBytes) + " bytes can be written at once.");
      }
      request.close_stdin = read_flag(body, "close_stdin", false);
      read_from(body, request);
      break;
    case RequestOp::kKill:
      read_signal(body, request);
      read_from(body, request);
      break;
    case RequestOp::kList: break;
  }
  return request;
}

}  // namespace

ParsedProcessRequest parse_process_request(std::string_view body) {
  const json parsed = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return {std::nullopt, "the request is not valid JSON"};
  if (!parsed.is_object()) return {std::nullopt, "the request is not a JSON object"};
  try {
    return {parse_object(parsed), {}};
  } catch (const Refusal& refusal) {
    return {std::nullopt, refusal.why};
  } catch (const std::exception& error) {
    // The checks above come before every conversion; this is the net under them.
    return {std::nullopt, std::string("the request could not be read: ") + error.what()};
  }
}

std::string signal_name(int signal_number) {
  if (const char* name = sigabbrev_np(signal_number)) return name;
  return "SIG" + std::to_string(signal_number);
}

}  // namespace vc::exec_agent
