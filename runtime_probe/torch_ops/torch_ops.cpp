// LibTorch's RecordFunction hook for the read operators: see torch_ops.h.
#include "torch_ops.h"

#include <ATen/record_function.h>

#include <atomic>
#include <cstring>
#include <memory>

namespace {

std::atomic<SynclintTorchOpsClock> g_clock{nullptr};
std::atomic<SynclintTorchOpsSink> g_sink{nullptr};
at::CallbackHandle g_handle = at::INVALID_CALLBACK_HANDLE;
// Bumped by each enable: a thread's count of open reads from before (whose end a disabled hook did not
// see) starts again from zero.
std::atomic<std::uint32_t> g_epoch{0};

// Only the outermost read of a thread is timed: `.item()` runs aten::item, which runs
// aten::_local_scalar_dense; the read is the outer one.
thread_local int t_depth = 0;
thread_local std::uint64_t t_start = 0;
thread_local std::uint32_t t_epoch = 0;

struct Started : at::ObserverContext {};

std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction& fn) {
  if (!synclint_torch_ops_is_read(fn.name())) return nullptr;
  if (const std::uint32_t epoch = g_epoch.load(std::memory_order_relaxed); t_epoch != epoch) {
    t_epoch = epoch;
    t_depth = 0;
  }
  if (t_depth++ == 0) {
    SynclintTorchOpsClock clock = g_clock.load(std::memory_order_relaxed);
    t_start = clock != nullptr ? clock() : 0;
  }
  return std::make_unique<Started>();
}

void on_end(const at::RecordFunction&, at::ObserverContext* ctx) {
  if (ctx == nullptr || t_depth == 0 || --t_depth != 0) return;  // not a read, or an inner one
  SynclintTorchOpsClock clock = g_clock.load(std::memory_order_relaxed);
  SynclintTorchOpsSink sink = g_sink.load(std::memory_order_relaxed);
  if (clock != nullptr && sink != nullptr && t_start != 0) sink(t_start, clock());
}

}  // namespace

extern "C" {

int synclint_torch_ops_is_read(const char* name) {
  if (name == nullptr) return 0;
  // The operators that are nothing but a read of a device scalar: `.item()` (and the scalar reads built
  // on it) and `if (t)` in C++. Not `.cpu()` / `.to()`: their aten::_to_copy also runs for every wrapped
  // scalar and dtype conversion (`x + 1`), and an operator that computes before it reads (nonzero, equal)
  // would count its own launches as the read's host time.
  static constexpr const char* kReads[] = {"aten::item", "aten::_local_scalar_dense", "aten::is_nonzero"};
  for (const char* read : kReads)
    if (std::strcmp(name, read) == 0) return 1;
  return 0;
}

int synclint_torch_ops_start(SynclintTorchOpsClock clock, SynclintTorchOpsSink sink) {
  if (clock == nullptr || sink == nullptr) return 0;
  g_clock.store(clock);
  g_sink.store(sink);
  if (g_handle != at::INVALID_CALLBACK_HANDLE) return 1;
  try {
    g_handle = at::addGlobalCallback(
        at::RecordFunctionCallback(on_start, on_end).needsInputs(false).scopes({at::RecordScope::FUNCTION}));
  } catch (...) {
    g_handle = at::INVALID_CALLBACK_HANDLE;
  }
  if (g_handle == at::INVALID_CALLBACK_HANDLE) return 0;
  at::disableCallback(g_handle);
  return 1;
}

void synclint_torch_ops_enable(int on) {
  if (g_handle == at::INVALID_CALLBACK_HANDLE) return;
  if (on) {
    g_epoch.fetch_add(1, std::memory_order_relaxed);
    at::reenableCallback(g_handle);
  }
  else at::disableCallback(g_handle);
}

}  // extern "C"
