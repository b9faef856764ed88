// backend_driver.cpp — see backend_driver.h.
#include "backend_driver.h"

#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <iostream>
#include <stdexcept>

namespace vc::test {
namespace {

// The declared default as the host's parser types it (vc_option.h).
Json typed_default(const vc_option_decl& decl) {
  if (decl.default_value == nullptr) return nullptr;
  const std::string text = decl.default_value;
  switch (decl.type) {
    case VC_OPTION_INTEGER:
      return std::stoll(text);
    case VC_OPTION_NUMBER:
      return std::stod(text);
    case VC_OPTION_BOOL:
      return text == "true" || text == "1" || text == "yes" || text == "on";
    case VC_OPTION_STRING_LIST:
      return text.empty() ? Json::array() : Json::array({text});
    default:
      return text;
  }
}

// The value an option's environment variable gives it, typed like typed_default().
Json typed_from_environment(const vc_option_decl& decl) {
  if (decl.env_var == nullptr) return nullptr;
  const char* value = std::getenv(decl.env_var);
  if (value == nullptr || value[0] == '\0') return nullptr;
  vc_option_decl copy = decl;
  copy.default_value = value;
  return typed_default(copy);
}

vc_async_op_fn async_op(const vc_backend_ops& ops, const std::string& name) {
  static const std::map<std::string, vc_async_op_fn vc_backend_ops::*> table = {
      {"validate", &vc_backend_ops::validate},
      {"ensure_image", &vc_backend_ops::ensure_image},
      {"create", &vc_backend_ops::create},
      {"attach", &vc_backend_ops::attach},
      {"list", &vc_backend_ops::list},
      {"restart", &vc_backend_ops::restart},
      {"remove", &vc_backend_ops::remove},
      {"factory_reset", &vc_backend_ops::factory_reset},
      {"set_network_access", &vc_backend_ops::set_network_access},
      {"get_desktop_environment", &vc_backend_ops::get_desktop_environment},
      {"set_desktop_environment", &vc_backend_ops::set_desktop_environment},
      {"wait_for_death", &vc_backend_ops::wait_for_death},
      {"tool_instructions", &vc_backend_ops::tool_instructions},
  };
  const auto found = table.find(name);
  if (found == table.end()) throw std::invalid_argument("unknown backend operation: " + name);
  return ops.*(found->second);
}

}  // namespace

std::string OpOutcome::describe() const {
  std::string text;
  if (!completed) return "still pending";
  text = rejected ? "rejected with status " : "completed with status ";
  text += std::to_string(status);
  if (!message.empty()) text += ", message: " + message;
  if (!document.is_null()) text += ", document: " + document.dump();
  if (!out.empty()) text += ", stdout: " + out.substr(0, 2000);
  if (!err.empty()) text += ", stderr: " + err.substr(0, 2000);
  if (contract_violations > 0) text += ", ABI contract violations: " + std::to_string(contract_violations);
  return text;
}

// --- PendingOp -----------------------------------------------------------------------------

PendingOp::PendingOp(std::string name) : name_(std::move(name)) {
  // Ids as a 1.1 host gives them: nonzero, never reused in the process.
  static std::atomic<uint64_t> last_id{0};
  op_.struct_size = sizeof op_;
  op_.id = ++last_id;
  op_.host_ctx = this;
  op_.complete = &PendingOp::on_complete;
  op_.emit = &PendingOp::on_emit;
  op_.is_cancelled = &PendingOp::on_is_cancelled;
}

bool PendingOp::wait(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  return done_.wait_for(lock, timeout, [this] { return outcome_.completed; });
}

OpOutcome PendingOp::outcome() const {
  std::lock_guard lock(mutex_);
  return outcome_;
}

bool PendingOp::done() const {
  std::lock_guard lock(mutex_);
  return outcome_.completed;
}

void PendingOp::reject(vc_status status) {
  {
    std::lock_guard lock(mutex_);
    outcome_.completed = true;
    outcome_.rejected = true;
    outcome_.status = status;
    outcome_.message = "the op function rejected the request";
  }
  done_.notify_all();
}

void VC_CALL PendingOp::on_complete(const vc_op* op, vc_status status, const char* json,
                                    size_t json_len, const char* message, size_t message_len) {
  auto* self = static_cast<PendingOp*>(op->host_ctx);
  {
    std::lock_guard lock(self->mutex_);
    if (self->outcome_.completed) {
      ++self->outcome_.contract_violations;
      return;
    }
    self->outcome_.completed = true;
    self->outcome_.status = status;
    if (json != nullptr && json_len > 0) {
      self->outcome_.document = Json::parse(std::string(json, json_len), nullptr, false);
      if (self->outcome_.document.is_discarded()) {
        self->outcome_.document = std::string("<not JSON> ") + std::string(json, json_len);
      }
    }
    if (message != nullptr) self->outcome_.message.assign(message, message_len);
  }
  self->done_.notify_all();
}

vc_status VC_CALL PendingOp::on_emit(const vc_op* op, vc_stream stream, const uint8_t* data,
                                     size_t len) {
  auto* self = static_cast<PendingOp*>(op->host_ctx);
  std::lock_guard lock(self->mutex_);
  if (self->outcome_.completed) {
    ++self->outcome_.contract_violations;
    return VC_E_INVALID_ARGUMENT;
  }
  const std::string bytes(reinterpret_cast<const char*>(data), len);
  switch (stream) {
    case VC_STREAM_STDOUT:
      self->outcome_.out += bytes;
      break;
    case VC_STREAM_STDERR:
      self->outcome_.err += bytes;
      break;
    case VC_STREAM_PROGRESS:
      self->outcome_.progress.push_back(Json::parse(bytes, nullptr, false));
      return VC_OK;
    default:
      return VC_E_INVALID_ARGUMENT;
  }
  self->emitted_ += len;
  if (self->truncate_after > 0 && self->emitted_ > self->truncate_after) return VC_NOTE_TRUNCATED;
  return VC_OK;
}

int32_t VC_CALL PendingOp::on_is_cancelled(const vc_op* op) {
  return static_cast<PendingOp*>(op->host_ctx)->cancelled_.load() ? 1 : 0;
}

// --- BackendDriver -------------------------------------------------------------------------

BackendDriver::BackendDriver(const std::filesystem::path& plugin_path, const Json& options,
                             const std::filesystem::path& state_dir)
    : state_dir_(state_dir.string()), loop_thread_(std::this_thread::get_id()) {
  // Never dlclose()d, like in the host: a plugin may leave threads-local or atexit state.
  module_ = ::dlopen(plugin_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (module_ == nullptr) {
    throw std::runtime_error("dlopen " + plugin_path.string() + ": " + ::dlerror());
  }
  void* symbol = ::dlsym(module_, VC_ENTRY_SYMBOL);
  if (symbol == nullptr) throw std::runtime_error(plugin_path.string() + " has no entry symbol");
  const auto entry = reinterpret_cast<vc_plugin_entry_fn>(symbol);
  const std::string path_text = plugin_path.string();
  vc_host_info info{};
  info.struct_size = sizeof info;
  info.abi_major = VC_ABI_MAJOR;
  info.abi_minor = VC_ABI_MINOR;
  info.host_name = "mcp-virtual-computer";
  info.host_version = "0.0.0-test";
  info.plugin_path = path_text.c_str();
  descriptor_ = entry(&info);
  if (descriptor_ == nullptr || descriptor_->magic != VC_DESCRIPTOR_MAGIC) {
    throw std::runtime_error(plugin_path.string() + " refused to load or has a bad descriptor");
  }

  Json values = Json::object();
  for (auto decl = descriptor_->options; decl != nullptr && *decl != nullptr; ++decl) {
    const vc_option_decl& option = **decl;
    Json value = typed_from_environment(option);
    if (value.is_null()) value = typed_default(option);
    values[option.name] = value;
  }
  for (const auto& [name, value] : options.items()) values[name] = value;
  config_ = Json{{"options", values}};

  thread_check_.is_loop_thread = &BackendDriver::on_is_loop_thread;
  services_.struct_size = sizeof services_;
  services_.host_ctx = this;
  services_.log = &BackendDriver::on_log;
  services_.get_extension = &BackendDriver::on_get_extension;
  services_.state_dir = state_dir_.c_str();

  const std::string config_text = config_.dump();
  char errbuf[1024] = {};
  const vc_status status = descriptor_->create_backend(&services_, config_text.data(),
                                                       config_text.size(), &backend_, errbuf,
                                                       sizeof errbuf);
  if (status != VC_OK || backend_ == nullptr) {
    throw std::runtime_error("create_backend failed (" + std::to_string(status) + "): " + errbuf);
  }
}

BackendDriver::~BackendDriver() {
  if (backend_ == nullptr) return;
  bool all_done = true;
  for (auto& op : ops_) {
    if (op->done()) continue;
    cancel(*op);
    if (!op->wait(std::chrono::seconds(30))) {
      all_done = false;
      std::cerr << "BackendDriver: op '" << op->name()
                << "' did not complete within 30 s of its cancellation; the backend is not "
                   "destroyed\n";
    }
  }
  // destroy() may only be called with nothing pending; leaking is the safe alternative.
  if (all_done) backend_->ops->destroy(backend_);
}

std::optional<vc_async_op_fn> BackendDriver::extension_op(const std::string& name) const {
  using Checkpoints = vc_backend_checkpoints;
  using Processes = vc_backend_processes;
  static const std::map<std::string, vc_async_op_fn Checkpoints::*> checkpoint_slots = {
      {"create_checkpoint", &Checkpoints::create_checkpoint},
      {"list_checkpoints", &Checkpoints::list_checkpoints},
      {"restore_checkpoint", &Checkpoints::restore_checkpoint},
      {"fork_checkpoint", &Checkpoints::fork_checkpoint},
      {"delete_checkpoint", &Checkpoints::delete_checkpoint}};
  static const std::map<std::string, vc_async_op_fn Processes::*> process_slots = {
      {"start_process", &Processes::start_process},
      {"read_process", &Processes::read_process},
      {"write_process", &Processes::write_process},
      {"kill_process", &Processes::kill_process},
      {"list_processes", &Processes::list_processes}};
  const vc_backend_ops& ops = *backend_->ops;
  auto table_of = [&](const char* id) {
    return ops.get_extension == nullptr ? nullptr : ops.get_extension(backend_, id);
  };
  if (const auto slot = checkpoint_slots.find(name); slot != checkpoint_slots.end()) {
    const auto* table = static_cast<const Checkpoints*>(table_of(VC_EXT_BACKEND_CHECKPOINTS));
    return table == nullptr ? nullptr : table->*(slot->second);
  }
  if (const auto slot = process_slots.find(name); slot != process_slots.end()) {
    const auto* table = static_cast<const Processes*>(table_of(VC_EXT_BACKEND_PROCESSES));
    return table == nullptr ? nullptr : table->*(slot->second);
  }
  return std::nullopt;
}

std::shared_ptr<PendingOp> BackendDriver::start(const std::string& name, const Json& request,
                                                const std::string& stdin_data,
                                                uint64_t truncate_after) {
  auto op = std::make_shared<PendingOp>(name);
  op->truncate_after = truncate_after;
  ops_.push_back(op);
  const std::string text = request.dump();
  const vc_backend_ops& ops = *backend_->ops;
  vc_status status = VC_OK;
  if (name == "exec") {
    if (ops.exec == nullptr) {
      status = VC_E_UNSUPPORTED;
    } else {
      status = ops.exec(backend_, text.data(), text.size(),
                        reinterpret_cast<const uint8_t*>(stdin_data.data()), stdin_data.size(),
                        op->op());
    }
  } else if (name == "desktop_action") {
    // The desktop-control extension's op (ext/vc_backend_desktop_control.h).
    const auto* control = ops.get_extension == nullptr
                              ? nullptr
                              : static_cast<const vc_backend_desktop_control*>(
                                    ops.get_extension(backend_, VC_EXT_BACKEND_DESKTOP_CONTROL));
    status = control == nullptr || control->desktop_action == nullptr
                 ? VC_E_UNSUPPORTED
                 : control->desktop_action(backend_, text.data(), text.size(), op->op());
  } else if (const auto extension_fn = extension_op(name)) {
    // The checkpoints and processes extensions' ops (ext/vc_backend_checkpoints.h,
    // ext/vc_backend_processes.h).
    status = *extension_fn == nullptr
                 ? VC_E_UNSUPPORTED
                 : (*extension_fn)(backend_, text.data(), text.size(), op->op());
  } else {
    const vc_async_op_fn fn = async_op(ops, name);
    status = fn == nullptr ? VC_E_UNSUPPORTED : fn(backend_, text.data(), text.size(), op->op());
  }
  if (status != VC_OK) op->reject(status);
  return op;
}

OpOutcome BackendDriver::run(const std::string& name, const Json& request,
                             std::chrono::milliseconds timeout, const std::string& stdin_data) {
  auto op = start(name, request, stdin_data);
  if (!op->wait(timeout)) {
    cancel(*op);
    op->wait(std::chrono::seconds(30));
    OpOutcome outcome = op->outcome();
    outcome.message = "did not complete within " + std::to_string(timeout.count()) +
                      " ms (cancelled); " + outcome.message;
    if (!outcome.completed) outcome.status = VC_E_TIMEOUT;
    return outcome;
  }
  return op->outcome();
}

void BackendDriver::cancel(PendingOp& op) {
  op.set_cancelled();
  if (backend_->ops->cancel != nullptr) backend_->ops->cancel(backend_, op.op());
}

std::vector<std::string> BackendDriver::log_lines() const {
  std::lock_guard lock(log_mutex_);
  return log_lines_;
}

void VC_CALL BackendDriver::on_log(const vc_host_services* host, vc_log_level level,
                                   const char* msg, size_t msg_len) {
  auto* self = static_cast<BackendDriver*>(host->host_ctx);
  std::lock_guard lock(self->log_mutex_);
  self->log_lines_.push_back(std::to_string(level) + " " + std::string(msg, msg_len));
}

const void* VC_CALL BackendDriver::on_get_extension(const vc_host_services* host,
                                                    const char* id) {
  auto* self = static_cast<BackendDriver*>(host->host_ctx);
  if (id != nullptr && std::string(id) == VC_EXT_HOST_THREAD_CHECK) return &self->thread_check_;
  return nullptr;
}

int32_t VC_CALL BackendDriver::on_is_loop_thread(const vc_host_services* host) {
  auto* self = static_cast<BackendDriver*>(host->host_ctx);
  return std::this_thread::get_id() == self->loop_thread_ ? 1 : 0;
}

}  // namespace vc::test
