// process_record.h — what the supervisor knows about one process, and how it is written down.
//
// The record is the process_info of docs/processes.md plus what a later supervisor needs to
// judge it: which supervisor instance ran it (a random id and the kernel's boot id) and the
// start time of its pid (so that a pid reused since is never taken for it). It lives in
// `<state dir>/<id>/process.json`, rewritten (to a temporary file, then renamed) whenever it
// changes: started, ended, found lost, a log stopped at its limit. Single-threaded.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace vc::exec_agent {

enum class ProcessState { kRunning, kExited, kLost };

inline constexpr const char* kLostNote = "ended when the computer restarted; its exit status is unknown";

struct ProcessRecord {
  std::uint64_t number = 0;  // the N of "pN"
  std::string command;
  std::vector<std::string> argv;
  std::string working_directory;
  bool pty = false;
  pid_t pid = -1;
  ProcessState state = ProcessState::kRunning;
  std::optional<int> exit_code;
  std::optional<std::string> signal;
  std::string started;
  std::optional<std::string> ended;
  std::string note;  // "" or why the state is what it is (a lost process)
  std::vector<std::string> logs_at_limit;  // streams whose log stopped growing at 1 GiB

  // Who ran it.
  std::string instance;
  std::string boot_id;
  std::uint64_t pid_start_ticks = 0;  // /proc/<pid>/stat's starttime; 0 when unknown

  std::string id() const { return "p" + std::to_string(number); }
};

// The folder of process `number` in the state folder, and its log files.
std::string process_folder(const std::string& state_dir, std::uint64_t number);
std::string log_path(const std::string& state_dir, const ProcessRecord& record, const char* stream);

// process_info as the answers carry it (docs/processes.md).
nlohmann::json process_info_json(const std::string& state_dir, const ProcessRecord& record);

// Writes process.json; "" or why it could not.
std::string save_record(const std::string& state_dir, const ProcessRecord& record);
// Reads <folder>/process.json; nothing when missing or unreadable (the reason in `error`).
std::optional<ProcessRecord> load_record(const std::string& folder, std::string& error);

// Now, as RFC 3339 UTC with milliseconds: "2025-01-31T12:34:56.789Z".
std::string rfc3339_now();
// The kernel's id of this boot ("" when unknown): equal ids, same boot.
std::string current_boot_id();
// A process's start time in clock ticks since boot (field 22 of /proc/<pid>/stat); 0 if gone.
std::uint64_t process_start_ticks(pid_t pid);

}  // namespace vc::exec_agent
