// How long the calling thread has waited for a CPU: the run_delay of /proc/thread-self/schedstat (before
// Linux 3.17: /proc/self/task/TID/schedstat), the ns it spent runnable but not running, kept by the
// kernel's scheduler statistics. Read before and after a blocking
// CUDA call, its growth is the time the thread lost to other threads inside the call: a spinning sync
// preempted on an overloaded host returns that much later than the GPU let it, and the analysis keeps that
// time apart from the GPU's (HostCall::descheduled_ns). One pread of an open file per reading, 0.3 us.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace synclint::probe::inject {

// The run_delay field (the second of "exec_runtime run_delay timeslices") of a schedstat line.
std::optional<std::uint64_t> parse_run_delay(std::string_view schedstat);

// The calling thread's run_delay in ns; kNoRunDelay where the kernel does not provide it (the file opens
// once per thread, for the thread's lifetime; after a failure no thread tries again).
inline constexpr std::uint64_t kNoRunDelay = UINT64_MAX;
std::uint64_t thread_run_delay_ns();
// True once a thread found no schedstat file to open: the kernel keeps no run_delay (CONFIG_SCHED_INFO).
bool run_delay_unavailable();

}  // namespace synclint::probe::inject
