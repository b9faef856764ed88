// backend_ops.h — the vc_backend_ops table of a C++ backend class, its thunks written once.
//
// Part of the optional C++20 layer of the backend SDK (target VcBackendSdk::cpp).
//
//   class MyBackend {
//    public:
//     const vc::sdk::HostLog& log() const;                          // required
//     void cancel(const vc_op* op);                                 // required: ops->cancel()
//     void destroy();                                               // required: ops->destroy(),
//                                                                   //   deletes the instance
//     vc_status restart(vc::sdk::ComputerRequest request, const vc_op* op);   // any operations
//     vc_status exec(vc::sdk::ExecRequest request, std::string_view stdin_bytes, const vc_op* op);
//   };
//   vc_backend handle = vc::sdk::make_backend_handle(backend);  // backend: MyBackend*
//
// An operation is a member named after its slot of vc_backend_ops (create_computer for the
// `create` slot, which leaves `create` free for a factory), taking the slot's typed request
// (requests.h) and the op; a slot without a member is NULL, which the host answers with
// VC_E_UNSUPPORTED. A `desktop_action(DesktopActionRequest, const vc_op*)` member publishes the
// desktop-control extension (ext/vc_backend_desktop_control.h) through get_extension; the five
// members create_checkpoint, list_checkpoints, restore_checkpoint, delete_checkpoint
// (CheckpointRequest, ComputerRequest for the list) and fork_checkpoint (ForkRequest) publish
// the checkpoints extension (ext/vc_backend_checkpoints.h), which needs all five; the five
// members start_process (ProcessStartRequest), read_process (ProcessReadRequest),
// write_process (ProcessWriteRequest), kill_process (ProcessKillRequest) and list_processes
// (ComputerRequest) publish the processes extension (ext/vc_backend_processes.h), which needs
// all five.
//
// Every thunk, on the host's loop thread:
//  - parses the borrowed request document (NULL or empty means {});
//  - parses the typed request and calls the member, returning its status. The member follows
//    the op contract: VC_OK means exactly one completion follows, an error means none does;
//  - never rejects an op (deprecated since ABI 1.1: a rejection reaches the user without a
//    message). Whatever would have been a rejection becomes an op accepted and completed at
//    once, with a sentence the user reads:
//      a document that is not a JSON object, or InvalidRequest thrown by the parse or by the
//      member before it accepted the op: VC_E_INVALID_ARGUMENT, "Invalid <slot> request: <why>";
//      an error status returned by the member: that status, with a generic sentence (a member
//      should rather complete the op itself, with a message that says why);
//      an exception (nothing may unwind into the host): std::bad_alloc gives VC_E_NO_MEMORY,
//      anything else VC_E_FAILED (logged). The member must not have accepted the op then.
//    Only when even that completion cannot be built (out of memory) is the status returned.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>
#include <vc-backend-1/vc_sdk.h>

#include "host_log.h"
#include "op_result.h"
#include "requests.h"

