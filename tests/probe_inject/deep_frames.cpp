// Library-like frames between the user's call and the capture (skipped by file in native_site_test):
// a recursion of fixed frames, and frames whose size changes from call to call (alloca).
#include "deep_frames.h"

#include <alloca.h>

#include <cstring>

namespace synclint::probe::inject {

namespace {
__attribute__((noinline)) std::int32_t dynamic_frame(NativeSites& ns, std::size_t bytes) {
  auto* buf = static_cast<char*>(alloca(bytes));
  std::memset(buf, 0, bytes);
  asm volatile("" : : "r"(buf) : "memory");
  std::int32_t site = ns.capture();
  asm volatile("" ::: "memory");
  return site;
}
}  // namespace

__attribute__((noinline)) std::int32_t deep_capture(NativeSites& ns, int depth, std::size_t dynamic_bytes) {
  if (depth > 0) {
    std::int32_t site = deep_capture(ns, depth - 1, dynamic_bytes);
    asm volatile("" ::: "memory");  // not a tail call
    return site;
  }
  std::int32_t site = dynamic_bytes > 0 ? dynamic_frame(ns, dynamic_bytes) : ns.capture();
  asm volatile("" ::: "memory");
  return site;
}

}  // namespace synclint::probe::inject
