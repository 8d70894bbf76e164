#include "work_keys.h"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "analysis/events.h"

namespace synclint::probe::inject {
namespace {

using synclint::probe::key_mix;

// A launch: the key of the function and its grid and block, the family of the function alone; and the
// grid's size, which recorded streams keep.
void launch_keys(RawCall& call, const void* func, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz) {
  std::uint64_t h = key_mix(0x4b, reinterpret_cast<std::uintptr_t>(func));
  call.launch_family = h | 1;  // never 0
  for (unsigned v : {gx, gy, gz, bx, by, bz}) h = key_mix(h, v);
  call.launch_key = h | 1;
  call.launch_blocks = std::uint64_t{gx} * gy * gz;  // at most 2^31 x 2^16 x 2^16: fits
  call.launch_block_threads = bx * by * bz;          // at most 1024 on every GPU; the product of what was passed
}

// A copy: the key of its kind and size, the family of its kind.
void copy_keys(RawCall& call, cudaMemcpyKind kind, std::size_t count) {
  call.launch_family = synclint::probe::copy_family(static_cast<std::uint64_t>(kind));
  call.launch_key = key_mix(call.launch_family, count) | 1;
}

// A CUDA graph's launch: the key of its executable graph; one family for all graphs (a graph never seen
// takes the durations of those seen).
void graph_keys(RawCall& call, const void* exec) {
  call.launch_family = key_mix(0x47, 0) | 1;
  call.launch_key = key_mix(0x47, reinterpret_cast<std::uintptr_t>(exec)) | 1;
}

// The per-thread default stream of a _ptsz call that named the default stream (cudaStreamPerThread).
std::uint64_t stream_of(const void* stream, bool per_thread) {
  return stream == nullptr && per_thread ? 2 : reinterpret_cast<std::uintptr_t>(stream);
}

}  // namespace

void describe_work(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void* params, RawCall& call) {
  if (params == nullptr) return;
  if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
    if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel || cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz) {
      const auto* p = static_cast<const cuLaunchKernel_params*>(params);
      launch_keys(call, p->f, p->gridDimX, p->gridDimY, p->gridDimZ, p->blockDimX, p->blockDimY, p->blockDimZ);
      call.stream_handle = stream_of(p->hStream, cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz);
    } else if (cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx || cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz) {
      const auto* p = static_cast<const cuLaunchKernelEx_params*>(params);
      if (p->config == nullptr) return;
      const CUlaunchConfig& c = *p->config;
      launch_keys(call, p->f, c.gridDimX, c.gridDimY, c.gridDimZ, c.blockDimX, c.blockDimY, c.blockDimZ);
      call.stream_handle = stream_of(c.hStream, cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz);
    } else if (cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch) {
      const auto* p = static_cast<const cuGraphLaunch_params*>(params);
      graph_keys(call, p->hGraph);
      call.stream_handle = stream_of(p->hStream, false);
    } else if (cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz) {
      const auto* p = static_cast<const cuGraphLaunch_ptsz_params*>(params);
      graph_keys(call, p->hGraphExec);
      call.stream_handle = stream_of(p->hStream, true);
    }
    return;
  }
  switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000: {
      const auto* p = static_cast<const cudaLaunchKernel_v7000_params*>(params);
      launch_keys(call, p->func, p->gridDim.x, p->gridDim.y, p->gridDim.z, p->blockDim.x, p->blockDim.y, p->blockDim.z);
      call.stream_handle = stream_of(p->stream, cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000);
      return;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060: {
      const auto* p = static_cast<const cudaLaunchKernelExC_v11060_params*>(params);
      if (p->config == nullptr) return;
      const cudaLaunchConfig_t& c = *p->config;
      launch_keys(call, p->func, c.gridDim.x, c.gridDim.y, c.gridDim.z, c.blockDim.x, c.blockDim.y, c.blockDim.z);
      call.stream_handle = stream_of(c.stream, cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060);
      return;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000: {
      const auto* p = static_cast<const cudaGraphLaunch_v10000_params*>(params);  // the _ptsz form's alike
      graph_keys(call, p->graphExec);
      call.stream_handle = stream_of(p->stream, cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000);
      return;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000: {
      const auto* p = static_cast<const cudaMemcpyAsync_v3020_params*>(params);
      copy_keys(call, p->kind, p->count);
      call.stream_handle = stream_of(p->stream, cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000);
      return;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000: {  // a blocking copy, on the default stream
      const auto* p = static_cast<const cudaMemcpy_v3020_params*>(params);
      copy_keys(call, p->kind, p->count);
      call.stream_handle = stream_of(nullptr, cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000);
      return;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000: {
      const auto* p = static_cast<const cudaMemsetAsync_v3020_params*>(params);
      call.launch_family = 0x53;
      call.launch_key = key_mix(0x53, p->count) | 1;
      call.stream_handle = stream_of(p->stream, cbid == CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000);
      return;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000: {
      const auto* p = static_cast<const cudaStreamSynchronize_v3020_params*>(params);
      call.stream_handle = stream_of(p->stream, cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000);
      return;
    }
    default: return;
  }
}

const char* memcpy_name(std::uint8_t kind) {
  using synclint::probe::kCopyRecordNames;  // indexed by cudaMemcpyKind
  switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return kCopyRecordNames[cudaMemcpyHostToDevice];
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return kCopyRecordNames[cudaMemcpyDeviceToHost];
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return kCopyRecordNames[cudaMemcpyDeviceToDevice];
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return kCopyRecordNames[cudaMemcpyHostToHost];
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "memcpy PtoP";
    default: return "memcpy";
  }
}

}  // namespace synclint::probe::inject
