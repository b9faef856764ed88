// supervisor_processes.cpp — the table of processes the supervisor holds: finding them, their
// records on disk, the ids, what an earlier supervisor left, forgetting old ones (supervisor.h).
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>

#include "log.h"
#include "supervisor.h"

namespace vc::exec_agent {
namespace {

// The N of a folder named "pN" (N > 0, digits only), or 0.
std::uint64_t process_number_of(const char* name) {
  if (name[0] != 'p' || name[1] < '1' || name[1] > '9' || std::strlen(name) > 19) return 0;
  for (const char* c = name + 1; *c; ++c) {
    if (*c < '0' || *c > '9') return 0;
  }
  return std::strtoull(name + 1, nullptr, 10);
}

std::uint64_t read_next_id_file(const std::string& path) {
  std::ifstream file(path);
  std::uint64_t number = 0;
  if (file >> number) return number;
  return 0;
}

// Ended processes sort by their end (RFC 3339 text sorts by time; a lost one, without an end,
// counts as the oldest), then by id.
bool ended_earlier(const ManagedProcess& a, const ManagedProcess& b) {
  const std::string a_end = a.record().ended.value_or("");
  const std::string b_end = b.record().ended.value_or("");
  if (a_end != b_end) return a_end < b_end;
  return a.record().number < b.record().number;
}

}  // namespace

ManagedProcess* Supervisor::find_process(const std::string& process_id) {
  for (const auto& process : processes_) {
    if (process->id() == process_id) return process.get();
  }
  return nullptr;
}

ManagedProcess* Supervisor::find_running_by_pid(pid_t pid) {
  for (const auto& process : processes_) {
    if (process->running() && process->record().pid == pid) return process.get();
  }
  return nullptr;
}

std::size_t Supervisor::running_count() const {
  return static_cast<std::size_t>(std::count_if(
      processes_.begin(), processes_.end(), [](const auto& process) { return process->running(); }));
}

void Supervisor::save(const ManagedProcess& process) {
  if (const std::string error = save_record(state_dir_, process.record()); !error.empty()) {
    log_line("%s: %s", process.id().c_str(), error.c_str());
  }
}

bool Supervisor::take_next_number(std::uint64_t& number, std::string& error) {
  // Written before the id is used, so that no supervisor after this one can hand it out again.
  const std::string path = state_dir_ + "/next_id";
  const std::string text = std::to_string(next_number_ + 1) + "\n";
  const int fd = open((path + ".new").c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  const bool written = fd >= 0 && write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  if (fd >= 0) close(fd);
  if (!written || rename((path + ".new").c_str(), path.c_str()) != 0) {
    error = "cannot record the next process id in '" + path + "': " + std::strerror(errno);
    return false;
  }
  number = next_number_++;
  return true;
}

bool Supervisor::load(std::string& error) {
  DIR* folder = opendir(state_dir_.c_str());
  if (folder == nullptr) {
    error = "cannot read '" + state_dir_ + "': " + std::strerror(errno);
    return false;
  }
  std::uint64_t highest_seen = 0;
  while (const dirent* entry = readdir(folder)) {
    const std::uint64_t number = process_number_of(entry->d_name);
    if (number == 0) continue;
    highest_seen = std::max(highest_seen, number);
    std::string problem;
    auto record = load_record(process_folder(state_dir_, number), problem);
    if (!record) continue;  // forgotten (its logs stay) or unreadable
    if (record->number != number) continue;
    processes_.push_back(std::make_unique<ManagedProcess>(std::move(*record), state_dir_));
  }
  closedir(folder);
  next_number_ = std::max({read_next_id_file(state_dir_ + "/next_id"), highest_seen + 1,
                           std::uint64_t{1}});
  std::sort(processes_.begin(), processes_.end(),
            [](const auto& a, const auto& b) { return a->record().number < b->record().number; });
  for (const auto& process : processes_) {
    if (process->running()) mark_lost(*process);
  }
  forget_old_processes();
  log_line("%zu processes from earlier supervisors; the next id is p%llu", processes_.size(),
           static_cast<unsigned long long>(next_number_));
  return true;
}

// A process recorded as running whose supervisor is gone: nobody read its output or can write
// to it since, and its exit status will never be known. In the same boot its process may still
// run (the supervisor was killed); when its pid is still that process (same start time), its
// group is ended, since nothing can manage it any more.
void Supervisor::mark_lost(ManagedProcess& process) {
  ProcessRecord& record = process.record();
  if (!record.boot_id.empty() && record.boot_id == boot_id_ && record.pid_start_ticks != 0 &&
      record.pid > 0 && process_start_ticks(record.pid) == record.pid_start_ticks) {
    log_line("%s (pid %d) outlived its supervisor: SIGKILL to its process group",
             process.id().c_str(), static_cast<int>(record.pid));
    kill(-record.pid, SIGKILL);
  }
  record.state = ProcessState::kLost;
  record.exit_code.reset();
  record.signal.reset();
  record.ended.reset();
  record.note = kLostNote;
  save(process);
}

void Supervisor::forget_old_processes() {
  for (;;) {
    std::vector<ManagedProcess*> ended;
    for (const auto& process : processes_) {
      if (!process->running()) ended.push_back(process.get());
    }
    if (ended.size() <= kMaxEndedProcesses) return;
    forget(**std::min_element(ended.begin(), ended.end(),
                              [](const ManagedProcess* a, const ManagedProcess* b) {
                                return ended_earlier(*a, *b);
                              }));
  }
}

// Its record goes; its logs stay where they are.
void Supervisor::forget(ManagedProcess& process) {
  const std::string record_path = process_folder(state_dir_, process.record().number) + "/process.json";
  unlink(record_path.c_str());
  log_line("%s forgotten (more than %zu ended processes)", process.id().c_str(),
           kMaxEndedProcesses);
  std::erase_if(processes_, [&process](const auto& held) { return held.get() == &process; });
}

}  // namespace vc::exec_agent
