// supervisor.h — `vc-exec-agent process-supervisor <state dir>`: the daemon that holds a
// computer's background and interactive processes (docs/processes.md).
//
// Single-threaded, on poll(): the listening socket, each connected client, the signalfd for
// SIGCHLD, and each process's pipes (or terminal). A client sends one request and gets one
// answer; a request that waits (for output, for the end, for a kill to take) is held while the
// loop goes on with everything else. Timers (waits, the gathering of a burst, kill
// graces, a process's settling) are deadlines on the monotonic clock that set poll()'s timeout.
// Each turn: events, then timers, then the held requests that can be answered, then old ended
// processes forgotten, then the answers written.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "child_reaper.h"
#include "group_killer.h"
#include "managed_process.h"
#include "poll_set.h"
#include "process_request.h"
#include "socket_messages.h"
#include "vc_agent_common/clock.h"

namespace vc::exec_agent {

using agent_common::Millis;

inline constexpr std::size_t kMaxRunningProcesses = 32;
inline constexpr std::size_t kMaxEndedProcesses = 64;
inline constexpr std::size_t kMaxClients = 128;
// A client that has not sent its whole request by then is dropped.
inline constexpr Millis kRequestArrivalMs = 10'000;
// After the first new output, how long a read waits for more of the same burst.
inline constexpr Millis kGatherBurstMs = 30;
// ... unless the process has been quiet this long since its last output: an echo or a prompt
// comes back at once, a stream of output still in one answer.
inline constexpr Millis kQuietGapMs = 5;
inline constexpr Millis kTermGraceMs = 2000;
// How long a kill's answer waits for the process (and its group) to be gone.
inline constexpr Millis kKillAnswerWaitMs = 3000;

// One connection: one request, one answer.
struct SupervisorClient {
  explicit SupervisorClient(int socket_fd, Millis now)
      : fd(socket_fd), request_due(now + kRequestArrivalMs) {}

  int fd;
  MessageReader reader{kMaxRequestBytes};
  Millis request_due;
  // The request being held, and until when.
  std::optional<ProcessRequest> held;
  Millis answer_by = 0;
  std::optional<Millis> gather_until;  // set by the first new output
  std::optional<Millis> quiet_until;   // the last output so far, plus kQuietGapMs
  std::string answer;                  // the framed answer, once there is one
  std::size_t answer_sent = 0;
  bool done = false;  // to be closed and dropped at the end of the turn
};

enum class SupervisorTarget { kListener, kChildSignals, kClient, kStdout, kStderr, kStdin };

struct SupervisorPollOwner {
  SupervisorTarget target;
  SupervisorClient* client = nullptr;
  ManagedProcess* process = nullptr;
};

// Sets up the daemon in `state_dir` (its lock, log, socket) and runs it; the exit status.
int run_process_supervisor(const std::string& state_dir);

class Supervisor {
 public:
  Supervisor(std::string state_dir, int listen_fd, ChildReaper& reaper);
  ~Supervisor();
  Supervisor(const Supervisor&) = delete;
  Supervisor& operator=(const Supervisor&) = delete;

  // Loads the processes earlier supervisors left (marking the running ones lost); false (with
  // `error`) when the next id cannot be known.
  bool load(std::string& error);
  // Never returns.
  [[noreturn]] void run();

 private:
  // --- the loop (supervisor.cpp) ---
  void build_poll_set();
  int poll_timeout(Millis now) const;
  void handle_ready(std::size_t index, Millis now);
  void accept_clients(Millis now);
  void read_client(SupervisorClient& client, Millis now);
  void write_answer(SupervisorClient& client);
  void drop_finished_clients(Millis now);
  void reap_children();
  void run_timers(Millis now);

  // --- requests (supervisor_requests.cpp) ---
  void handle_request(SupervisorClient& client, std::string_view body, Millis now);
  void start_process(SupervisorClient& client, const ProcessRequest& request, Millis now);
  void write_to_process(SupervisorClient& client, const ProcessRequest& request, Millis now);
  void kill_process(SupervisorClient& client, const ProcessRequest& request, Millis now);
  void list_processes(SupervisorClient& client);
  void hold(SupervisorClient& client, const ProcessRequest& request, Millis now);
  void answer_held_requests(Millis now);
  bool ready_to_answer(SupervisorClient& client, ManagedProcess& process, Millis now);
  void answer_with_output(SupervisorClient& client, const ProcessRequest& request,
                          ManagedProcess& process);
  void answer(SupervisorClient& client, const std::string& body);
  void answer_error(SupervisorClient& client, const std::string& code, const std::string& message);
  void answer_unknown_process(SupervisorClient& client, const std::string& process_id);

  // --- the processes held (supervisor_processes.cpp) ---
  ManagedProcess* find_process(const std::string& process_id);
  ManagedProcess* find_running_by_pid(pid_t pid);
  std::size_t running_count() const;
  void forget_old_processes();
  void forget(ManagedProcess& process);
  void save(const ManagedProcess& process);
  bool take_next_number(std::uint64_t& number, std::string& error);
  void mark_lost(ManagedProcess& process);

  std::string state_dir_;
  int listen_fd_;
  ChildReaper& reaper_;
  GroupKiller killer_;
  BasicPollSet<SupervisorPollOwner> poll_set_;
  std::vector<std::unique_ptr<SupervisorClient>> clients_;
  std::vector<std::unique_ptr<ManagedProcess>> processes_;  // oldest first
  std::uint64_t next_number_ = 1;
  std::string instance_;
  std::string boot_id_;
  std::string default_working_directory_;
};

}  // namespace vc::exec_agent
