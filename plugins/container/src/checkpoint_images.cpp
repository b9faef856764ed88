// checkpoint_images.cpp — committing, listing, tagging and deleting checkpoint images.
#include "checkpoint_images.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include <vc_engine/url.h>

#include "computer_naming.h"
#include "desktop_access.h"

namespace vc::container {
namespace {

// A commit copies the writable layer, which may be large (an installed toolchain): it gets
// ten minutes beyond the ordinary deadline.
constexpr std::chrono::minutes kCommitAllowance{10};

std::string image_path(const std::string& reference, std::string_view rest = {}) {
  return "/images/" + engine::url_encode(reference) + std::string(rest);
}

std::string label_text(const nlohmann::json& labels, const char* key) {
  auto it = labels.find(key);
  return it != labels.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<CheckpointImage> checkpoint_from_row(const nlohmann::json& row,
                                                   const std::string& computer_id) {
  if (!row.is_object()) return std::nullopt;
  const auto labels = row.value("Labels", nlohmann::json::object());
  if (!labels.is_object() || label_text(labels, checkpoint_labels::kOf) != computer_id) {
    return std::nullopt;
  }
  CheckpointImage image;
  image.image_id = row.value("Id", std::string());
  image.name = label_text(labels, checkpoint_labels::kName);
  image.computer_id = computer_id;
  image.created = label_text(labels, checkpoint_labels::kCreated);
  image.desktop_environment = label_text(labels, checkpoint_labels::kDesktop) == "true";
  if (image.image_id.empty() || image.name.empty()) return std::nullopt;
  return image;
}

// True when the list row still carries the checkpoint's own name: an image whose checkpoint was
// deleted may live on under a computer's base tag, with the labels, but it is no checkpoint.
bool named_as_checkpoint(const nlohmann::json& row, const CheckpointImage& image) {
  const auto tags = row.find("RepoTags");
  if (tags == row.end() || !tags->is_array()) return false;
  const std::string wanted = checkpoint_reference(image.computer_id, image.name);
  for (const auto& tag : *tags) {
    if (tag.is_string() && tag.get_ref<const std::string&>() == wanted) return true;
  }
  return false;
}

}  // namespace

std::string checkpoint_repository(const std::string& computer_id) {
  return "localhost/mcp-virtual-computer-checkpoint/" + computer_id;
}

std::string checkpoint_reference(const std::string& computer_id, const std::string& name) {
  return checkpoint_repository(computer_id) + ":" + name;
}

std::string base_repository(const std::string& computer_id) {
  return "localhost/mcp-virtual-computer-base/" + computer_id;
}

nlohmann::json checkpoint_info(const CheckpointImage& image) {
  return nlohmann::json{{"name", image.name},
                        {"computer_id", image.computer_id},
                        {"created", image.created},
                        {"size_bytes", image.size_bytes},
                        {"processes", false},
                        {"desktop_environment", image.desktop_environment}};
}

void commit_checkpoint(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                       const CommitRequest& request, Callback<std::string> done) {
  if (ctx.shutting_down) return done(cancelled_failure());
  auto label = [](const char* key, const std::string& value) {
    // Dockerfile LABEL syntax: the value quoted, so an empty one stays a value.
    return std::string("LABEL ") + key + "=\"" + value + "\"";
  };
  const std::vector<std::pair<std::string, std::string>> params = {
      {"container", request.container},
      {"repo", request.repository},
      {"tag", request.tag},
      {"pause", "true"},
      // Not a computer: the identity labels the container had are overwritten.
      {"changes", label(labels::kOwned, "checkpoint")},
      {"changes", label(labels::kComputerId, "")},
      {"changes", label(checkpoint_labels::kOf, request.computer_id)},
      {"changes", label(checkpoint_labels::kName, request.name)},
      {"changes", label(checkpoint_labels::kCreated, request.created)},
      {"changes", label(checkpoint_labels::kDesktop, request.desktop_environment ? "true" : "false")},
      {"changes", label(labels::kBaseImage, "")},
      // The desktop secret stays with its computer.
      {"changes", "ENV " + std::string(kDesktopTokenEnv) + "=\"\""},
  };
  auto deadlines = ctx.call_deadlines();
  deadlines.timeout += kCommitAllowance;
  auto handle = ctx.client.post_json(
      engine::query_target("/commit", params), nlohmann::json::object(),
      [&ctx, container = request.container,
       done = std::move(done)](engine::Result<engine::JsonResponse> result) {
        if (!result.ok()) return done(ctx.engine_failure(result.error(), "commit container " + container));
        const auto& body = result.value().body;
        auto id = body.is_object() ? body.find("Id") : body.end();
        if (!body.is_object() || id == body.end() || !id->is_string()) {
          return done(OpFailure{VC_E_FAILED,
                                "The " + ctx.profile.engine_display_name + " committed container " +
                                    container + " but did not say the image's id.",
                                error_details(ctx.profile, "invalid_commit_answer", false)});
        }
        done(id->get<std::string>());
      },
      deadlines);
  track_in(scope, handle);
}

void list_checkpoint_images(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                            const std::string& computer_id,
                            Callback<std::vector<CheckpointImage>> done) {
  if (ctx.shutting_down) return done(cancelled_failure());
  nlohmann::json filters = {
      {"label", nlohmann::json::array({std::string(checkpoint_labels::kOf) + "=" + computer_id})}};
  auto handle = ctx.client.get_json(
      engine::query_target("/images/json", {{"filters", filters.dump()}}),
      [&ctx, computer_id, done = std::move(done)](engine::Result<engine::JsonResponse> result) {
        if (!result.ok()) {
          return done(ctx.engine_failure(result.error(), "list the checkpoints of " + computer_id));
        }
        const auto& rows = result.value().body;
        if (!rows.is_array()) {
          return done(OpFailure{VC_E_FAILED,
                                "The " + ctx.profile.engine_display_name +
                                    " returned an invalid image list.",
                                error_details(ctx.profile, "invalid_image_list", false)});
        }
        std::vector<CheckpointImage> images;
        for (const auto& row : rows) {
          auto image = checkpoint_from_row(row, computer_id);
          if (!image || !named_as_checkpoint(row, *image)) continue;
          // An image listed twice (one per name on some engines) counts once.
          const bool seen = std::any_of(images.begin(), images.end(), [&](const auto& other) {
            return other.name == image->name;
          });
          if (!seen) images.push_back(std::move(*image));
        }
        std::sort(images.begin(), images.end(), [](const auto& a, const auto& b) {
          return a.created != b.created ? a.created < b.created : a.name < b.name;
        });
        done(std::move(images));
      },
      ctx.call_deadlines());
  track_in(scope, handle);
}

void find_checkpoint(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                     const std::string& computer_id, const std::string& name,
                     Callback<std::optional<CheckpointImage>> done) {
  if (ctx.shutting_down) return done(cancelled_failure());
  const std::string reference = checkpoint_reference(computer_id, name);
  auto handle = ctx.client.get_json(
      image_path(reference, "/json"),
      [&ctx, computer_id, reference,
       done = std::move(done)](engine::Result<engine::JsonResponse> result) {
        if (!result.ok()) {
          const auto& error = result.error();
          if (error.kind == engine::EngineErrorKind::kHttpStatus && error.http_status == 404) {
            return done(std::optional<CheckpointImage>());
          }
          return done(ctx.engine_failure(error, "inspect image " + reference));
        }
        const auto& body = result.value().body;
        if (!body.is_object()) return done(std::optional<CheckpointImage>());
        // The inspect document has the list row's fields under other names.
        nlohmann::json row = {{"Id", body.value("Id", std::string())}, {"Labels", nullptr}};
        if (const auto config = body.find("Config");
            config != body.end() && config->is_object() && config->contains("Labels")) {
          row["Labels"] = (*config)["Labels"];
        }
        done(checkpoint_from_row(row, computer_id));
      },
      ctx.call_deadlines());
  track_in(scope, handle);
}

void layer_size(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                const std::string& image_id, Callback<std::int64_t> done) {
  if (ctx.shutting_down) return done(cancelled_failure());
  auto handle = ctx.client.get_json(
      image_path(image_id, "/history"),
      [&ctx, image_id, done = std::move(done)](engine::Result<engine::JsonResponse> result) {
        if (!result.ok()) {
          return done(ctx.engine_failure(result.error(), "read the history of image " + image_id));
        }
        const auto& layers = result.value().body;
        // Newest layer first: the commit's.
        if (!layers.is_array() || layers.empty() || !layers.front().is_object()) {
          return done(std::int64_t{0});
        }
        const auto size = layers.front().find("Size");
        done(size != layers.front().end() && size->is_number_integer()
                 ? std::max<std::int64_t>(0, size->get<std::int64_t>())
                 : std::int64_t{0});
      },
      ctx.call_deadlines());
  track_in(scope, handle);
}

void tag_image(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
               const std::string& image, const std::string& repository, const std::string& tag,
               Callback<Done> done) {
  if (ctx.shutting_down) return done(cancelled_failure());
  auto handle = ctx.client.call_json(
      "POST", engine::query_target(image_path(image, "/tag"), {{"repo", repository}, {"tag", tag}}),
      std::nullopt,
      [&ctx, image, done = std::move(done)](engine::Result<engine::JsonResponse> result) {
        if (!result.ok()) return done(ctx.engine_failure(result.error(), "tag image " + image));
        done(Done{});
      },
      ctx.call_deadlines());
  track_in(scope, handle);
}

void delete_image(BackendContext& ctx, const std::shared_ptr<CancelScope>& scope,
                  const std::string& reference, Callback<bool> done) {
  if (ctx.shutting_down) return done(cancelled_failure());
  auto handle = ctx.client.delete_json(
      image_path(reference),
      [&ctx, reference, done = std::move(done)](engine::Result<engine::JsonResponse> result) {
        if (result.ok()) return done(true);
        const auto& error = result.error();
        if (error.kind == engine::EngineErrorKind::kHttpStatus && error.http_status == 404) {
          return done(false);
        }
        if (error.kind == engine::EngineErrorKind::kHttpStatus && error.http_status == 409) {
          return done(OpFailure{VC_E_BUSY,
                                "Image " + reference + " is still in use: " +
                                    engine_reason(error) + ".",
                                error_details(ctx.profile, "image_in_use", true, 409)});
        }
        done(ctx.engine_failure(error, "delete image " + reference));
      },
      ctx.call_deadlines());
  track_in(scope, handle);
}

void delete_images_quietly(BackendContext& ctx, std::vector<std::string> references,
                           std::function<void()> done) {
  if (references.empty() || ctx.shutting_down) return done();
  std::string next = std::move(references.back());
  references.pop_back();
  delete_image(ctx, nullptr, next,
               [&ctx, next, references = std::move(references),
                done = std::move(done)](Expected<bool> deleted) mutable {
                 if (!deleted.ok()) {
                   ctx.log.warn("Could not delete image " + next + ": " + deleted.error().message);
                 }
                 delete_images_quietly(ctx, std::move(references), std::move(done));
               });
}

void delete_checkpoints_of(BackendContext& ctx, const std::string& computer_id,
                           std::vector<std::string> also, std::function<void()> done) {
  if (ctx.shutting_down) return done();
  list_checkpoint_images(
      ctx, nullptr, computer_id,
      [&ctx, computer_id, also = std::move(also),
       done = std::move(done)](Expected<std::vector<CheckpointImage>> listed) mutable {
        if (!listed.ok()) {
          ctx.log.warn("Could not list the checkpoints of removed computer '" + computer_id +
                       "' to delete them: " + listed.error().message);
        } else {
          for (const auto& image : listed.value()) {
            also.push_back(checkpoint_reference(computer_id, image.name));
          }
        }
        delete_images_quietly(ctx, std::move(also), std::move(done));
      });
}

}  // namespace vc::container
