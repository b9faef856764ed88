// layered_catalog.h — a catalog that adds to another: everything it does not answer itself
// goes to the catalog it wraps (which may be null: then nothing more is published). The App's
// resource and the screen resources are such layers.
//
// [loop-thread] for every member.
#pragma once

#include <memory>
#include <utility>

#include <vc-backend-1/vc_status.h>

#include "mcp/content_catalog.h"

namespace vc::mcp {

class LayeredCatalog : public ContentCatalog {
 public:
  explicit LayeredCatalog(std::unique_ptr<ContentCatalog> inner) : inner_(std::move(inner)) {}

  Json resources() const override { return inner_ ? inner_->resources() : Json::array(); }
  Json resource_templates() const override {
    return inner_ ? inner_->resource_templates() : Json::array();
  }
  std::optional<Json> read_resource(const std::string& uri) const override {
    return inner_ ? inner_->read_resource(uri) : std::nullopt;
  }
  void read_resource_async(const std::string& uri, ReadDone done) const override {
    if (!inner_) return done(std::nullopt);
    inner_->read_resource_async(uri, std::move(done));
  }
  Json prompts() const override { return inner_ ? inner_->prompts() : Json::array(); }
  Expected<Json> get_prompt(const std::string& name, const Json& arguments) const override {
    if (inner_) return inner_->get_prompt(name, arguments);
    return Failure{VC_E_INVALID_ARGUMENT, "unknown prompt: " + name};
  }
  Expected<Json> get_prompt_in_round(const std::string& name, const Json& arguments,
                                     const Json& input_responses) const override {
    if (inner_) return inner_->get_prompt_in_round(name, arguments, input_responses);
    return Failure{VC_E_INVALID_ARGUMENT, "unknown prompt: " + name};
  }
  Json complete(const Json& ref, const std::string& argument, const std::string& value) const override {
    return inner_ ? inner_->complete(ref, argument, value) : Json::array();
  }

 private:
  std::unique_ptr<ContentCatalog> inner_;
};

}  // namespace vc::mcp
