// backend_ops.cpp — C entry points of the operations table, forwarding to TemplateBackend.
//
// Nothing may unwind across the C boundary, so every thunk catches everything: an exception
// becomes an error status (the op is then rejected, and never completed).
#include "backend_ops.h"

#include <new>
#include <string>
#include <string_view>

#include "template_backend.h"

namespace vc_template {
namespace {

TemplateBackend& backend_of(vc_backend* self) {
  return *static_cast<TemplateBackend*>(self->plugin_ctx);
}

// Request documents are borrowed for the call; parse them before doing anything else.
nlohmann::json parse_request(const char* json, size_t len) {
  if (json == nullptr) return nlohmann::json::object();
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

using OpMethod = vc_status (TemplateBackend::*)(const nlohmann::json&, const vc_op*);

template <OpMethod Method>
vc_status VC_CALL op_thunk(vc_backend* self, const char* json, size_t len, const vc_op* op) {
  return guarded(self, "operation", [&] {
    auto request = parse_request(json, len);
    if (!request.is_object()) {
      backend_of(self).log().warn("rejected a request that is not a JSON object");
      return VC_E_INVALID_ARGUMENT;
    }
    TemplateBackend& backend = backend_of(self);
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
    TemplateBackend& backend = backend_of(self);
    return backend.settle_rejection(op, backend.exec(request, stdin_bytes, op));
  });
}

void VC_CALL destroy_thunk(vc_backend* self) {
  // Nothing to report to if this throws; joining the threads is what matters.
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

const vc_backend_ops kTemplateBackendOps = {
    .struct_size = sizeof(vc_backend_ops),
    .reserved0 = 0,
    .destroy = destroy_thunk,
    .cancel = cancel_thunk,
    .get_extension = nullptr,
    .validate = op_thunk<&TemplateBackend::validate>,
    .ensure_image = op_thunk<&TemplateBackend::ensure_image>,
    .create = op_thunk<&TemplateBackend::create_computer>,
    .attach = op_thunk<&TemplateBackend::attach>,
    .list = op_thunk<&TemplateBackend::list>,
    .restart = op_thunk<&TemplateBackend::restart>,
    .remove = op_thunk<&TemplateBackend::remove>,
    .factory_reset = op_thunk<&TemplateBackend::factory_reset>,
    .set_network_access = nullptr,
    .get_desktop_environment = nullptr,
    .set_desktop_environment = nullptr,
    .exec = exec_thunk,
    .wait_for_death = op_thunk<&TemplateBackend::wait_for_death>,
    .tool_instructions = op_thunk<&TemplateBackend::tool_instructions>,
};

}  // namespace vc_template
