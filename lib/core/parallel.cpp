#include "core/parallel.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace synclint {
namespace {

// Threads kept for the loops, so that each loop does not start and end threads of its own (the language
// server runs a dozen loops per keystroke). One loop runs on them at a time; another caller meanwhile (a
// second thread, or a loop inside a loop) gets threads of its own, as does a child process after fork().
class Pool {
 public:
  static Pool& get() {
    static Pool pool;
    return pool;
  }

  // Runs body(0) on the calling thread and body(1..extra) on pool threads; false (nothing run) when the
  // pool is busy or belongs to another process.
  bool run(unsigned extra, const std::function<void(unsigned)>& body) {
    if (getpid() != pid_) return false;
    std::unique_lock busy(busy_, std::try_to_lock);
    if (!busy.owns_lock()) return false;
    {
      std::lock_guard lock(m_);
      while (threads_.size() < extra) threads_.emplace_back([this] { serve(); });
      job_ = &body;
      wanted_ = extra;
      taken_ = 0;
      running_ = 0;
      ++generation_;
    }
    wake_.notify_all();
    std::exception_ptr error;
    try {
      body(0);
    } catch (...) {
      error = std::current_exception();
    }
    std::unique_lock lock(m_);
    done_.wait(lock, [&] { return taken_ == wanted_ && running_ == 0; });
    job_ = nullptr;
    lock.unlock();
    if (error) std::rethrow_exception(error);
    return true;
  }

  ~Pool() {
    {
      std::lock_guard lock(m_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

 private:
  void serve() {
    std::uint64_t seen = 0;
    std::unique_lock lock(m_);
    for (;;) {
      wake_.wait(lock, [&] { return stop_ || (generation_ != seen && taken_ < wanted_); });
      if (stop_) return;
      seen = generation_;
      const unsigned worker = ++taken_;
      ++running_;
      const std::function<void(unsigned)>& body = *job_;
      lock.unlock();
      body(worker);
      lock.lock();
      --running_;
      if (taken_ == wanted_ && running_ == 0) done_.notify_all();
    }
  }

  const pid_t pid_ = getpid();
  std::mutex busy_;  // held by the loop running on the pool
  std::mutex m_;
  std::condition_variable wake_, done_;
  std::vector<std::thread> threads_;
  const std::function<void(unsigned)>* job_ = nullptr;
  unsigned wanted_ = 0, taken_ = 0, running_ = 0;
  std::uint64_t generation_ = 0;
  bool stop_ = false;
};

}  // namespace

void parallel_for(std::size_t n, unsigned jobs, const std::function<void(std::size_t, unsigned)>& fn) {
  const std::size_t threads = std::min<std::size_t>(std::max(1u, jobs), n);
  if (threads <= 1) {
    for (std::size_t i = 0; i < n; ++i) fn(i, 0u);
    return;
  }
  // The first exception thrown by fn, on any thread, ends the loop: no index is taken after it, the calls
  // running on other threads return, and it is thrown again on the calling thread.
  std::atomic<std::size_t> next{0};
  std::mutex failed;
  std::exception_ptr error;
  const std::function<void(unsigned)> body = [&](unsigned worker) {
    try {
      for (std::size_t i; (i = next.fetch_add(1)) < n;) fn(i, worker);
    } catch (...) {
      next.store(n);
      std::lock_guard lock(failed);
      if (!error) error = std::current_exception();
    }
  };
  if (!Pool::get().run(static_cast<unsigned>(threads - 1), body)) {
    std::vector<std::jthread> pool;
    pool.reserve(threads);
    for (std::size_t t = 0; t < threads; ++t) pool.emplace_back([&, t] { body(static_cast<unsigned>(t)); });
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace synclint
