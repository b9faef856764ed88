#include "plugin_loader/retain_forever.h"

#include <mutex>
#include <vector>

namespace vc::plugins {

namespace {

struct RetainedObjects {
  std::mutex mutex;
  std::vector<std::shared_ptr<const void>> objects;
};

RetainedObjects& retained_objects() {
  // Never destroyed: static destructors run while detached plugin threads may still use these.
  static auto* retained = new RetainedObjects();
  return *retained;
}

}  // namespace

void retain_forever(std::shared_ptr<const void> object) {
  if (!object) return;
  RetainedObjects& retained = retained_objects();
  std::lock_guard lock(retained.mutex);
  retained.objects.push_back(std::move(object));
}

}  // namespace vc::plugins
