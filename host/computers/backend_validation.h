// backend_validation.h — whether this process has already probed the backend's engine.
//
// validate() is asked once per server: the registry (acquiring the server's computer) and the
// lifecycle (any computer by id) share one BackendValidation, so whichever runs first probes
// the engine and the other trusts it. A failed probe leaves it unvalidated and the next
// operation probes again (the engine may have been started since). An engine that goes away
// later is reported by the operation that finds it gone, not by a new probe.
//
// [loop-thread] for every member.
#pragma once

namespace vc::computers {

class BackendValidation {
 public:
  bool validated() const { return validated_; }
  void mark_validated() { validated_ = true; }

 private:
  bool validated_ = false;
};

}  // namespace vc::computers
