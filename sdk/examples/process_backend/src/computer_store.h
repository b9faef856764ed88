// computer_store.h — the process backend's "computers": one directory each under the scratch root.
//
//   <scratch-root>/<computer_id>/
//       computer.json   creation time and the temporary flag
//       workspace/      where commands run by default
//
// Nothing here is isolated: the directory is only a default working directory, and commands
// can read and change anything the host's user can. Every function does blocking file-system
// I/O and is called on a plugin worker thread, never on the host's loop thread.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include <vc-backend-1/cpp/op_result.h>

namespace vc_process_backend {

using vc::sdk::OpResult;

class ComputerStore {
 public:
  explicit ComputerStore(std::filesystem::path root) : root_(std::move(root)) {}

  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path directory(const std::string& computer_id) const;
  std::filesystem::path workspace(const std::string& computer_id) const;

  // [worker] All of these take a computer_id that already passed vc::sdk::is_valid_computer_id().

  // Creates the scratch root if needed; the validate probe.
  OpResult check_root() const;
  // Creates the computer. An existing one is returned unchanged when `adopt_existing`, else
  // refused with VC_E_ALREADY_EXISTS.
  OpResult create(const std::string& computer_id, bool temporary, bool adopt_existing) const;
  // Computer info, or VC_E_NOT_FOUND "No computer named X".
  OpResult info(const std::string& computer_id) const;
  // {"computers":[...]}: every directory under the root whose name is a valid computer_id.
  OpResult list() const;
  // {"computer_id","removed"}: removed=false when it did not exist.
  OpResult remove(const std::string& computer_id) const;
  // Wipes the computer's files and recreates it empty, keeping the temporary flag.
  OpResult factory_reset(const std::string& computer_id) const;

  bool exists(const std::string& computer_id) const;

 private:
  nlohmann::json describe(const std::string& computer_id) const;
  OpResult make(const std::string& computer_id, bool temporary) const;

  std::filesystem::path root_;
};

}  // namespace vc_process_backend
