// A loop over [0, n) on worker threads, for the work that files make independently of each other.
#pragma once

#include <cstddef>
#include <functional>

namespace synclint {

// Runs fn(i, worker) for every i in [0, n) on up to `jobs` threads (at least one, at most n): the calling
// thread and threads kept from one loop to the next. Threads take the indexes in order as they become
// free; `worker` (0 to threads - 1) names the thread, so that fn can keep one object per thread. With one
// thread, or n <= 1, fn runs on the calling thread. Returns when every call has returned. When fn throws (on any
// thread), no index is taken after that, and once the calls running have returned the first exception is
// thrown on the calling thread.
void parallel_for(std::size_t n, unsigned jobs, const std::function<void(std::size_t i, unsigned worker)>& fn);

}  // namespace synclint
