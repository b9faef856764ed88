// vc-exec-agent — runs the commands of one computer for the container plugins, over one
// long-lived engine exec: frames in on stdin, frames out on stdout, its own log on stderr.
// The protocol and its rules: docs/exec-agent.md. Built statically (no shared libraries, no NSS
// look-ups), so the same file runs in any Linux image of its architecture.
//
// The same program has two more modes for the processes that outlive a command
// (docs/processes.md): `process-call` (one request to the process supervisor, from stdin to
// stdout) and `process-supervisor <state dir>` (the supervisor itself, a daemon).
#include <fcntl.h>
#include <unistd.h>

#include <csignal>
#include <string>

#include "agent.h"
#include "channel_io.h"
#include "child_reaper.h"
#include "log.h"
#include "messages.h"
#include "process_call.h"
#include "supervisor.h"

#ifndef VC_EXEC_AGENT_VERSION
#define VC_EXEC_AGENT_VERSION "dev"
#endif

namespace {

using namespace vc::exec_agent;

// Pipes are created while fds 0-2 are held open, so a command's pipe can never land on 0, 1 or
// 2 (where dup2 onto itself would leave it close-on-exec). Started without one of them, the
// agent puts /dev/null there.
void ensure_standard_fds_open() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (fcntl(fd, F_GETFD) < 0) open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
  }
}

// Nothing the engine's exec may have left open reaches a command: everything the agent opens
// itself is close-on-exec, so after this no descriptor leaks into what it runs.
void close_inherited_fds() {
  if (close_range(3, ~0u, 0) == 0) return;
  const long limit = sysconf(_SC_OPEN_MAX);
  for (int fd = 3; fd < (limit > 0 && limit < 65536 ? limit : 65536); ++fd) close(fd);
}

void make_non_blocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

}  // namespace

int main(int argc, char** argv) {
  // `vc-exec-agent --version`: the version its hello frame carries, for people and tests.
  if (argc == 2 && std::string(argv[1]) == "--version") {
    const std::string line = std::string(VC_EXEC_AGENT_VERSION) + "\n";
    return write(STDOUT_FILENO, line.data(), line.size()) == static_cast<ssize_t>(line.size()) ? 0 : 1;
  }
  ensure_standard_fds_open();
  close_inherited_fds();
  if (argc == 2 && std::string(argv[1]) == "process-call") return run_process_call();
  if (argc == 3 && std::string(argv[1]) == "process-supervisor") {
    return run_process_supervisor(argv[2]);
  }
  if (argc != 1) {
    log_line("usage: vc-exec-agent [--version | process-call | process-supervisor <state dir>]");
    return 2;
  }
  // A plugin that goes away must show up as a write error (EPIPE) the loop handles, not kill
  // the agent before it has ended its commands.
  signal(SIGPIPE, SIG_IGN);
  // No PR_SET_NO_NEW_PRIVS: commands must be able to gain privileges the image allows them
  // (sudo, setuid helpers), exactly as they can through the engine's exec.

  ChildReaper reaper;
  if (std::string error; !reaper.open(error)) {
    log_line("cannot watch for child exits (%s): exiting", error.c_str());
    return 1;
  }
  make_non_blocking(STDIN_FILENO);
  make_non_blocking(STDOUT_FILENO);

  ChannelIo channel(STDIN_FILENO, STDOUT_FILENO);
  channel.send(FrameType::kHello, 0, hello_payload());
  log_line("version %s, protocol %u, pid %d, uid %d: ready", VC_EXEC_AGENT_VERSION,
           kProtocolVersion, static_cast<int>(getpid()), static_cast<int>(getuid()));

  Agent agent(channel, reaper);
  return agent.run();
}
