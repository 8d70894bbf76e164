// Where the GPU's activity records are on (SYNCLINT_PROBE_GPU_RECORDS) and how the GPU model stands in for
// them in the stretches without: the first stretch's records, its length, and what is modelled after it.
#include <algorithm>
#include <string>

#include "analysis/report_io.h"

#include "injection_fixture.h"

namespace synclint::probe::inject {
namespace {

// SYNCLINT_PROBE_GPU_RECORDS=first: the record kinds are on in the first stretch only; the requested
// stretch after it traces the launches and the reads without switching the records on again, and the GPU
// model stands in for their records. Learned from the first stretch (the kernel of each step: 300 us, which
// each read waits for), it puts the GPU's idle time after each read back: about 12 us (the sync's return,
// the next launch's latency), where the stretch without modelled records would show a third of that.
// (How close the model comes to the records is checked where timing is exact: GpuModel.* and
// ProbeRecorded.TheGpuModelStandsInForTheLaterRecords; a stand-in host's spin loops are not.)
TEST_F(Injection, GpuRecordsFirstSwitchesTheRecordsOnlyForTheFirstStretchAndModelsTheRest) {
  use_stand_in_cupti();
  // The first stretch would go on until 1000 calls brought no new kind of GPU work: held to its 20 ms here.
  const auto r = play_record_setting({{"SYNCLINT_PROBE_GPU_RECORDS", "first"}, {"SYNCLINT_PROBE_FIRST_MAX_MS", "1"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->enables, 1u) << r->out;
  EXPECT_EQ(r->disables, 1u) << r->out;
  EXPECT_NE(r->out.find("tracing on at"), std::string::npos) << "no stretch after the first\n" << r->out;
  ASSERT_EQ(r->report.sites.size(), 1u);
  const SiteResult& site = r->report.sites[0];
  EXPECT_GT(site.traced_calls, 200u) << "the requested stretch traced no reads";
  EXPECT_LT(r->records, site.traced_calls / 2) << "records outside the first stretch";
  ASSERT_TRUE(r->modelled) << r->out;
  const auto [modelled, unknown] = *r->modelled;
  EXPECT_GT(modelled, 400u) << r->out;      // a kernel and a copy for each read of the stretch
  EXPECT_LE(unknown, modelled / 2 + 5) << r->out;  // the copies: the stand-in makes no copy records
  const double idle_us = site.gpu_idle_ms * 1e3 / static_cast<double>(site.traced_calls);
  EXPECT_GT(idle_us, 6.0) << "GPU idle after a traced read";
  EXPECT_GT(site.predicted_saving_ms, 0.0);
}

// SYNCLINT_PROBE_GPU_RECORDS picks the stretches with records: unset, as `first` (records in the first
// stretch, the later ones modelled); `all` switches them on again for the requested stretch and models
// nothing; `model` never switches them on and models every traced launch, the first stretch's too, from the
// syncs alone; `0` never switches them on and models nothing; another value is said and taken as `first`.
TEST_F(Injection, GpuRecordsSettingPicksTheStretchesWithRecords) {
  use_stand_in_cupti();
  struct Case {
    const char* value;  // nullptr: unset
    std::size_t enables;
    bool modelled;
    const char* reported;  // the report's run.gpu_records
  };
  for (const Case& c : {Case{nullptr, 1, true, "first"}, Case{"first", 1, true, "first"}, Case{"all", 2, false, "all"},
                        Case{"model", 0, true, "model"}, Case{"0", 0, false, "none"}, Case{"none", 0, false, "none"},
                        Case{"everywhere", 1, true, "first"}}) {
    Env env = {{"SYNCLINT_PROBE_FIRST_MAX_MS", "1"}};
    if (c.value != nullptr) env.emplace_back("SYNCLINT_PROBE_GPU_RECORDS", c.value);
    const auto r = play_record_setting(env);
    ASSERT_TRUE(r);
    const std::string what = c.value != nullptr ? c.value : "(unset)";
    EXPECT_NE(r->out.find("tracing on at"), std::string::npos) << what << ": no stretch after the first\n" << r->out;
    if (c.enables == 2) EXPECT_GE(r->enables, 2u) << what << "\n" << r->out;
    else EXPECT_EQ(r->enables, c.enables) << what << "\n" << r->out;
    EXPECT_EQ(r->modelled.has_value(), c.modelled) << what << "\n" << r->out;
    EXPECT_EQ(r->out.find("SYNCLINT_PROBE_GPU_RECORDS=everywhere is not model, first, all or none; using first") != std::string::npos,
              what == "everywhere")
        << r->out;
    ASSERT_EQ(r->report.sites.size(), 1u) << what;
    EXPECT_EQ(r->report.sites[0].calls, 1500u) << what;
    EXPECT_EQ(r->report.run.gpu_records, c.reported) << what;
    if (r->report.run.gpu_records != "model") continue;
    EXPECT_EQ(r->records, 0u) << r->out;
    EXPECT_EQ(r->out.find("GPU records end"), std::string::npos) << r->out;
    ASSERT_TRUE(r->modelled) << r->out;
    const auto [modelled, unknown] = *r->modelled;
    // every traced read modelled (a kernel and a copy each; a read whose launch came just before its stretch
    // began is traced without it), none with a learned duration
    EXPECT_GE(modelled + 4, 2 * r->report.sites[0].traced_calls) << r->out;
    EXPECT_EQ(unknown, modelled) << r->out;
    EXPECT_GT(r->report.sites[0].predicted_saving_ms, 0.0) << r->out;
  }
  // Everything traced (SYNCLINT_PROBE_SAMPLE=1, also under --trace): by default, or with `first`, the records
  // stay on and nothing is modelled; `model` asked for by name models every traced launch all the same.
  for (const char* value : {static_cast<const char*>(nullptr), "first", "model"}) {
    Env env = {{"SYNCLINT_PROBE_SAMPLE", "1"}, {"SYNCLINT_PROBE_DEBUG", "1"}};
    if (value != nullptr) env.emplace_back("SYNCLINT_PROBE_GPU_RECORDS", value);
    const std::string what = value != nullptr ? value : "(unset)";
    const bool model = what == "model";
    std::string out;
    const auto played = play_logged(env, "300", out, true);
    ASSERT_TRUE(played) << what << "\n" << out;
    EXPECT_EQ(out.find("modelled GPU activities") != std::string::npos, model) << what << "\n" << out;
    EXPECT_EQ(std::count_if(played->begin(), played->end(), [](const auto& e) { return e.first == "enable"; }), model ? 0 : 1)
        << what << "\n" << out;
    EXPECT_EQ(std::count_if(played->begin(), played->end(), [](const auto& e) { return e.first == "disable"; }), 0) << out;
    const std::optional<ProbeReport> report = report_named_in(out);
    ASSERT_TRUE(report) << out;
    EXPECT_EQ(report->run.gpu_records, model ? "model" : "all") << what;
  }
}

// A program that launches its step as a CUDA graph (FAKE_HOST_GRAPH: three kernels per cudaGraphLaunch, all
// with its correlation id): the model learns the graph from the first stretch and models each traced
// launch of it later as known work; only the copies, whose records the stand-in never makes, are unknown.
TEST_F(Injection, TheModelLearnsAGraphLaunchAndModelsItLater) {
  use_stand_in_cupti();
  const auto r = play_record_setting(
      {{"SYNCLINT_PROBE_GPU_RECORDS", "first"}, {"SYNCLINT_PROBE_FIRST_MAX_MS", "1"}, {"FAKE_HOST_GRAPH", "1"}});
  ASSERT_TRUE(r);
  ASSERT_EQ(r->report.sites.size(), 1u);
  const SiteResult& site = r->report.sites[0];
  EXPECT_EQ(site.calls, 1500u);
  EXPECT_GT(site.traced_calls, 200u) << "the requested stretch traced no reads";
  // At least one graph launch's three kernels (the 1 ms stretch holds about 20 steps on an idle machine, a
  // few under load: the count is not the point, that a graph was recorded to learn from is).
  EXPECT_GE(r->records, 3u) << "the first stretch recorded no graph kernels";
  ASSERT_TRUE(r->modelled) << r->out;
  const auto [modelled, unknown] = *r->modelled;
  // A graph and a copy for each read traced after the first stretch (whose steps have 3 kernel records each).
  EXPECT_GE(modelled + 4, 2 * (site.traced_calls - r->records / 3)) << r->out;
  EXPECT_LE(unknown, modelled / 2 + 5) << r->out;             // the copies only: the graph was learned
  EXPECT_GT(site.predicted_saving_ms, 0.0);
}

// With SYNCLINT_PROBE_GPU_RECORDS=first the first stretch is the model's only source: it goes on past its
// 20 ms until 1000 launches, copies and reads in a row brought nothing it had not seen (and as many as
// before the last new one: here the first step's). The stand-in host queues a kernel and a copy and syncs
// on them each step, about 0.3 ms apart: 334 steps, then up to 100 ms until the window thread looks again;
// one kernel record a step. Then the records go off for good.
TEST_F(Injection, TheModelsFirstStretchLastsUntilTheLaunchesShowNoNewKernel) {
  use_stand_in_cupti();
  const auto r = play_record_setting({{"SYNCLINT_PROBE_GPU_RECORDS", "first"}});
  ASSERT_TRUE(r);
  EXPECT_NE(r->out.find("first stretch extended at"), std::string::npos) << r->out;
  ASSERT_EQ(r->report.sites.size(), 1u);
  EXPECT_GE(r->records, 334u) << "the records stopped before the calls settled\n" << r->out;
  EXPECT_LT(r->records, 1000u) << "the records went on long after the calls settled\n" << r->out;
}

}  // namespace
}  // namespace synclint::probe::inject
