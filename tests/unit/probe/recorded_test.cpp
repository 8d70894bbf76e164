// Recorded event streams from real runs on a GPU machine (runtime_probe/testdata/*stream*.json): the
// analysis must find the sync sites and keep its invariants on real timelines.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "analysis/analysis.h"
#include "analysis/stream_io.h"

namespace synclint::probe {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> recordings() {
  std::vector<fs::path> files;
  const fs::path dir = fs::path(SYNCLINT_SOURCE_DIR) / "runtime_probe" / "testdata";
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (const std::string name = e.path().filename().string(); name.find("stream") != std::string::npos && name.ends_with(".json"))
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

TEST(ProbeRecorded, RealStreamsGiveSaneReports) {
  const auto files = recordings();
  if (files.empty()) GTEST_SKIP() << "no runtime_probe/testdata/*stream*.json recordings";
  for (const auto& file : files) {
    SCOPED_TRACE(file.string());
    const EventStream s = read_stream(file);
    ASSERT_FALSE(s.host.empty());
    const ProbeReport r = analyze(s);
    std::uint64_t blocking = 0;
    for (const auto& h : s.host)
      if (h.site >= 0 && (h.kind == HostCallKind::StreamSynchronize || h.kind == HostCallKind::DeviceSynchronize ||
                          h.kind == HostCallKind::EventSynchronize || h.kind == HostCallKind::BlockingCopy))
        ++blocking;
    std::uint64_t calls = 0;
    for (const auto& site : r.sites) {
      SCOPED_TRACE(site.site.path + ":" + std::to_string(site.site.line));
      calls += site.calls;
      EXPECT_FALSE(site.site.path.empty());
      EXPECT_GT(site.site.line, 0u);
      EXPECT_GE(site.wait_saving_ms, 0.0);
      EXPECT_LE(site.wait_saving_ms, site.host_blocked_ms + site.gpu_idle_ms + 1e-6);
      EXPECT_LE(site.wait_saving_ms, site.host_blocked_ms + 1e-6);  // at most the waits removed
      EXPECT_LE(site.wait_saving_ms, r.run.wall_ms);
      EXPECT_LE(site.gpu_idle_ms, r.gpu_idle_ms + 1e-6);
      EXPECT_LE(site.share_of_run, 1.0);
      EXPECT_LE(site.saving_if_removed_ms, r.run.wall_ms);
      // Removing the whole read saves at least what removing only its wait does (up to replay noise).
      EXPECT_GE(site.saving_if_removed_ms + 1e-3, site.wait_saving_ms);
    }
    EXPECT_EQ(calls, blocking);
    // The replay as recorded reproduces the real run's span closely.
    EXPECT_LT(std::abs(r.replay_error), 0.05);
    if (blocking > 0) {
      EXPECT_FALSE(r.sites.empty());
    }
    // Splitting into windows changes nothing that is counted.
    Accumulator acc;
    const std::size_t n = 4;
    for (std::size_t w = 0; w < n; ++w) {
      EventStream chunk;
      chunk.sites = s.sites;
      chunk.host.assign(s.host.begin() + static_cast<std::ptrdiff_t>(s.host.size() * w / n),
                        s.host.begin() + static_cast<std::ptrdiff_t>(s.host.size() * (w + 1) / n));
      chunk.gpu.assign(s.gpu.begin() + static_cast<std::ptrdiff_t>(s.gpu.size() * w / n),
                       s.gpu.begin() + static_cast<std::ptrdiff_t>(s.gpu.size() * (w + 1) / n));
      acc.consume(chunk);
    }
    const ProbeReport split = acc.finish({});
    EXPECT_EQ(split.syncs, r.syncs);
    EXPECT_NEAR(split.host_blocked_ms, r.host_blocked_ms, 1e-6);
    EXPECT_NEAR(split.gpu_idle_ms, r.gpu_idle_ms, 1e-6);
    ASSERT_EQ(split.sites.size(), r.sites.size());
    for (std::size_t i = 0; i < r.sites.size(); ++i) {
      EXPECT_EQ(split.sites[i].calls, r.sites[i].calls);
      EXPECT_NEAR(split.sites[i].predicted_saving_ms, r.sites[i].predicted_saving_ms, 1e-6);
      EXPECT_NEAR(split.sites[i].saving_if_removed_ms, r.sites[i].saving_if_removed_ms, 1e-6);
    }
  }
}

}  // namespace
}  // namespace synclint::probe