namespace vc::sdk {

namespace backend_ops_detail {

template <class Backend>
concept BackendCore = requires(Backend& backend, const vc_op* op) {
  { std::as_const(backend).log() } -> std::convertible_to<const HostLog&>;
  backend.cancel(op);
  backend.destroy();
};

template <class Backend>
Backend& backend_of(vc_backend* self) {
  return *static_cast<Backend*>(self->plugin_ctx);
}

// Runs `call`, turning every exception into a status: nothing may unwind into the host.
template <class Backend, class Call>
vc_status guarded(vc_backend* self, const char* what, Call&& call) noexcept {
  try {
    return call();
  } catch (const std::bad_alloc&) {
    return VC_E_NO_MEMORY;
  } catch (const std::exception& e) {
    try {
      backend_of<Backend>(self).log().error(std::string(what) + " failed: " + e.what());
    } catch (...) {
    }
    return VC_E_FAILED;
  } catch (...) {
    return VC_E_FAILED;
  }
}

// [loop-thread] Completes an op nobody accepted with `status` and the sentence `describe()`
// builds, and returns the status the op function answers: VC_OK, or `status` itself (a
// rejection, the one answer left) when the completion could not be built.
template <class Describe>
vc_status complete_refused(const vc_op* op, vc_status status, Describe&& describe) noexcept {
  try {
    complete_op(op, OpResult::error(status, describe()));
    return VC_OK;
  } catch (...) {
    return status;
  }
}

// Parses the typed request and calls `member` with it; see the file comment for the rules.
template <class Backend, class Request, class Member>
vc_status run_op(vc_backend* self, const char* slot, const char* json, size_t len, const vc_op* op,
                 Member&& member) noexcept {
  const auto invalid_request = [slot](const std::string& why) {
    return "Invalid " + std::string(slot) + " request: " + why;
  };
  try {
    Backend& backend = backend_of<Backend>(self);
    nlohmann::json document =
        json == nullptr || len == 0
            ? nlohmann::json::object()
            : nlohmann::json::parse(std::string_view(json, len), nullptr, /*allow_exceptions=*/false);
    if (!document.is_object()) {
      backend.log().warn(std::string(slot) + ": the request is not a JSON object");
      return complete_refused(op, VC_E_INVALID_ARGUMENT,
                              [&] { return invalid_request("it is not a JSON object"); });
    }
    vc_status status = VC_OK;
    try {
      status = member(backend, Request::parse(document));
    } catch (const InvalidRequest& invalid) {
      backend.log().warn(std::string(slot) + ": invalid request: " + invalid.what());
      return complete_refused(op, VC_E_INVALID_ARGUMENT,
                              [&] { return invalid_request(invalid.what()); });
    }
    if (status >= 0) return status;
    return complete_refused(op, status, [&] {
      return "The backend refused the " + std::string(slot) + " request (status " +
             std::to_string(status) + ") without saying why.";
    });
  } catch (const std::bad_alloc&) {
    return complete_refused(op, VC_E_NO_MEMORY, [] { return std::string("Out of memory."); });
  } catch (const std::exception& e) {
    try {
      backend_of<Backend>(self).log().error(std::string(slot) + " failed: " + e.what());
    } catch (...) {
    }
    return complete_refused(op, VC_E_FAILED, [&] {
      return "The backend failed " + std::string(slot) + ": " + e.what();
    });
  } catch (...) {
    return complete_refused(op, VC_E_FAILED, [&] {
      return "The backend failed " + std::string(slot) + " with an unknown error.";
    });
  }
}

// One slot: whether the backend implements it, and its C thunk.
#define VC_SDK_ASYNC_SLOT(slot, member_name, RequestType)                                        \
  template <class Backend>                                                                       \
  concept Has_##slot = requires(Backend& backend, RequestType request, const vc_op* op) {        \
    { backend.member_name(std::move(request), op) } -> std::same_as<vc_status>;                  \
  };                                                                                             \
  template <class Backend>                                                                       \
  vc_status VC_CALL slot##_thunk(vc_backend* self, const char* json, size_t len,                 \
                                 const vc_op* op) noexcept {                                     \
    return run_op<Backend, RequestType>(self, #slot, json, len, op,                              \
                                        [op](Backend& backend, RequestType request) {            \
                                          return backend.member_name(std::move(request), op);    \
                                        });                                                      \
  }                                                                                              \
  template <class Backend>                                                                       \
  constexpr vc_async_op_fn slot##_slot() {                                                       \
    if constexpr (Has_##slot<Backend>) {                                                         \
      return &slot##_thunk<Backend>;                                                             \
    } else {                                                                                     \
      return nullptr;                                                                            \
    }                                                                                            \
  }

VC_SDK_ASYNC_SLOT(validate, validate, ValidateRequest)
VC_SDK_ASYNC_SLOT(ensure_image, ensure_image, EnsureImageRequest)
VC_SDK_ASYNC_SLOT(create, create_computer, CreateRequest)
VC_SDK_ASYNC_SLOT(attach, attach, AttachRequest)
VC_SDK_ASYNC_SLOT(list, list, ListRequest)
VC_SDK_ASYNC_SLOT(restart, restart, ComputerRequest)
VC_SDK_ASYNC_SLOT(remove, remove, ComputerRequest)
VC_SDK_ASYNC_SLOT(factory_reset, factory_reset, ComputerRequest)
VC_SDK_ASYNC_SLOT(set_network_access, set_network_access, ToggleRequest)
VC_SDK_ASYNC_SLOT(get_desktop_environment, get_desktop_environment, ComputerRequest)
VC_SDK_ASYNC_SLOT(set_desktop_environment, set_desktop_environment, ToggleRequest)
VC_SDK_ASYNC_SLOT(wait_for_death, wait_for_death, ComputerRequest)
VC_SDK_ASYNC_SLOT(tool_instructions, tool_instructions, ToolInstructionsRequest)
VC_SDK_ASYNC_SLOT(desktop_action, desktop_action, DesktopActionRequest)
VC_SDK_ASYNC_SLOT(create_checkpoint, create_checkpoint, CheckpointRequest)
VC_SDK_ASYNC_SLOT(list_checkpoints, list_checkpoints, ComputerRequest)
VC_SDK_ASYNC_SLOT(restore_checkpoint, restore_checkpoint, CheckpointRequest)
VC_SDK_ASYNC_SLOT(fork_checkpoint, fork_checkpoint, ForkRequest)
VC_SDK_ASYNC_SLOT(delete_checkpoint, delete_checkpoint, CheckpointRequest)
VC_SDK_ASYNC_SLOT(start_process, start_process, ProcessStartRequest)
VC_SDK_ASYNC_SLOT(read_process, read_process, ProcessReadRequest)
VC_SDK_ASYNC_SLOT(write_process, write_process, ProcessWriteRequest)
VC_SDK_ASYNC_SLOT(kill_process, kill_process, ProcessKillRequest)
VC_SDK_ASYNC_SLOT(list_processes, list_processes, ComputerRequest)

