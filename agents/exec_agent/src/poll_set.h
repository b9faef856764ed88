// poll_set.h — the descriptors of one loop turn and what each one belongs to.
//
// Rebuilt every turn from the current state (which commands exist, whether output is pending,
// whether the channel is congested): with a few dozen descriptors at most this costs less than
// keeping an epoll set in step, and a descriptor is never polled after its owner closed it.
// The vectors keep their capacity, so a turn allocates nothing. The exec agent's loop and the
// process supervisor's each use it with their own kind of owner.
#pragma once

#include <poll.h>

#include <cstddef>
#include <vector>

namespace vc::exec_agent {

class Command;

enum class PollTarget { kChannelInput, kChannelOutput, kChildSignals, kStdout, kStderr, kStdin };

struct PollOwner {
  PollTarget target;
  Command* command = nullptr;  // for kStdout, kStderr, kStdin
};

template <typename Owner>
class BasicPollSet {
 public:
  void clear() {
    fds_.clear();
    owners_.clear();
  }
  void add(int fd, short events, Owner owner) {
    fds_.push_back(pollfd{fd, events, 0});
    owners_.push_back(owner);
  }
  // poll(2); returns the number of ready descriptors, 0 on timeout or interruption.
  int wait(int timeout_ms) {
    const int ready = poll(fds_.data(), fds_.size(), timeout_ms);
    return ready < 0 ? 0 : ready;
  }
  std::size_t size() const { return fds_.size(); }
  short ready_events(std::size_t index) const { return fds_[index].revents; }
  const Owner& owner(std::size_t index) const { return owners_[index]; }

 private:
  std::vector<pollfd> fds_;
  std::vector<Owner> owners_;
};

using PollSet = BasicPollSet<PollOwner>;

}  // namespace vc::exec_agent
