// What a CUDA call queued and on which stream, read from the parameters CUPTI hands its callback: the
// kernel function and grid of a launch, the executable graph of a graph launch, the kind and size of a copy,
// the size of a memset, hashed into HostCall::launch_key, and the same without the sizes into
// HostCall::launch_family; the stream handle it named. The GPU model of stretches traced without GPU records
// learns and models work by these keys; a recorded stream keeps them. Calls it does not know keep 0: their
// GPU work is not modelled.
#pragma once

#include <cupti.h>

#include <cstdint>

#include "recorder.h"

namespace synclint::probe::inject {

// Fills `call`'s launch key, family, grid and stream handle from a runtime or driver call's parameters.
void describe_work(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* params, RawCall& call);

// The name of a copy's GPU record by CUPTI's copy kind (CUpti_ActivityMemcpyKind).
const char* memcpy_name(std::uint8_t kind);

}  // namespace synclint::probe::inject
