// activity_feed.cpp — see activity_feed.h.
#include "mcp/activity_feed.h"

#include <utility>
#include <vector>

#include "common/utf8_repair.h"

namespace vc::mcp {

struct ActivityFeed::Waiter {
  ActivityFeed* feed = nullptr;
  WaitId id = 0;
  int64_t after = 0;
  WaitDone done;
  uv_timer_t* timer = nullptr;  // null while the waiter has no loop
};

namespace {

void close_timer(uv_timer_t* timer) {
  if (timer == nullptr) return;
  uv_timer_stop(timer);
  uv_close(reinterpret_cast<uv_handle_t*>(timer),
           [](uv_handle_t* handle) { delete reinterpret_cast<uv_timer_t*>(handle); });
}

// Strings longer than the limit end at a UTF-8 boundary with a note of what was cut.
Json bounded(const Json& value) {
  if (value.is_string()) {
    const auto& text = value.get_ref<const std::string&>();
    if (text.size() <= ActivityFeed::kMaxStringBytes) return value;
    std::string cut = utf8_prefix(text, ActivityFeed::kMaxStringBytes);
    cut += "\n[… " + std::to_string(text.size() - cut.size()) + " more bytes not shown]";
    return cut;
  }
  if (value.is_object() || value.is_array()) {
    Json copy = value;
    for (auto& item : copy) item = bounded(item);
    return copy;
  }
  return value;
}

}  // namespace

ActivityFeed::ActivityFeed(uv_loop_t* loop) : loop_(loop) {}

ActivityFeed::~ActivityFeed() {
  for (auto& [id, waiter] : waiters_) {
    close_timer(waiter->timer);
    delete waiter;
  }
}

bool ActivityFeed::publishes(const std::string& tool) {
  return tool == "terminal_execute" || tool == "read_file" || tool == "write_file" ||
         tool == "edit_file" || tool == "list_directory" || tool == "set_network_access" ||
         tool == "set_desktop_environment";
}

void ActivityFeed::record_request(const std::string& tool, const Json& arguments) {
  if (publishes(tool)) push("request", tool, arguments, nullptr);
}

void ActivityFeed::record_result(const std::string& tool, const Json& arguments,
                                 const Json& result) {
  if (!publishes(tool)) return;
  Json payload = result.is_object() ? result.value("structuredContent", Json()) : Json();
  if (payload.is_null() && result.is_object() && result.value("isError", false)) {
    // An error with text content only (bad arguments): the App still shows why.
    const Json& content = result.value("content", Json::array());
    std::string text = content.is_array() && !content.empty() && content[0].is_object()
                           ? content[0].value("text", "")
                           : "";
    payload = Json{{"error", text}};
  }
  push("result", tool, arguments, std::move(payload));
}

void ActivityFeed::push(const char* phase, const std::string& tool, const Json& arguments,
                        Json payload) {
  ++revision_;
  events_.push_back(Json{{"revision", revision_},
                         {"phase", phase},
                         {"operation", tool},
                         {"arguments", bounded(arguments)},
                         {"payload", bounded(payload)}});
  while (events_.size() > kCapacity) events_.pop_front();
  answer_all();
}

Json ActivityFeed::since(int64_t after) const {
  Json events = Json::array();
  for (const auto& event : events_) {
    if (event["revision"].get<int64_t>() > after) events.push_back(event);
  }
  return Json{{"revision", revision_}, {"events", std::move(events)}};
}

ActivityFeed::WaitId ActivityFeed::wait(int64_t after, uint64_t wait_ms, WaitDone done) {
  const WaitId id = next_wait_id_++;
  auto* waiter = new Waiter{this, id, after, std::move(done), nullptr};
  waiters_[id] = waiter;
  if (loop_ == nullptr) {
    answer(id);
    return id;
  }
  waiter->timer = new uv_timer_t;
  uv_timer_init(loop_, waiter->timer);
  waiter->timer->data = waiter;
  // Already newer events: answer on the next turn (a zero timeout), never from inside wait().
  const uint64_t timeout = revision_ > after ? 0 : wait_ms;
  uv_timer_start(waiter->timer, &ActivityFeed::on_timer, timeout, 0);
  return id;
}

void ActivityFeed::cancel(WaitId id) {
  const auto found = waiters_.find(id);
  if (found == waiters_.end()) return;
  close_timer(found->second->timer);
  delete found->second;
  waiters_.erase(found);
}

void ActivityFeed::on_timer(uv_timer_t* timer) {
  auto* waiter = static_cast<Waiter*>(timer->data);
  waiter->feed->answer(waiter->id);
}

void ActivityFeed::answer(WaitId id) {
  const auto found = waiters_.find(id);
  if (found == waiters_.end()) return;
  Waiter* waiter = found->second;
  waiters_.erase(found);
  close_timer(waiter->timer);
  WaitDone done = std::move(waiter->done);
  const int64_t after = waiter->after;
  delete waiter;
  done(since(after));
}

// Each ready waiter is answered on the next loop turn: push() runs inside another call's
// result, which must not finish a second call from within it.
void ActivityFeed::answer_all() {
  for (const auto& [id, waiter] : waiters_) {
    if (waiter->after < revision_ && waiter->timer != nullptr) {
      uv_timer_start(waiter->timer, &ActivityFeed::on_timer, 0, 0);
    }
  }
}

}  // namespace vc::mcp
