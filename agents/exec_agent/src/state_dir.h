// state_dir.h — the folder where the process supervisor keeps its state (docs/processes.md,
// "Where processes live"): its socket, lock, log, next id, and one folder per process.
//
// /var/tmp/vc-processes-<uid> (or /tmp/... where /var/tmp is missing), mode 0700, owned by the
// computer's user. VC_PROCESS_STATE_DIR names another folder (for tests, and for operators who
// want the state elsewhere). A folder that exists but that others could read or write is
// refused rather than used: its socket starts processes as its owner. Single-threaded.
#pragma once

#include <optional>
#include <string>

namespace vc::exec_agent {

// The folder's path for this user (the variable, else the default); nothing is created.
std::string state_dir_path();

// Creates the folder when missing (mode 0700) and checks that it is a folder (not a link)
// owned by this user that nobody else can enter. The reason it cannot be used, or nothing.
std::optional<std::string> prepare_state_dir(const std::string& path);

}  // namespace vc::exec_agent
