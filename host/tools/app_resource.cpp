// app_resource.cpp — see app_resource.h.
#include "tools/app_resource.h"

#include <optional>
#include <string>
#include <utility>

#include "mcp/layered_catalog.h"
#include "tools/app_bundle.h"

namespace vc::tools {
namespace {

class AppResourceCatalog final : public mcp::LayeredCatalog {
 public:
  AppResourceCatalog(std::filesystem::path app_file, std::unique_ptr<mcp::ContentCatalog> inner)
      : LayeredCatalog(std::move(inner)), app_file_(std::move(app_file)) {}

  Json resources() const override {
    Json listed = Json::array();
    listed.push_back(Json{{"uri", kAppResourceUri},
                          {"name", "Virtual Computer"},
                          {"title", "Virtual Computer"},
                          {"description",
                           "The computer in the chat: its live desktop, the agent's commands and "
                           "file changes as they happen, a terminal, a file browser, and the "
                           "network and desktop switches."},
                          {"mimeType", kAppMimeType},
                          {"_meta", app_resource_meta()}});
    for (auto& resource : LayeredCatalog::resources()) listed.push_back(std::move(resource));
    return listed;
  }

  std::optional<Json> read_resource(const std::string& uri) const override {
    if (uri != kAppResourceUri) return LayeredCatalog::read_resource(uri);
    auto contents = read_contents();
    if (!contents) return std::nullopt;
    return std::move(contents).value();
  }

  void read_resource_async(const std::string& uri, ReadDone done) const override {
    if (uri != kAppResourceUri) return LayeredCatalog::read_resource_async(uri, std::move(done));
    done(read_contents());
  }

 private:
  Expected<Json> read_contents() const {
    auto html = read_app_file(app_file_);
    if (!html) return html.error();
    Json content{{"uri", kAppResourceUri},
                 {"mimeType", kAppMimeType},
                 {"text", std::move(html).value()},
                 {"_meta", app_resource_meta()}};
    return Json{{"contents", Json::array({std::move(content)})}};
  }

  std::filesystem::path app_file_;
};

}  // namespace

Json app_resource_meta() {
  // Only the desktop's bridge (noVNC and the sound, one WebSocket origin per computer on
  // 127.0.0.1 with an ephemeral port). The original also allowed http://127.0.0.1:*, which
  // would let the frame send requests to any local service; the App needs none.
  return Json{{"ui",
               {{"csp", {{"connectDomains", Json::array({"ws://127.0.0.1:*"})}}},
                {"prefersBorder", false}}}};
}

std::unique_ptr<mcp::ContentCatalog> make_app_resource_catalog(
    std::filesystem::path app_file, std::unique_ptr<mcp::ContentCatalog> inner) {
  return std::make_unique<AppResourceCatalog>(std::move(app_file), std::move(inner));
}

}  // namespace vc::tools
