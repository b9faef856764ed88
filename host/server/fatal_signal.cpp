// fatal_signal.cpp — see fatal_signal.h.
//
// Everything the handler does is async-signal-safe: it reads the fixed table of plugin segments
// (plugin_loader/plugin_mappings.h), assembles the line in a buffer on its own stack and writes it
// with write(2); no allocation, no stdio, no locks.
#include "server/fatal_signal.h"

#include <signal.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <iterator>

#include "plugin_loader/plugin_mappings.h"

namespace vc::server {
namespace {

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};

struct sigaction g_previous[std::size(kFatalSignals)];
std::atomic<bool> g_installed{false};
std::atomic<bool> g_reported{false};  // two threads crashing at once print one line

// The main thread's alternate stack: a stack overflow leaves no room on the stack itself.
alignas(16) char g_alternate_stack[64 * 1024];

constexpr const char kPrefix[] = "mcp-virtual-computer: fatal signal ";
constexpr const char kSuffix[] =
    "; the server stops. The computer and its files are not affected.\n";

#if defined(__x86_64__) || defined(__aarch64__)
constexpr bool kKnowsInstructionAddress = true;
#else
constexpr bool kKnowsInstructionAddress = false;
#endif

const char* fatal_signal_name(int signal_number) {
  switch (signal_number) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGILL: return "SIGILL";
    case SIGFPE: return "SIGFPE";
    case SIGABRT: return "SIGABRT";
    default: return "(unknown)";
  }
}

uintptr_t interrupted_instruction(const void* context) {
  [[maybe_unused]] const auto* state = static_cast<const ucontext_t*>(context);
#if defined(__x86_64__)
  return static_cast<uintptr_t>(state->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return static_cast<uintptr_t>(state->uc_mcontext.pc);
#else
  return 0;
#endif
}

// Big enough for the longest line: the recorded path and name are bounded well below it.
class Line {
 public:
  void add(const char* text) {
    while (*text != '\0' && length_ < sizeof text_) text_[length_++] = *text++;
  }

  void write_to_stderr() const {
    size_t written = 0;
    while (written < length_) {
      const ssize_t count = ::write(STDERR_FILENO, text_ + written, length_ - written);
      if (count > 0) {
        written += static_cast<size_t>(count);
      } else if (count < 0 && errno == EINTR) {
        continue;
      } else {
        return;
      }
    }
  }

 private:
  char text_[4096];
  size_t length_ = 0;
};

void report(int signal_number, const siginfo_t* info, const void* context) {
  Line line;
  line.add(kPrefix);
  line.add(fatal_signal_name(signal_number));
  // A positive si_code: the kernel's, for the instruction that faulted. Otherwise the signal was
  // raised (abort(), raise()) or sent, and the interrupted instruction proves nothing.
  const bool caused_by_instruction = info != nullptr && info->si_code > 0;
  if (caused_by_instruction && kKnowsInstructionAddress && context != nullptr) {
    plugins::MappedPlugin plugin;
    if (plugins::find_mapped_plugin(interrupted_instruction(context), plugin)) {
      line.add(" in the backend plugin ");
      if (*plugin.name != '\0') {
        line.add("'");
        line.add(plugin.name);
        line.add("' (");
        line.add(plugin.path);
        line.add(")");
      } else {
        line.add(plugin.path);
      }
    } else {
      line.add(" in the server itself");
    }
  }
  line.add(kSuffix);
  line.write_to_stderr();
}

void restore_previous_handler(int signal_number) {
  for (size_t index = 0; index < std::size(kFatalSignals); ++index) {
    if (kFatalSignals[index] == signal_number) sigaction(signal_number, &g_previous[index], nullptr);
  }
}

void on_fatal_signal(int signal_number, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  if (!g_reported.exchange(true)) report(signal_number, info, context);
  restore_previous_handler(signal_number);
  errno = saved_errno;
  // A fault recurs by itself: returning re-runs the instruction, and the restored handler gets
  // the real fault with its real context (a sanitizer then reports where it happened). A raised
  // or sent signal does not, so it is raised again; blocked until this handler returns.
  if (info == nullptr || info->si_code <= 0) raise(signal_number);
}

// Only where none is set: a sanitizer runtime has already given the thread one, and it frees
// the one it finds when the thread ends.
void ensure_alternate_stack() {
  stack_t current{};
  if (sigaltstack(nullptr, &current) != 0 || (current.ss_flags & SS_DISABLE) == 0) return;
  stack_t ours{};
  ours.ss_sp = g_alternate_stack;
  ours.ss_size = sizeof g_alternate_stack;
  sigaltstack(&ours, nullptr);
}

}  // namespace

void install_fatal_signal_report() {
  if (g_installed.exchange(true)) return;
  ensure_alternate_stack();
  struct sigaction action {};
  action.sa_sigaction = &on_fatal_signal;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  for (size_t index = 0; index < std::size(kFatalSignals); ++index) {
    sigaction(kFatalSignals[index], &action, &g_previous[index]);
  }
}

}  // namespace vc::server
