// `synclint probe` over the stand-in CUPTI: the real CLI, the real injected library: the ranked table and
// the trace, the --gpu-records option, and the reports of two ranks merged.
#include <fstream>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/report_io.h"
#include "options.h"

#include "injection_fixture.h"

namespace synclint::probe::inject {
namespace {

// `synclint probe --trace` on the played loop: the real CLI, the real injected library, the stand-in CUPTI.
TEST_F(Injection, SynclintProbeRanksThePlayedLoopAndTracesItsKernelsAndBubbles) {
#ifndef SYNCLINT_EXE
  GTEST_SKIP() << "built without the synclint CLI";
#else
  use_stand_in_cupti(true);
  const fs::path report = dir_ / "r.json", trace = dir_ / "t.json";
  std::string out;
  const bool ran = run_capture({SYNCLINT_EXE, "probe", "-o", report.string(), "--trace", trace.string(), "--",
                                FAKE_CUDA_HOST, PROBE_LIBRARY, FAKE_CUPTI, "100"}, out);
  ASSERT_TRUE(ran) << out;
  EXPECT_NE(out.find("fake_cuda_host.cpp:"), std::string::npos) << out;  // the ranked table names the site
  const ProbeReport r = read_report(report);
  ASSERT_EQ(r.sites.size(), 1u);
  EXPECT_EQ(r.sites[0].calls, 100u);
  std::ifstream in(trace);
  const nlohmann::json doc = nlohmann::json::parse(in);
  std::set<std::string> tracks;
  int kernels = 0, bubbles = 0, reads = 0;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") tracks.insert(e["args"]["name"].get<std::string>());
    if (e["ph"] != "X") continue;
    const std::string name = e["name"];
    kernels += name == "fake_kernel";
    bubbles += name.starts_with("GPU idle after fake_cuda_host.cpp:") && name.ends_with(" cudaStreamSynchronize");
    reads += e.value("cat", "") == "sync";
  }
  EXPECT_EQ(kernels, 100);
  EXPECT_EQ(reads, 100);
  // After each read but the last the GPU waits for the next launch; a read that finds its kernel done
  // already (the host preempted past the kernel's 300 us, as under a loaded CI machine) leaves none.
  EXPECT_GE(bubbles, 90);
  EXPECT_TRUE(tracks.count("GPU 0 stream 7")) << doc["traceEvents"].size();
#endif
}

// `synclint probe --gpu-records` hands the setting to the probe, which names it in the report; without
// it the probe's default (first) holds, and --trace keeps the records on.
TEST_F(Injection, SynclintProbeGpuRecordsOptionPicksTheSetting) {
#ifndef SYNCLINT_EXE
  GTEST_SKIP() << "built without the synclint CLI";
#else
  use_stand_in_cupti(true);
  struct Case {
    std::vector<std::string> options;
    const char* reported;
  };
  for (const Case& c : {Case{{}, "first"}, Case{{"--gpu-records", "model"}, "model"}, Case{{"--gpu-records", "all"}, "all"},
                        Case{{"--gpu-records", "none"}, "none"}, Case{{"--trace", (dir_ / "t.json").string()}, "all"}}) {
    const fs::path report = dir_ / "r.json";
    std::vector<std::string> argv = {SYNCLINT_EXE, "probe", "-o", report.string()};
    argv.insert(argv.end(), c.options.begin(), c.options.end());
    argv.insert(argv.end(), {"--", FAKE_CUDA_HOST, PROBE_LIBRARY, FAKE_CUPTI, "100"});
    std::string out;
    ASSERT_TRUE(run_capture(argv, out)) << out;
    EXPECT_EQ(read_report(report).run.gpu_records, c.reported) << (c.options.empty() ? "(none)" : c.options[0]) << "\n" << out;
  }
  std::string out;
  EXPECT_FALSE(run_capture({"/bin/sh", "-c", "exec \"$@\" 2>&1", "sh", SYNCLINT_EXE, "probe", "--gpu-records", "sometimes",
                            "--", FAKE_CUDA_HOST},
                           out));
  EXPECT_NE(out.find("--gpu-records: sometimes not in {model,first,all,none}"), std::string::npos) << out;
#endif
}

// One process per rank, as torchrun starts them: each writes report-rank<R>-<pid>.json and `synclint
// probe` merges them into one ranked site with both ranks' reads.
TEST_F(Injection, SynclintProbeMergesTheReportsOfTwoRanks) {
#ifndef SYNCLINT_EXE
  GTEST_SKIP() << "built without the synclint CLI";
#else
  use_stand_in_cupti(true);
  const fs::path report = dir_ / "merged.json", kept = dir_ / "kept";
  const std::string host = std::string(FAKE_CUDA_HOST) + " " + PROBE_LIBRARY + " " + FAKE_CUPTI;
  const std::string ranks = "RANK=0 " + host + " 40 & RANK=1 " + host + " 60; wait";
  std::string out;
  const bool ran = run_capture({SYNCLINT_EXE, "probe", "-o", report.string(), "--keep-dir", kept.string(), "--", "/bin/sh", "-c", ranks}, out);
  ASSERT_TRUE(ran) << out;
  int per_rank = 0;
  for (const auto& e : fs::directory_iterator(kept))
    per_rank += e.path().filename().string().starts_with("report-rank");
  EXPECT_EQ(per_rank, 2);
  const ProbeReport r = read_report(report);
  EXPECT_EQ(r.runs.size(), 2u);
  EXPECT_EQ(r.run.rank, 0);
  ASSERT_EQ(r.sites.size(), 1u);
  EXPECT_EQ(r.sites[0].calls, 100u);
  EXPECT_EQ(r.syncs, 100u);
#endif
}

// `synclint probe settings --markdown` prints the probe's user settings as docs/probe.md holds them; without
// --markdown, every setting, the diagnostics too.
TEST(ProbeSettingsCommand, PrintsTheProbesSettingsTable) {
#ifndef SYNCLINT_EXE
  GTEST_SKIP() << "built without the synclint CLI";
#else
  std::string out;
  ASSERT_TRUE(run_capture({SYNCLINT_EXE, "probe", "settings", "--markdown"}, out)) << out;
  EXPECT_EQ(out, settings_markdown());
  ASSERT_TRUE(run_capture({SYNCLINT_EXE, "probe", "settings"}, out)) << out;
  for (const Setting& s : settings()) EXPECT_NE(out.find(std::string(s.name) + " ("), std::string::npos) << s.name;
  EXPECT_NE(out.find("SYNCLINT_PROBE_WINDOW_MS (number, diagnostic; default: 2000)"), std::string::npos) << out;
#endif
}

}  // namespace
}  // namespace synclint::probe::inject
