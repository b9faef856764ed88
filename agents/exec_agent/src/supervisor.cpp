// supervisor.cpp — the process supervisor's setup and its loop: the socket, the clients, the
// children, the timers (supervisor.h). Requests: supervisor_requests.cpp; the table of
// processes and their records: supervisor_processes.cpp.
#include "supervisor.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include "log.h"
#include "read_buffer.h"
#include "spawn.h"
#include "state_dir.h"

namespace vc::exec_agent {

using agent_common::monotonic_ms;

namespace {

constexpr std::size_t kSupervisorLogBound = 1u << 20;
// While a kill's answer waits for a process group to be gone, how often to look again: the
// members' deaths do not all reach the supervisor as SIGCHLD.
constexpr Millis kGroupRecheckMs = 10;

// The exclusive lock that makes this the one supervisor of `state_dir`: -1 when another holds
// it (or it cannot be taken); the descriptor stays open, and the lock held, for the daemon's life.
int take_supervisor_lock(const std::string& state_dir) {
  const std::string path = state_dir + "/supervisor.lock";
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// The log goes where stderr goes: log_line writes to fd 2.
void log_to_file(const std::string& state_dir) {
  const std::string path = state_dir + "/supervisor.log";
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
  if (fd < 0) return;
  dup2(fd, STDERR_FILENO);
  close(fd);
  bound_log_file(kSupervisorLogBound);
}

// A stale socket (its supervisor died) is replaced: the lock says nobody else listens on it.
int listen_on_socket(const std::string& state_dir, std::string& error) {
  const std::string path = state_dir + "/supervisor.sock";
  sockaddr_un address{};
  if (path.size() >= sizeof address.sun_path) {
    error = "the socket path '" + path + "' is too long";
    return -1;
  }
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  unlink(path.c_str());
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0 || bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 ||
      chmod(path.c_str(), 0600) != 0 || listen(fd, 64) != 0) {
    error = "cannot listen on '" + path + "': " + std::strerror(errno);
    if (fd >= 0) close(fd);
    return -1;
  }
  return fd;
}

}  // namespace

int run_process_supervisor(const std::string& state_dir) {
  if (const auto problem = prepare_state_dir(state_dir)) {
    log_line("%s", problem->c_str());
    return 1;
  }
  // Two callers may start a supervisor at the same moment: the one that gets the lock runs,
  // the other leaves quietly, and both callers connect to the first.
  if (take_supervisor_lock(state_dir) < 0) return 0;
  log_to_file(state_dir);
  // Not in any folder a process might want to remove.
  if (chdir("/") != 0) log_line("cannot change to /: %s", std::strerror(errno));
  // A client that hangs up before its answer is written must be an EPIPE, not the end.
  signal(SIGPIPE, SIG_IGN);

  ChildReaper reaper;
  if (std::string error; !reaper.open(error)) {
    log_line("cannot watch for child exits (%s): exiting", error.c_str());
    return 1;
  }
  std::string error;
  const int listen_fd = listen_on_socket(state_dir, error);
  if (listen_fd < 0) {
    log_line("%s: exiting", error.c_str());
    return 1;
  }
  Supervisor supervisor(state_dir, listen_fd, reaper);
  if (!supervisor.load(error)) {
    log_line("%s: exiting", error.c_str());
    return 1;
  }
  log_line("supervisor pid %d, uid %d, in %s: ready", static_cast<int>(getpid()),
           static_cast<int>(getuid()), state_dir.c_str());
  supervisor.run();
}

Supervisor::Supervisor(std::string state_dir, int listen_fd, ChildReaper& reaper)
    : state_dir_(std::move(state_dir)), listen_fd_(listen_fd), reaper_(reaper) {
  std::uint64_t random_id = 0;
  if (getrandom(&random_id, sizeof random_id, 0) != sizeof random_id) {
    random_id = static_cast<std::uint64_t>(monotonic_ms()) ^ static_cast<std::uint64_t>(getpid());
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(random_id));
  instance_ = text;
  boot_id_ = current_boot_id();
  const char* home = std::getenv("HOME");
  struct stat info {};
  default_working_directory_ =
      home != nullptr && *home == '/' && stat(home, &info) == 0 && S_ISDIR(info.st_mode) ? home
                                                                                          : "/";
}

Supervisor::~Supervisor() {
  for (const auto& client : clients_) close(client->fd);
  close(listen_fd_);
}

void Supervisor::run() {
  for (;;) {
    Millis now = monotonic_ms();
    run_timers(now);
    answer_held_requests(now);
    forget_old_processes();
    drop_finished_clients(now);

    build_poll_set();
    if (poll_set_.wait(poll_timeout(now)) == 0) continue;
    now = monotonic_ms();
    for (std::size_t index = 0; index < poll_set_.size(); ++index) {
      if (poll_set_.ready_events(index) != 0) handle_ready(index, now);
    }
  }
}

void Supervisor::build_poll_set() {
  poll_set_.clear();
  if (clients_.size() < kMaxClients) {
    poll_set_.add(listen_fd_, POLLIN, {SupervisorTarget::kListener});
  }
  poll_set_.add(reaper_.fd(), POLLIN, {SupervisorTarget::kChildSignals});
  for (const auto& client : clients_) {
    if (client->done) continue;
    // Before the answer: its request, or (while it is held) the client hanging up. After: the
    // answer going out.
    const short events = client->answer.empty() ? POLLIN : POLLOUT;
    poll_set_.add(client->fd, events, {SupervisorTarget::kClient, client.get()});
  }
  for (const auto& process : processes_) {
    if (process->stdout_fd() >= 0) {
      poll_set_.add(process->stdout_fd(), POLLIN, {SupervisorTarget::kStdout, nullptr, process.get()});
    }
    if (process->stderr_fd() >= 0) {
      poll_set_.add(process->stderr_fd(), POLLIN, {SupervisorTarget::kStderr, nullptr, process.get()});
    }
    if (process->wants_to_write()) {
      poll_set_.add(process->stdin_fd(), POLLOUT, {SupervisorTarget::kStdin, nullptr, process.get()});
    }
  }
}

int Supervisor::poll_timeout(Millis now) const {
  std::optional<Millis> nearest = killer_.next_deadline();
  const auto consider = [&nearest](std::optional<Millis> deadline) {
    if (deadline && (!nearest || *deadline < *nearest)) nearest = deadline;
  };
  for (const auto& process : processes_) consider(process->settle_deadline());
  for (const auto& client : clients_) {
    if (!client->held) {
      if (client->answer.empty()) consider(client->request_due);
      continue;
    }
    consider(client->answer_by);
    consider(client->gather_until);
    consider(client->quiet_until);
    if (client->held->op == RequestOp::kKill) consider(now + kGroupRecheckMs);
  }
  if (!nearest) return -1;
  return static_cast<int>(std::clamp<Millis>(*nearest - now, 0, 60'000));
}

void Supervisor::handle_ready(std::size_t index, Millis now) {
  const SupervisorPollOwner& owner = poll_set_.owner(index);
  switch (owner.target) {
    case SupervisorTarget::kListener: return accept_clients(now);
    case SupervisorTarget::kChildSignals: return reap_children();
    case SupervisorTarget::kClient:
      if (owner.client->done) return;
      if (owner.client->answer.empty()) return read_client(*owner.client, now);
      return write_answer(*owner.client);
    case SupervisorTarget::kStdout: return owner.process->on_output_ready(StreamId::kStdout);
    case SupervisorTarget::kStderr: return owner.process->on_output_ready(StreamId::kStderr);
    case SupervisorTarget::kStdin: return owner.process->on_input_writable();
  }
}

void Supervisor::accept_clients(Millis now) {
  while (clients_.size() < kMaxClients) {
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) return;  // EAGAIN: no more waiting; anything else: try again next turn
    clients_.push_back(std::make_unique<SupervisorClient>(fd, now));
  }
}

void Supervisor::read_client(SupervisorClient& client, Millis now) {
  const auto buffer = shared_read_buffer();
  const ssize_t got = read(client.fd, buffer.data(), buffer.size());
  if (got < 0 && (errno == EAGAIN || errno == EINTR)) return;
  if (got <= 0 || client.held) {
    // Hung up (or, while its request is held, sent more than one request): nobody to answer.
    client.done = true;
    return;
  }
  client.reader.feed(std::string_view(buffer.data(), static_cast<std::size_t>(got)));
  if (client.reader.malformed()) {
    log_line("dropped a client that sent a malformed or oversized message");
    client.done = true;
    return;
  }
  if (const auto body = client.reader.body()) handle_request(client, *body, now);
}

void Supervisor::write_answer(SupervisorClient& client) {
  while (client.answer_sent < client.answer.size()) {
    const ssize_t wrote = write(client.fd, client.answer.data() + client.answer_sent,
                                client.answer.size() - client.answer_sent);
    if (wrote > 0) {
      client.answer_sent += static_cast<std::size_t>(wrote);
      continue;
    }
    if (wrote < 0 && (errno == EAGAIN || errno == EINTR)) return;
    break;  // the client is gone
  }
  client.done = true;
}

void Supervisor::drop_finished_clients(Millis now) {
  std::erase_if(clients_, [now](const std::unique_ptr<SupervisorClient>& client) {
    if (!client->done && !client->held && client->answer.empty() && now >= client->request_due) {
      client->done = true;  // connected, but never sent a whole request
    }
    if (!client->done) return false;
    close(client->fd);
    return true;
  });
}

void Supervisor::reap_children() {
  reaper_.reap([this](pid_t pid, int wait_status) {
    // Other pids are orphans the supervisor adopted as subreaper: reaped, nothing more.
    ManagedProcess* process = find_running_by_pid(pid);
    if (process == nullptr) return;
    process->on_leader_exit(wait_status);
    log_line("%s (pid %d) ended: exit code %d", process->id().c_str(), static_cast<int>(pid),
             process->record().exit_code.value_or(-1));
    save(*process);
  });
}

void Supervisor::run_timers(Millis now) {
  killer_.on_timer(now);
  for (const auto& process : processes_) {
    if (process->note_full_logs()) save(*process);
  }
}

}  // namespace vc::exec_agent
