// What a call queued, read from its CUPTI parameters (work_keys.h): the keys the GPU model learns and
// models work by, and the stream each call named.
#include "work_keys.h"

#include <cuda_runtime_api.h>

#include <string>

#include <gtest/gtest.h>

#include "analysis/events.h"

namespace synclint::probe::inject {
namespace {

RawCall launch(const void* func, dim3 grid, dim3 block, cudaStream_t stream = nullptr,
               CUpti_CallbackId cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000) {
  cudaLaunchKernel_v7000_params p{};
  p.func = func;
  p.gridDim = grid;
  p.blockDim = block;
  p.stream = stream;
  RawCall call;
  describe_work(CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &p, call);
  return call;
}

RawCall copy(std::size_t count, cudaMemcpyKind kind, cudaStream_t stream = nullptr) {
  cudaMemcpyAsync_v3020_params p{};
  p.count = count;
  p.kind = kind;
  p.stream = stream;
  RawCall call;
  describe_work(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, &p, call);
  return call;
}

int kernel_a, kernel_b;  // two "functions"

TEST(WorkKeys, ALaunchIsKeyedByItsFunctionAndGridAndFamiliedByItsFunction) {
  const RawCall a = launch(&kernel_a, dim3(64), dim3(256));
  EXPECT_NE(a.launch_key, 0u);
  EXPECT_NE(a.launch_family, 0u);
  EXPECT_EQ(a.launch_blocks, 64u);
  EXPECT_EQ(a.launch_block_threads, 256u);
  EXPECT_EQ(launch(&kernel_a, dim3(64), dim3(256)).launch_key, a.launch_key);  // the same work again
  const RawCall bigger = launch(&kernel_a, dim3(128), dim3(256));
  EXPECT_NE(bigger.launch_key, a.launch_key);
  EXPECT_EQ(bigger.launch_family, a.launch_family);
  EXPECT_EQ(bigger.launch_blocks, 128u);
  const RawCall other = launch(&kernel_b, dim3(64), dim3(256));
  EXPECT_NE(other.launch_family, a.launch_family);
  EXPECT_EQ(launch(&kernel_a, dim3(4, 2, 3), dim3(8, 8)).launch_blocks, 24u);
  EXPECT_EQ(launch(&kernel_a, dim3(4, 2, 3), dim3(8, 8)).launch_block_threads, 64u);
}

TEST(WorkKeys, TheStreamIsTheHandleNamedAndThePerThreadDefaultStreamIsTwo) {
  auto* s = reinterpret_cast<cudaStream_t>(0x1234);
  EXPECT_EQ(launch(&kernel_a, dim3(1), dim3(1), s).stream_handle, 0x1234u);
  EXPECT_EQ(launch(&kernel_a, dim3(1), dim3(1)).stream_handle, 0u);  // the legacy default stream
  EXPECT_EQ(launch(&kernel_a, dim3(1), dim3(1), nullptr, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000).stream_handle, 2u);
  EXPECT_EQ(copy(8, cudaMemcpyDeviceToHost, s).stream_handle, 0x1234u);
}

TEST(WorkKeys, ACopyIsKeyedByItsKindAndSize) {
  const RawCall d2h = copy(4096, cudaMemcpyDeviceToHost);
  EXPECT_EQ(d2h.launch_family, copy_family(cudaMemcpyDeviceToHost));
  EXPECT_EQ(copy(4096, cudaMemcpyDeviceToHost).launch_key, d2h.launch_key);
  EXPECT_NE(copy(8192, cudaMemcpyDeviceToHost).launch_key, d2h.launch_key);
  EXPECT_NE(copy(4096, cudaMemcpyHostToDevice).launch_family, d2h.launch_family);
  EXPECT_EQ(d2h.launch_blocks, 0u);  // not a launch
}

TEST(WorkKeys, AMemsetIsKeyedByItsSize) {
  cudaMemsetAsync_v3020_params p{};
  p.count = 64;
  RawCall a, b;
  describe_work(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020, &p, a);
  p.count = 128;
  describe_work(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020, &p, b);
  EXPECT_EQ(a.launch_family, b.launch_family);
  EXPECT_NE(a.launch_key, b.launch_key);
  EXPECT_NE(a.launch_key, 0u);
}

TEST(WorkKeys, CallsItDoesNotKnowOrWithoutParametersKeepNoKey) {
  cudaLaunchKernel_v7000_params p{};
  p.func = &kernel_a;
  RawCall call;
  describe_work(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, nullptr, call);
  EXPECT_EQ(call.launch_key, 0u);
  describe_work(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, &p, call);
  EXPECT_EQ(call.launch_key, 0u);
  EXPECT_EQ(call.launch_family, 0u);
  EXPECT_EQ(call.stream_handle, 0u);
}

TEST(WorkKeys, CopyRecordNamesFollowCuptisCopyKinds) {
  EXPECT_EQ(std::string(memcpy_name(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH)), "memcpy DtoH");
  EXPECT_EQ(std::string(memcpy_name(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD)), "memcpy HtoD");
  EXPECT_EQ(std::string(memcpy_name(CUPTI_ACTIVITY_MEMCPY_KIND_DTOD)), "memcpy DtoD");
  EXPECT_EQ(std::string(memcpy_name(CUPTI_ACTIVITY_MEMCPY_KIND_PTOP)), "memcpy PtoP");
  EXPECT_EQ(std::string(memcpy_name(CUPTI_ACTIVITY_MEMCPY_KIND_UNKNOWN)), "memcpy");
}

}  // namespace
}  // namespace synclint::probe::inject
