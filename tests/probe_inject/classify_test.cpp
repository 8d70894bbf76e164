#include "classify.h"

#include <gtest/gtest.h>

#include "site_filter.h"

namespace synclint::probe::inject {
namespace {

TEST(NormalizeApiName, StripsVersionAndPerThreadSuffixes) {
  EXPECT_EQ(normalize_api_name("cudaLaunchKernel_v7000"), "cudaLaunchKernel");
  EXPECT_EQ(normalize_api_name("cudaMemcpyAsync_ptsz_v7000"), "cudaMemcpyAsync");
  EXPECT_EQ(normalize_api_name("cudaStreamSynchronize"), "cudaStreamSynchronize");
  EXPECT_EQ(normalize_api_name("cuMemcpyDtoH_v2"), "cuMemcpyDtoH");
  EXPECT_EQ(normalize_api_name("cuMemcpy2D_v2"), "cuMemcpy2D");
  EXPECT_EQ(normalize_api_name("_v2"), "_v2");
}

TEST(ClassifyApi, RuntimeSynchronizations) {
  auto s = classify_api(ApiDomain::Runtime, "cudaStreamSynchronize");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->kind, HostCallKind::StreamSynchronize);
  EXPECT_TRUE(s->blocking);
  EXPECT_EQ(classify_api(ApiDomain::Runtime, "cudaDeviceSynchronize")->kind, HostCallKind::DeviceSynchronize);
  EXPECT_EQ(classify_api(ApiDomain::Runtime, "cudaEventSynchronize")->kind, HostCallKind::EventSynchronize);
  EXPECT_EQ(classify_api(ApiDomain::Runtime, "cudaFree")->kind, HostCallKind::DeviceSynchronize);
  // Only the side-effect syncs are implicit: the Python call that made them is not timed as a read.
  EXPECT_TRUE(classify_api(ApiDomain::Runtime, "cudaFree")->implicit);
  EXPECT_TRUE(classify_api(ApiDomain::Runtime, "cudaFreeHost")->implicit);
  EXPECT_FALSE(classify_api(ApiDomain::Runtime, "cudaDeviceSynchronize")->implicit);
  EXPECT_FALSE(s->implicit);
}

TEST(ClassifyApi, CopiesAreBlockingUnlessAsync) {
  auto sync_copy = classify_api(ApiDomain::Runtime, "cudaMemcpy");
  ASSERT_TRUE(sync_copy);
  EXPECT_EQ(sync_copy->kind, HostCallKind::BlockingCopy);
  EXPECT_TRUE(sync_copy->blocking);
  EXPECT_EQ(classify_api(ApiDomain::Runtime, "cudaMemcpy2D")->kind, HostCallKind::BlockingCopy);
  auto async = classify_api(ApiDomain::Runtime, "cudaMemcpyAsync");
  ASSERT_TRUE(async);
  EXPECT_EQ(async->kind, HostCallKind::AsyncCopy);
  EXPECT_FALSE(async->blocking);
  EXPECT_TRUE(async->check_pageable);
  EXPECT_FALSE(classify_api(ApiDomain::Runtime, "cudaMemcpy2DAsync")->check_pageable);
}

TEST(ClassifyApi, LaunchesAndOthers) {
  EXPECT_EQ(classify_api(ApiDomain::Runtime, "cudaLaunchKernel")->kind, HostCallKind::Launch);
  EXPECT_EQ(classify_api(ApiDomain::Runtime, "cudaLaunchKernelExC")->kind, HostCallKind::Launch);
  EXPECT_EQ(classify_api(ApiDomain::Runtime, "cudaGraphLaunch")->kind, HostCallKind::Launch);
  EXPECT_EQ(classify_api(ApiDomain::Runtime, "cudaMemsetAsync")->kind, HostCallKind::Launch);
  EXPECT_EQ(classify_api(ApiDomain::Runtime, "cudaEventRecord")->kind, HostCallKind::Other);
  EXPECT_FALSE(classify_api(ApiDomain::Runtime, "cudaGetDevice"));
  EXPECT_FALSE(classify_api(ApiDomain::Runtime, "cudaStreamIsCapturing"));
  EXPECT_FALSE(classify_api(ApiDomain::Runtime, "cudaGetLastError"));
}

TEST(ClassifyApi, DriverCalls) {
  EXPECT_EQ(classify_api(ApiDomain::Driver, "cuLaunchKernel")->kind, HostCallKind::Launch);
  EXPECT_EQ(classify_api(ApiDomain::Driver, "cuStreamSynchronize")->kind, HostCallKind::StreamSynchronize);
  EXPECT_EQ(classify_api(ApiDomain::Driver, "cuCtxSynchronize")->kind, HostCallKind::DeviceSynchronize);
  EXPECT_EQ(classify_api(ApiDomain::Driver, "cuMemcpyDtoH")->kind, HostCallKind::BlockingCopy);
  EXPECT_TRUE(classify_api(ApiDomain::Driver, "cuMemcpyDtoHAsync")->check_pageable);
  EXPECT_TRUE(classify_api(ApiDomain::Driver, "cuMemsetD32Async")->memset);
  EXPECT_FALSE(classify_api(ApiDomain::Driver, "cuCtxGetDevice"));
  EXPECT_FALSE(classify_api(ApiDomain::Driver, "cudaLaunchKernel"));
}

TEST(SiteFilters, DefaultsSkipLibrariesAndStdlib) {
  auto f = make_site_filters(nullptr);
  EXPECT_TRUE(f.python_files.matches("/usr/lib/python3/dist-packages/torch/_tensor.py"));
  EXPECT_TRUE(f.python_files.matches("/opt/venv/lib/python3.12/site-packages/torch/nn/modules/module.py"));
  EXPECT_TRUE(f.python_files.matches("/usr/lib/python3.12/threading.py"));
  EXPECT_TRUE(f.python_files.matches("<frozen runpy>"));
  EXPECT_FALSE(f.python_files.matches("/home/u/project/train.py"));
  EXPECT_TRUE(f.native_modules.matches("/opt/venv/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so"));
  EXPECT_TRUE(f.native_modules.matches("/usr/local/cuda/lib64/libcudart.so.13"));
  EXPECT_TRUE(f.native_modules.matches("/lib/x86_64-linux-gnu/libc.so.6"));
  EXPECT_FALSE(f.native_modules.matches("/home/u/build/train_cpp"));
  EXPECT_TRUE(f.native_files.matches("/opt/venv/lib/python3.12/site-packages/torch/include/ATen/core/TensorBody.h"));
}

TEST(SiteFilters, EnvironmentReplacesOrExtends) {
  auto replaced = make_site_filters("mylib/, /vendor/");
  EXPECT_FALSE(replaced.python_files.matches("/x/site-packages/torch/_tensor.py"));
  EXPECT_TRUE(replaced.python_files.matches("/x/mylib/util.py"));
  EXPECT_TRUE(replaced.native_modules.matches("/x/vendor/libwrap.so"));
  EXPECT_TRUE(replaced.native_modules.matches("/x/libtorch.so"));  // native defaults stay
  auto extended = make_site_filters("+mylib/");
  EXPECT_TRUE(extended.python_files.matches("/x/site-packages/torch/_tensor.py"));
  EXPECT_TRUE(extended.python_files.matches("/x/mylib/util.py"));
}

TEST(SplitList, TrimsAndDropsEmptyItems) {
  EXPECT_EQ(split_list(" a, b ,,c "), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(split_list("").empty());
  EXPECT_EQ(split_list("/usr/bin:/bin", ':'), (std::vector<std::string>{"/usr/bin", "/bin"}));
}

}  // namespace
}  // namespace synclint::probe::inject
