// process_record.cpp — process records as JSON, on disk and in answers (process_record.h).
#include "process_record.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

namespace vc::exec_agent {
namespace {

using nlohmann::json;

constexpr std::size_t kLargestRecordFile = 1u << 20;

const char* state_word(ProcessState state) {
  switch (state) {
    case ProcessState::kRunning: return "running";
    case ProcessState::kExited: return "exited";
    case ProcessState::kLost: return "lost";
  }
  return "lost";
}

std::optional<ProcessState> state_from_word(const std::string& word) {
  if (word == "running") return ProcessState::kRunning;
  if (word == "exited") return ProcessState::kExited;
  if (word == "lost") return ProcessState::kLost;
  return std::nullopt;
}

template <typename T>
json or_null(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

std::string read_small_file(const std::string& path, std::size_t limit) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return {};
  std::string text(limit, '\0');
  file.read(text.data(), static_cast<std::streamsize>(limit));
  text.resize(static_cast<std::size_t>(file.gcount()));
  return text;
}

bool write_whole_file(const std::string& path, std::string_view text, std::string& error) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    error = "cannot write '" + path + "': " + std::strerror(errno);
    return false;
  }
  while (!text.empty()) {
    const ssize_t wrote = write(fd, text.data(), text.size());
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) {
      error = "cannot write '" + path + "': " + std::strerror(errno);
      close(fd);
      return false;
    }
    text.remove_prefix(static_cast<std::size_t>(wrote));
  }
  close(fd);
  return true;
}

json record_json(const std::string& state_dir, const ProcessRecord& record) {
  json body = process_info_json(state_dir, record);
  body["instance"] = record.instance;
  body["boot_id"] = record.boot_id;
  body["pid_start_ticks"] = record.pid_start_ticks;
  if (!record.logs_at_limit.empty()) body["logs_stopped_at_1_gib"] = record.logs_at_limit;
  return body;
}

// Fields read back with a default when absent or of the wrong type: a record is the
// supervisor's own file, but it must never be able to stop the supervisor.
template <typename T>
T field_or(const json& body, const char* name, T fallback) {
  const auto found = body.find(name);
  if (found == body.end()) return fallback;
  try {
    return found->get<T>();
  } catch (const json::exception&) {
    return fallback;
  }
}

template <typename T>
std::optional<T> optional_field(const json& body, const char* name) {
  const auto found = body.find(name);
  if (found == body.end() || found->is_null()) return std::nullopt;
  try {
    return found->get<T>();
  } catch (const json::exception&) {
    return std::nullopt;
  }
}

}  // namespace

std::string process_folder(const std::string& state_dir, std::uint64_t number) {
  return state_dir + "/p" + std::to_string(number);
}

std::string log_path(const std::string& state_dir, const ProcessRecord& record,
                     const char* stream) {
  return process_folder(state_dir, record.number) + "/" + stream + ".log";
}

json process_info_json(const std::string& state_dir, const ProcessRecord& record) {
  json log_paths = record.pty ? json{{"output", log_path(state_dir, record, "output")}}
                              : json{{"stdout", log_path(state_dir, record, "stdout")},
                                     {"stderr", log_path(state_dir, record, "stderr")}};
  json body = {{"process_id", record.id()},
               {"command", record.command},
               {"argv", record.argv},
               {"working_directory", record.working_directory},
               {"pty", record.pty},
               {"pid", record.pid},
               {"state", state_word(record.state)},
               {"exit_code", or_null(record.exit_code)},
               {"signal", or_null(record.signal)},
               {"started", record.started},
               {"ended", or_null(record.ended)},
               {"log_paths", std::move(log_paths)}};
  if (!record.note.empty()) body["note"] = record.note;
  return body;
}

std::string save_record(const std::string& state_dir, const ProcessRecord& record) {
  const std::string folder = process_folder(state_dir, record.number);
  const std::string text =
      record_json(state_dir, record).dump(2, ' ', false, json::error_handler_t::replace) + "\n";
  std::string error;
  if (!write_whole_file(folder + "/process.json.new", text, error)) return error;
  if (rename((folder + "/process.json.new").c_str(), (folder + "/process.json").c_str()) != 0) {
    return "cannot rename '" + folder + "/process.json.new': " + std::strerror(errno);
  }
  return {};
}

std::optional<ProcessRecord> load_record(const std::string& folder, std::string& error) {
  const std::string text = read_small_file(folder + "/process.json", kLargestRecordFile);
  const json body = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded() || !body.is_object()) {
    error = folder + "/process.json is missing or not a JSON object";
    return std::nullopt;
  }
  ProcessRecord record;
  const std::string id = field_or<std::string>(body, "process_id", "");
  const auto state = state_from_word(field_or<std::string>(body, "state", ""));
  if (id.size() < 2 || id[0] != 'p' || !state) {
    error = folder + "/process.json has no process_id or state";
    return std::nullopt;
  }
  record.number = std::strtoull(id.c_str() + 1, nullptr, 10);
  record.command = field_or<std::string>(body, "command", "");
  record.argv = field_or<std::vector<std::string>>(body, "argv", {});
  record.working_directory = field_or<std::string>(body, "working_directory", "");
  record.pty = field_or<bool>(body, "pty", false);
  record.pid = field_or<pid_t>(body, "pid", -1);
  record.state = *state;
  record.exit_code = optional_field<int>(body, "exit_code");
  record.signal = optional_field<std::string>(body, "signal");
  record.started = field_or<std::string>(body, "started", "");
  record.ended = optional_field<std::string>(body, "ended");
  record.note = field_or<std::string>(body, "note", "");
  record.logs_at_limit = field_or<std::vector<std::string>>(body, "logs_stopped_at_1_gib", {});
  record.instance = field_or<std::string>(body, "instance", "");
  record.boot_id = field_or<std::string>(body, "boot_id", "");
  record.pid_start_ticks = field_or<std::uint64_t>(body, "pid_start_ticks", 0);
  return record;
}

std::string rfc3339_now() {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  tm utc{};
  gmtime_r(&now.tv_sec, &utc);
  char text[96];  // room for any int the format could meet, so no truncation is possible
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<int>(now.tv_nsec / 1'000'000));
  return text;
}

std::string current_boot_id() {
  std::string id = read_small_file("/proc/sys/kernel/random/boot_id", 64);
  while (!id.empty() && (id.back() == '\n' || id.back() == ' ')) id.pop_back();
  return id;
}

std::uint64_t process_start_ticks(pid_t pid) {
  const std::string stat = read_small_file("/proc/" + std::to_string(pid) + "/stat", 4096);
  // "pid (name) state ppid ...": the name may hold spaces and parentheses; starttime is the
  // 22nd field, the 20th after the name.
  const auto name_end = stat.rfind(')');
  if (name_end == std::string::npos) return 0;
  std::istringstream fields(stat.substr(name_end + 1));
  std::string field;
  for (int index = 3; index <= 22 && fields >> field; ++index) {
    if (index == 22) return std::strtoull(field.c_str(), nullptr, 10);
  }
  return 0;
}

}  // namespace vc::exec_agent
