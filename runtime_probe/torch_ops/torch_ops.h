// libsynclint_torch_ops.so: times LibTorch's read operators (`.item()`, `.cpu()`, ...) on the host for the
// runtime probe, through LibTorch's own RecordFunction hook (the one its profiler uses). In a C++ program
// nothing else can time the host work of a read outside its CUDA calls (the dispatcher, the host scalar):
// in Python the probe times the Python call around the read (sys.monitoring). The shim is built against the
// LibTorch the program uses (its C++ ABI) and opened by the probe with SYNCLINT_PROBE_TORCH_OPS=PATH.
#pragma once

#include <cstdint>

#define SYNCLINT_TORCH_OPS_API __attribute__((visibility("default")))

extern "C" {

// The probe's clock (CUPTI's), and where each timed read goes: called on the thread that ran it, at its end.
using SynclintTorchOpsClock = std::uint64_t (*)();
using SynclintTorchOpsSink = void (*)(std::uint64_t start_ns, std::uint64_t end_ns);

// Registers the hook, off until enabled. 1 on success, 0 when LibTorch refused it (then nothing is timed).
SYNCLINT_TORCH_OPS_API int synclint_torch_ops_start(SynclintTorchOpsClock clock, SynclintTorchOpsSink sink);
// Turns the timing on or off (the probe's traced stretches): while off, operators cost LibTorch nothing more.
SYNCLINT_TORCH_OPS_API void synclint_torch_ops_enable(int on);
// Whether `name` (an operator's schema name, "aten::item") is timed.
SYNCLINT_TORCH_OPS_API int synclint_torch_ops_is_read(const char* name);

}  // extern "C"
