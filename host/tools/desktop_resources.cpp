// desktop_resources.cpp — see desktop_resources.h.
#include "tools/desktop_resources.h"

#include <string>
#include <utility>

#include <vc-backend-1/vc_status.h>

#include "computers/desktop_action.h"
#include "mcp/layered_catalog.h"
#include "tools/desktop_call.h"
#include "tools/desktop_screen_snapshot.h"

namespace vc::tools {
namespace {

class DesktopResourceCatalog final : public mcp::LayeredCatalog {
 public:
  DesktopResourceCatalog(computers::ComputerRegistry& registry, DesktopToolSet& tool_set,
                         std::unique_ptr<mcp::ContentCatalog> inner)
      : LayeredCatalog(std::move(inner)), registry_(registry), tool_set_(tool_set) {}

  Json resources() const override {
    Json listed = LayeredCatalog::resources();
    if (!tool_set_.live()) return listed;
    listed.push_back(Json{{"uri", kScreenImageUri},
                          {"name", "Current Computer Screen"},
                          {"title", "Current Computer Screen"},
                          {"mimeType", "image/png"}});
    listed.push_back(Json{{"uri", kAccessibilityUri},
                          {"name", "Current Screen Accessibility Snapshot"},
                          {"title", "Current Screen Accessibility Snapshot"},
                          {"mimeType", "application/json"}});
    return listed;
  }

  void read_resource_async(const std::string& uri, ReadDone done) const override {
    const bool image = uri == kScreenImageUri;
    if (!image && uri != kAccessibilityUri) {
      return LayeredCatalog::read_resource_async(uri, std::move(done));
    }
    if (!tool_set_.live()) return done(Expected<Json>(Failure{VC_E_UNAVAILABLE, kNoLiveDesktop}));
    Json action{{"action", image ? "screenshot" : "accessibility_snapshot"}};
    computers::run_desktop_action(
        registry_, std::move(action), [uri, image, done = std::move(done)](Expected<Json> result) {
          if (!result) return done(Expected<Json>(result.error()));
          Json content{{"uri", uri}};
          if (image) {
            content["mimeType"] = "image/png";
            content["blob"] = result.value().value("image_base64", "");
          } else {
            content["mimeType"] = "application/json";
            content["text"] = result.value().dump(2, ' ', false, Json::error_handler_t::replace);
          }
          done(Expected<Json>(Json{{"contents", Json::array({std::move(content)})}}));
        });
  }

 private:
  computers::ComputerRegistry& registry_;
  DesktopToolSet& tool_set_;
};

}  // namespace

std::unique_ptr<mcp::ContentCatalog> make_desktop_resource_catalog(
    computers::ComputerRegistry& registry, DesktopToolSet& tool_set,
    std::unique_ptr<mcp::ContentCatalog> inner) {
  return std::make_unique<DesktopResourceCatalog>(registry, tool_set, std::move(inner));
}

}  // namespace vc::tools
