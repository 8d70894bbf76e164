#pragma once

#include <cstddef>
#include <cstdint>

#include "native_site.h"

namespace synclint::probe::inject {
// Captures `depth` frames below its caller, with an alloca of `dynamic_bytes` in the innermost one.
std::int32_t deep_capture(NativeSites& ns, int depth, std::size_t dynamic_bytes);
}  // namespace synclint::probe::inject
