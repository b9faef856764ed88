// cancellable.h — a handle to started asynchronous work that can be asked to stop.
#pragma once

#include <memory>

namespace vc {

// [loop-thread] cancel() is idempotent and harmless after the work has completed. The work
// still reports its completion exactly once (as cancelled, or with its real result).
class Cancellable {
 public:
  virtual ~Cancellable() = default;
  virtual void cancel() = 0;
};

using CancelHandle = std::shared_ptr<Cancellable>;

}  // namespace vc
