// channel_types.h — the value and callback types every file of the agent channel room uses.
//
// A step that can fail passes an Expected<T> (the SDK's, with its OpFailure) to a Callback<T>;
// Done is success without a value. Pure types; any thread.
#pragma once

#include <functional>

#include <vc-backend-1/cpp/cancel_scope.h>
#include <vc-backend-1/cpp/expected.h>
#include <vc-backend-1/cpp/op_result.h>

namespace vc::agent_channel {

using sdk::CancelScope;
using sdk::OpFailure;
using sdk::cancelled_failure;

template <class T>
using Expected = sdk::Expected<T, OpFailure>;

template <class T>
using Callback = std::function<void(Expected<T>)>;

// Success without a value.
struct Done {};

}  // namespace vc::agent_channel
