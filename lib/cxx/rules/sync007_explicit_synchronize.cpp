#include "cxx/ast_util.h"
#include "cxx/rules/rules.h"

namespace synclint::cxx {

namespace {
constexpr std::string_view kSynchronizeFix =
    "Remove the synchronize from the per-step path; to time GPU work record `at::cuda::CUDAEvent`s "
    "(`cudaEventRecord`) and read the elapsed time once per logging interval.";
}  // namespace

// torch::cuda::synchronize(), stream.synchronize(), event.synchronize(), cudaDeviceSynchronize(),
// cudaStreamSynchronize(), cudaEventSynchronize(), synchronous cudaMemcpy/cudaMemset, cudaMalloc/cudaFree.
void register_sync007(const Rule& rule, MatchFinder& f, MatchFinder::MatchCallback* cb) {
  match_catalog_apis(rule, f, cb);
}

void check_sync007(const MatchResult& r, RuleContext& c) {
  Site s = site_of(r);
  if (!s.call) return;
  if (s.member ? !is_catalog_method(c, s) : !is_catalog_function(c, s)) return;
  std::string_view name = s.member ? std::string_view(s.method) : last_component(s.function);
  std::string_view what = "blocks the host until the GPU has finished all queued work";
  if (name == "cudaMemcpy" || name == "cudaMemset")
    what = "is a synchronous copy that blocks the host until the GPU has finished all queued work";
  else if (name == "cudaMalloc" || name == "cudaFree")
    what = "synchronizes the device: it waits for all queued GPU work";
  std::string_view fix = kSynchronizeFix;
  if (name == "cudaMemcpy" || name == "cudaMemset")
    fix = "Use `cudaMemcpyAsync`/`cudaMemsetAsync` on the work's stream (pinned host memory for copies) and "
          "synchronize once where the result is read.";
  else if (name == "cudaMalloc" || name == "cudaFree")
    fix = "Allocate once outside the loop and reuse the buffer, or use `cudaMallocAsync`/`cudaFreeAsync` or "
          "LibTorch's caching allocator (`torch::empty(..., device)`).";
  c.out.report(c.rule, s.call, Confidence::High, what, fix);
}

}  // namespace synclint::cxx
