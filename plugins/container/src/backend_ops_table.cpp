// backend_ops_table.cpp — the C entry points of the operations table, forwarding to
// ContainerBackend.
//
// Nothing may unwind across the C boundary, so every thunk catches everything: an exception
// becomes an error status (the op is then rejected, and never completed).
#include <new>
#include <string>
#include <string_view>

#include "container_backend.h"

namespace vc::container {
namespace {

ContainerBackend& backend_of(vc_backend* self) {
  return *static_cast<ContainerBackend*>(self->plugin_ctx);
}

// Request documents are borrowed for the call; parse them before anything else.
nlohmann::json parse_request(const char* json, size_t len) {
  if (json == nullptr || len == 0) return nlohmann::json::object();
  return nlohmann::json::parse(std::string_view(json, len), nullptr, /*allow_exceptions=*/false);
}

template <typename Call>
vc_status guarded(vc_backend* self, const char* operation, Call&& call) noexcept {
  try {
    return call();
  } catch (const std::bad_alloc&) {
    return VC_E_NO_MEMORY;
  } catch (const std::exception& e) {
    backend_of(self).log().error(std::string(operation) + " failed: " + e.what());
    return VC_E_FAILED;
  } catch (...) {
    return VC_E_FAILED;
  }
}

using OpMethod = vc_status (ContainerBackend::*)(const nlohmann::json&, const vc_op*);

template <OpMethod Method>
vc_status VC_CALL op_thunk(vc_backend* self, const char* json, size_t len, const vc_op* op) {
  return guarded(self, "operation", [&] {
    auto request = parse_request(json, len);
    if (!request.is_object()) {
      backend_of(self).log().warn("rejected a request that is not a JSON object");
      return VC_E_INVALID_ARGUMENT;
    }
    ContainerBackend& backend = backend_of(self);
    return backend.settle_rejection(op, (backend.*Method)(request, op));
  });
}

vc_status VC_CALL exec_thunk(vc_backend* self, const char* json, size_t len,
                             const uint8_t* stdin_data, size_t stdin_len, const vc_op* op) {
  return guarded(self, "exec", [&] {
    auto request = parse_request(json, len);
    if (!request.is_object()) {
      backend_of(self).log().warn("exec: rejected a request that is not a JSON object");
      return VC_E_INVALID_ARGUMENT;
    }
    std::string_view stdin_bytes;
    if (stdin_data != nullptr) {
      stdin_bytes = std::string_view(reinterpret_cast<const char*>(stdin_data), stdin_len);
    }
    ContainerBackend& backend = backend_of(self);
    return backend.settle_rejection(op, backend.exec(request, stdin_bytes, op));
  });
}

const vc_backend_desktop_control kDesktopControl = {
    .struct_size = sizeof(vc_backend_desktop_control),
    .reserved0 = 0,
    .desktop_action = op_thunk<&ContainerBackend::desktop_action>,
};

const void* VC_CALL get_extension_thunk(vc_backend* /*self*/, const char* id) noexcept {
  if (id != nullptr && std::string_view(id) == VC_EXT_BACKEND_DESKTOP_CONTROL) {
    return &kDesktopControl;
  }
  return nullptr;
}

void VC_CALL destroy_thunk(vc_backend* self) {
  guarded(self, "destroy", [&] {
    backend_of(self).destroy();
    return VC_OK;
  });
}

void VC_CALL cancel_thunk(vc_backend* self, const vc_op* op) {
  guarded(self, "cancel", [&] {
    backend_of(self).cancel(op);
    return VC_OK;
  });
}

}  // namespace

const vc_backend_ops kContainerBackendOps = {
    .struct_size = sizeof(vc_backend_ops),
    .reserved0 = 0,
    .destroy = destroy_thunk,
    .cancel = cancel_thunk,
    .get_extension = get_extension_thunk,
    .validate = op_thunk<&ContainerBackend::validate>,
    .ensure_image = op_thunk<&ContainerBackend::ensure_image>,
    .create = op_thunk<&ContainerBackend::create_computer>,
    .attach = op_thunk<&ContainerBackend::attach>,
    .list = op_thunk<&ContainerBackend::list>,
    .restart = op_thunk<&ContainerBackend::restart>,
    .remove = op_thunk<&ContainerBackend::remove>,
    .factory_reset = op_thunk<&ContainerBackend::factory_reset>,
    .set_network_access = op_thunk<&ContainerBackend::set_network_access>,
    .get_desktop_environment = op_thunk<&ContainerBackend::get_desktop_environment>,
    .set_desktop_environment = op_thunk<&ContainerBackend::set_desktop_environment>,
    .exec = exec_thunk,
    .wait_for_death = op_thunk<&ContainerBackend::wait_for_death>,
    .tool_instructions = op_thunk<&ContainerBackend::tool_instructions>,
};

}  // namespace vc::container
