// expected.h — a value or an OpFailure: what every asynchronous step of a flow passes on.
#pragma once

#include <vc-backend-1/cpp/expected.h>
#include <vc-backend-1/cpp/op_result.h>
#include <vc_agent_channel/channel_types.h>

namespace vc::container {

// A failed step of a flow, and the op's failure when the flow ends with it.
using sdk::OpFailure;
using sdk::cancelled_failure;

template <class T>
using Expected = sdk::Expected<T, OpFailure>;

// Success without a value (the agent channels' own, so that steps pass it both ways).
using agent_channel::Done;

}  // namespace vc::container
