// negotiation.h — GET /_ping then GET /version, as one cancellable operation.
#pragma once

#include <functional>
#include <memory>
#include <string_view>

#include "client_state.h"
#include "operation.h"

namespace vc::engine::detail {

// Compares dotted API versions numerically ("1.9" < "1.41"). nullopt when either does not
// parse as <major>.<minor>.
std::optional<int> compare_api_versions(std::string_view a, std::string_view b);

class Negotiation final : public Operation {
 public:
  Negotiation(std::shared_ptr<ClientState> client, RequestOptions deadlines,
              std::function<void(Result<EngineInfo>)> on_done);

  void begin() override;
  void cancel() override;
  void complete_unstarted(EngineError error) override;

 private:
  void on_ping(Result<HttpResponse> response);
  void on_version(Result<HttpResponse> response);
  // Publishes the negotiated info to the client, then delivers it.
  void publish_and_deliver();
  void start_request(std::string target, std::function<void(Result<HttpResponse>)> on_done);
  void deliver(Result<EngineInfo> result);

  std::shared_ptr<ClientState> client_;
  RequestOptions deadlines_;
  std::function<void(Result<EngineInfo>)> on_done_;
  std::shared_ptr<Operation> current_;  // the request in flight
  EngineInfo info_;
  bool done_ = false;
};

}  // namespace vc::engine::detail
