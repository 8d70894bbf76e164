#include "core/parallel.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace synclint {

void parallel_for(std::size_t n, unsigned jobs, const std::function<void(std::size_t, unsigned)>& fn) {
  const std::size_t threads = std::min<std::size_t>(std::max(1u, jobs), n);
  if (threads <= 1) {
    for (std::size_t i = 0; i < n; ++i) fn(i, 0u);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::vector<std::jthread> pool;
  pool.reserve(threads);
  for (std::size_t t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (std::size_t i; (i = next.fetch_add(1)) < n;) fn(i, static_cast<unsigned>(t));
    });
}

}  // namespace synclint