#undef VC_SDK_ASYNC_SLOT

template <class Backend>
concept HasExec = requires(Backend& backend, ExecRequest request, const vc_op* op) {
  { backend.exec(std::move(request), std::string_view(), op) } -> std::same_as<vc_status>;
};

template <class Backend>
vc_status VC_CALL exec_thunk(vc_backend* self, const char* json, size_t len,
                             const uint8_t* stdin_data, size_t stdin_len, const vc_op* op) noexcept {
  std::string_view stdin_bytes;
  if (stdin_data != nullptr) {
    stdin_bytes = std::string_view(reinterpret_cast<const char*>(stdin_data), stdin_len);
  }
  return run_op<Backend, ExecRequest>(self, "exec", json, len, op,
                                      [op, stdin_bytes](Backend& backend, ExecRequest request) {
                                        return backend.exec(std::move(request), stdin_bytes, op);
                                      });
}

template <class Backend>
constexpr vc_exec_fn exec_slot() {
  if constexpr (HasExec<Backend>) {
    return &exec_thunk<Backend>;
  } else {
    return nullptr;
  }
}

template <class Backend>
void VC_CALL cancel_thunk(vc_backend* self, const vc_op* op) noexcept {
  guarded<Backend>(self, "cancel", [&] {
    backend_of<Backend>(self).cancel(op);
    return VC_OK;
  });
}

template <class Backend>
void VC_CALL destroy_thunk(vc_backend* self) noexcept {
  // Nothing to report to if this throws; what matters is that destroy() joined its threads.
  guarded<Backend>(self, "destroy", [&] {
    backend_of<Backend>(self).destroy();
    return VC_OK;
  });
}

template <class Backend>
inline constexpr vc_backend_desktop_control kDesktopControl = {
    .struct_size = sizeof(vc_backend_desktop_control),
    .reserved0 = 0,
    .desktop_action = desktop_action_slot<Backend>(),
};

template <class Backend>
concept HasCheckpoints = Has_create_checkpoint<Backend> && Has_list_checkpoints<Backend> &&
                         Has_restore_checkpoint<Backend> && Has_fork_checkpoint<Backend> &&
                         Has_delete_checkpoint<Backend>;

template <class Backend>
inline constexpr vc_backend_checkpoints kCheckpoints = {
    .struct_size = sizeof(vc_backend_checkpoints),
    .reserved0 = 0,
    .create_checkpoint = create_checkpoint_slot<Backend>(),
    .list_checkpoints = list_checkpoints_slot<Backend>(),
    .restore_checkpoint = restore_checkpoint_slot<Backend>(),
    .fork_checkpoint = fork_checkpoint_slot<Backend>(),
    .delete_checkpoint = delete_checkpoint_slot<Backend>(),
};

template <class Backend>
concept HasProcesses = Has_start_process<Backend> && Has_read_process<Backend> &&
                       Has_write_process<Backend> && Has_kill_process<Backend> &&
                       Has_list_processes<Backend>;

template <class Backend>
inline constexpr vc_backend_processes kProcesses = {
    .struct_size = sizeof(vc_backend_processes),
    .reserved0 = 0,
    .start_process = start_process_slot<Backend>(),
    .read_process = read_process_slot<Backend>(),
    .write_process = write_process_slot<Backend>(),
    .kill_process = kill_process_slot<Backend>(),
    .list_processes = list_processes_slot<Backend>(),
};

template <class Backend>
const void* VC_CALL get_extension_thunk(vc_backend* /*self*/, const char* id) noexcept {
  if (id == nullptr) return nullptr;
  const std::string_view wanted(id);
  if constexpr (Has_desktop_action<Backend>) {
    if (wanted == VC_EXT_BACKEND_DESKTOP_CONTROL) return &kDesktopControl<Backend>;
  }
  if constexpr (HasCheckpoints<Backend>) {
    if (wanted == VC_EXT_BACKEND_CHECKPOINTS) return &kCheckpoints<Backend>;
  }
  if constexpr (HasProcesses<Backend>) {
    if (wanted == VC_EXT_BACKEND_PROCESSES) return &kProcesses<Backend>;
  }
  return nullptr;
}

template <class Backend>
constexpr auto get_extension_slot() -> const void*(VC_CALL*)(vc_backend*, const char*) {
  if constexpr (Has_desktop_action<Backend> || HasCheckpoints<Backend> || HasProcesses<Backend>) {
    return &get_extension_thunk<Backend>;
  } else {
    return nullptr;
  }
}

template <class Backend>
inline constexpr vc_backend_ops kOps = {
    .struct_size = sizeof(vc_backend_ops),
    .reserved0 = 0,
    .destroy = &destroy_thunk<Backend>,
    .cancel = &cancel_thunk<Backend>,
    .get_extension = get_extension_slot<Backend>(),
    .validate = validate_slot<Backend>(),
    .ensure_image = ensure_image_slot<Backend>(),
    .create = create_slot<Backend>(),
    .attach = attach_slot<Backend>(),
    .list = list_slot<Backend>(),
    .restart = restart_slot<Backend>(),
    .remove = remove_slot<Backend>(),
    .factory_reset = factory_reset_slot<Backend>(),
    .set_network_access = set_network_access_slot<Backend>(),
    .get_desktop_environment = get_desktop_environment_slot<Backend>(),
    .set_desktop_environment = set_desktop_environment_slot<Backend>(),
    .exec = exec_slot<Backend>(),
    .wait_for_death = wait_for_death_slot<Backend>(),
    .tool_instructions = tool_instructions_slot<Backend>(),
};

}  // namespace backend_ops_detail

// The operations table forwarding to Backend's members; static, so valid while the module is
// loaded.
template <class Backend>
  requires backend_ops_detail::BackendCore<Backend>
const vc_backend_ops& backend_ops() {
  return backend_ops_detail::kOps<Backend>;
}

// [loop-thread] The vc_backend that create_backend() hands to the host for `backend`. Keep it
// inside the instance: the host holds the pointer until destroy().
template <class Backend>
  requires backend_ops_detail::BackendCore<Backend>
vc_backend make_backend_handle(Backend* backend) {
  return vc_backend{.struct_size = sizeof(vc_backend),
                    .reserved0 = 0,
                    .plugin_ctx = backend,
                    .ops = &backend_ops<Backend>()};
}

// [loop-thread] Copies `message` into create_backend()'s error buffer, NUL-terminated and
// truncated to fit.
inline void write_create_error(char* errbuf, size_t errbuf_cap, std::string_view message) {
  if (errbuf == nullptr || errbuf_cap == 0) return;
  size_t n = std::min(message.size(), errbuf_cap - 1);
  std::memcpy(errbuf, message.data(), n);
  errbuf[n] = '\0';
}

// [loop-thread] The body of a descriptor's create_backend(): runs `create` (which returns a
// status and, on failure, sets the std::string& it is given to an actionable sentence) and
// writes that sentence, or what an escaping exception says, into errbuf as "<who>: <what>".
template <class Create>
vc_status guarded_create(std::string_view who, char* errbuf, size_t errbuf_cap,
                         Create&& create) noexcept {
  try {
    std::string error;
    vc_status status = create(error);
    if (status != VC_OK) write_create_error(errbuf, errbuf_cap, error);
    return status;
  } catch (const std::bad_alloc&) {
    write_create_error(errbuf, errbuf_cap, std::string(who) + ": out of memory");
    return VC_E_NO_MEMORY;
  } catch (const std::exception& e) {
    try {
      write_create_error(errbuf, errbuf_cap, std::string(who) + ": " + e.what());
    } catch (...) {
      write_create_error(errbuf, errbuf_cap, "the backend could not be created");
    }
    return VC_E_FAILED;
  } catch (...) {
    write_create_error(errbuf, errbuf_cap, std::string(who) + ": unknown failure");
    return VC_E_FAILED;
  }
}

}  // namespace vc::sdk
