// Sampled tracing through the stand-in CUPTI: every read is counted while only the traced stretches' are
// analysed; the stretches' timing and flushes; who switches the launch callbacks and the GPU records at a
// stretch's start and end (the program's thread at a sync or a launch's return, else the window thread).
#include <algorithm>
#include <cstdlib>
#include <string>

#include "analysis/report_io.h"

#include "injection_fixture.h"

namespace synclint::probe::inject {
namespace {

// The same loop sampled: 20 ms traced, then off for at least SampleSchedule::kMinOff, so the window thread
// switches the launch callbacks and kernel records off and on (with flushes completed on the stand-in's
// own thread) while the loop runs and a second thread launches all the while; every read is still counted.
// (Also run clean under ThreadSanitizer and AddressSanitizer.)
TEST_F(Injection, ASampledPlayedLoopCountsEveryReadAndScalesItsTracedOnes) {
  use_stand_in_cupti();
  setenv("SYNCLINT_PROBE_SAMPLE", "0.2", 1);
  setenv("SYNCLINT_PROBE_SAMPLE_MS", "20", 1);
  std::string out;
  const bool ran = run_capture({FAKE_CUDA_HOST, PROBE_LIBRARY, FAKE_CUPTI, "1500", "launcher"}, out);
  unsetenv("SYNCLINT_PROBE_SAMPLE");
  unsetenv("SYNCLINT_PROBE_SAMPLE_MS");
  ASSERT_TRUE(ran) << out;
  const ProbeReport r = read_report(report_of(out));
  EXPECT_EQ(r.run.status, "ok");
  ASSERT_EQ(r.sites.size(), 1u);
  const SiteResult& s = r.sites[0];
  EXPECT_EQ(s.calls, 1500u);
  EXPECT_GT(s.traced_calls, 0u);
  EXPECT_LT(s.traced_calls, s.calls);
  EXPECT_LT(s.traced_host_blocked_ms, s.host_blocked_ms);
  EXPECT_GT(r.sampled_fraction, 0.0);
  EXPECT_LT(r.sampled_fraction, 1.0);
  EXPECT_GT(s.predicted_saving_ms, 0.0);
  EXPECT_LT(s.predicted_saving_ms, s.host_blocked_ms);
}

// A site traced only in the first stretch asks for another at once (SiteRequests' past_start, the default):
// the kernel records, switched off at the end of the first 20 ms, come back on only once they have been
// off for SampleSchedule::kMinOff (250 ms), and the requested stretch's reads are traced. Mid-run the
// activity buffers are flushed by default only, never forced (which is for the end of the session): each
// stretch's SampleSchedule::kFlushDelay (200 ms) after it ends, before the next stretch begins. (With
// SYNCLINT_PROBE_GPU_RECORDS=all: by default the records are on in the first stretch only.)
TEST_F(Injection, ARequestRightAfterASwitchOffWaitsAQuarterSecond) {
  use_stand_in_cupti();
  std::string out;
  auto played = play_logged(
      {{"SYNCLINT_PROBE_GPU_RECORDS", "all"}, {"SYNCLINT_PROBE_SAMPLE", "0.01"}, {"SYNCLINT_PROBE_SAMPLE_MS", "20"}}, "1500", out);
  ASSERT_TRUE(played) << out;
  auto switches = *played;
  // CUPTI's per-thread buffers go off first, before the buffer callbacks (the stand-in refuses it after).
  ASSERT_FALSE(switches.empty());
  EXPECT_EQ(switches[0].first, "per-thread-buffers-off");
  switches.erase(switches.begin());
  ASSERT_GE(switches.size(), 4u);  // on at the start, off after 20 ms, flushed, on again for the request
  EXPECT_EQ(switches[0].first, "enable");
  EXPECT_EQ(switches.back().first, "forced-flush");  // at exit
  std::uint64_t off = 0;
  bool flushed = false;
  for (std::size_t i = 1; i + 1 < switches.size(); ++i) {
    const auto& [event, at] = switches[i];
    EXPECT_NE(event, "forced-flush") << "a forced flush mid-run, " << (at - switches[0].second) / 1000000 << " ms in";
    if (event == "disable") {
      off = at;
      flushed = false;
    } else if (event == "flush" && off != 0 && at - off >= 195'000'000u) {
      flushed = true;
    } else if (event == "enable") {
      EXPECT_GE(at - off, 245'000'000u) << "switched on again too soon";
      EXPECT_TRUE(flushed) << "the last stretch's records are flushed before the next begins";
    }
  }
  const ProbeReport r = read_report(report_of(out));
  ASSERT_EQ(r.sites.size(), 1u);
  EXPECT_EQ(r.sites[0].calls, 1500u);
  EXPECT_GT(r.sites[0].traced_calls, 200u);  // more than the first 20 ms hold (~65): the request's stretch
}

// SYNCLINT_PROBE_FIRST_MS gives the first stretch, which holds the start-up, a length of its own (with
// records in every stretch; by default the first stretch goes on until the GPU work settles, as below).
TEST_F(Injection, TheFirstStretchEndsAfterFirstMs) {
  use_stand_in_cupti();
  std::string out;
  const auto played = play_logged(
      {{"SYNCLINT_PROBE_GPU_RECORDS", "all"}, {"SYNCLINT_PROBE_SAMPLE", "0.01"}, {"SYNCLINT_PROBE_FIRST_MS", "30"}}, "1500", out);
  ASSERT_TRUE(played) << out;
  const auto& switches = *played;
  const auto on = std::find_if(switches.begin(), switches.end(), [](const auto& e) { return e.first == "enable"; });
  ASSERT_NE(on, switches.end());
  const auto off = std::find_if(on, switches.end(), [](const auto& e) { return e.first == "disable"; });
  ASSERT_NE(off, switches.end()) << "the first stretch never ended";
  EXPECT_GE(off->second - on->second, 25'000'000u);
  EXPECT_LT(off->second - on->second, 500'000'000u);  // not the 1 s of SYNCLINT_PROBE_SAMPLE_MS
}

// With the GPU model (the default), a stretch's start and end switch the launch callback on and off on the
// program's thread, in its next sync's ENTER callback or, for an end, its next launch's return, where it is
// inside no launch. Here each step's launch call takes 290 us of its ~305 us: switched off by the window
// thread at any moment (as with records in every stretch, SYNCLINT_PROBE_GPU_RECORDS=all), the callback is
// nearly always inside a launch (the stand-in logs "callback-off-inside"); switched by the program's
// thread, never, and every read is recorded.
TEST_F(Injection, TheProgramsThreadSwitchesTheLaunchCallbackOutsideALaunch) {
  use_stand_in_cupti();
  for (bool window_thread : {true, false}) {
    SCOPED_TRACE(window_thread ? "records in every stretch" : "the default");
    Env env = {{"SYNCLINT_PROBE_FIRST_MAX_MS", "1"}, {"FAKE_HOST_LAUNCH_US", "290"}};
    if (window_thread) env.emplace_back("SYNCLINT_PROBE_GPU_RECORDS", "all");
    const auto r = play_record_setting(env, "4000");
    ASSERT_TRUE(r);
    const std::string& out = r->out;
    const std::size_t ends = occurrences(out, "tracing off at"), starts = occurrences(out, "tracing on at");
    ASSERT_GE(ends, 2u) << "no stretch ended after the first\n" << out;
    ASSERT_GE(starts, 1u) << out;
    const auto counts = switch_counts(out);
    if (window_thread) {
      EXPECT_GE(r->off_inside, 1u) << "no switch-off came inside a launch: nothing for the default to avoid\n" << out;
      EXPECT_FALSE(counts) << out;
      continue;
    }
    EXPECT_EQ(r->off_inside, 0u) << out;
    ASSERT_TRUE(counts) << out;
    EXPECT_EQ(counts->by_sync + counts->by_launch, ends + starts) << out;
    EXPECT_EQ(counts->by_window, 0u) << out;
    ASSERT_EQ(r->report.sites.size(), 1u);
    EXPECT_EQ(r->report.sites[0].calls, 4000u) << "reads lost";
    EXPECT_GT(r->report.sites[0].traced_calls, 200u) << "the requested stretch traced no reads";
  }
}

// A stretch's start left to the program's next sync, when none comes within 100 ms (here a read every 2000
// steps, about every 600 ms, host work in between), is made by the window thread, and the run goes on:
// every read is recorded. A stretch every quarter second, so that a run of about a second has several.
TEST_F(Injection, ASwitchWithoutASyncFallsBackToTheWindowThread) {
  use_stand_in_cupti();
  const auto r = play_record_setting(
      {{"SYNCLINT_PROBE_FIRST_MAX_MS", "1"}, {"FAKE_HOST_READ_EVERY", "2000"}, {"SYNCLINT_PROBE_SAMPLE", "0.1"}}, "4000");
  ASSERT_TRUE(r);
  const auto counts = switch_counts(r->out);
  ASSERT_TRUE(counts) << r->out;
  const std::size_t switches = occurrences(r->out, "tracing off at") + occurrences(r->out, "tracing on at");
  ASSERT_GE(occurrences(r->out, "tracing on at"), 1u) << "no stretch after the first\n" << r->out;
  EXPECT_GE(counts->by_window, 1u) << r->out;
  EXPECT_EQ(counts->by_sync + counts->by_launch + counts->by_window, switches) << r->out;
  ASSERT_EQ(r->report.sites.size(), 1u);
  EXPECT_EQ(r->report.sites[0].calls, 2u);  // steps 0 and 2000
}

// The same loop with few syncs has each stretch's end taken by the return of its next launch, on its own
// thread and outside every launch (the stand-in logs no "callback-off-inside"), and the window thread only
// switches stretches on (a launch's callbacks are off then); every read is recorded. A stretch every
// quarter second, so that a run of about a second has several whatever the machine's pace.
TEST_F(Injection, AStretchEndsAtTheNextLaunchsReturn) {
  use_stand_in_cupti();
  const auto r = play_record_setting(
      {{"SYNCLINT_PROBE_FIRST_MAX_MS", "1"}, {"FAKE_HOST_READ_EVERY", "700"}, {"SYNCLINT_PROBE_SAMPLE", "0.1"}}, "4000");
  ASSERT_TRUE(r);
  const std::string& out = r->out;
  const auto counts = switch_counts(out);
  ASSERT_TRUE(counts) << out;
  const std::size_t ends = occurrences(out, "tracing off at"), starts = occurrences(out, "tracing on at");
  ASSERT_GE(ends, 2u) << "no stretch ended after the first\n" << out;
  EXPECT_EQ(counts->by_launch + counts->by_sync + counts->by_window, ends + starts) << out;
  EXPECT_GE(counts->by_launch, ends - 1) << out;  // the last end may come at exit, with no launch after it
  EXPECT_LE(counts->by_window, starts) << out;
  EXPECT_EQ(r->off_inside, 0u) << out;
  ASSERT_EQ(r->report.sites.size(), 1u);
  EXPECT_EQ(r->report.sites[0].calls, 6u);  // steps 0, 700, ..., 3500
}

// With the GPU model (the default: records in the first stretch only), the first stretch's end, which a
// launch's return takes on the program's thread, switches the kernel records off there too, once (the
// stand-in logs "disable-on-host-thread", the probe's debug line counts it). With records in every stretch
// the window thread switches every record kind off, never the program's thread. Every read is recorded.
TEST_F(Injection, TheFirstStretchsRecordsGoOffOnTheProgramsThread) {
  use_stand_in_cupti();
  for (bool all : {true, false}) {
    SCOPED_TRACE(all ? "records in every stretch" : "the default");
    Env env = {{"FAKE_HOST_READ_EVERY", "700"}, {"SYNCLINT_PROBE_SAMPLE", "0.1"}};
    env.emplace_back(all ? std::pair{"SYNCLINT_PROBE_GPU_RECORDS", "all"} : std::pair{"SYNCLINT_PROBE_FIRST_MAX_MS", "1"});
    const auto r = play_record_setting(env, "4000");
    ASSERT_TRUE(r);
    const std::string& out = r->out;
    const std::size_t ends = occurrences(out, "tracing off at");
    ASSERT_GE(ends, 2u) << "no stretch ended after the first\n" << out;
    ASSERT_EQ(r->report.sites.size(), 1u);
    EXPECT_EQ(r->report.sites[0].calls, 6u);  // steps 0, 700, ..., 3500
    const std::string by_program_line = "GPU records switched off on the program's thread ";
    const auto line = out.find(by_program_line);
    if (all) {
      EXPECT_GE(r->disables, ends - 1) << out;
      EXPECT_EQ(r->disables_on_host, 0u) << out;
      EXPECT_EQ(line, std::string::npos) << out;
      continue;
    }
    ASSERT_NE(line, std::string::npos) << out;
    const unsigned long by_program = std::strtoul(out.c_str() + line + by_program_line.size(), nullptr, 10);
    EXPECT_EQ(r->enables, 1u) << out;
    EXPECT_EQ(r->disables, 1u) << out;
    EXPECT_EQ(by_program, 1u) << out;
    EXPECT_EQ(r->disables_on_host, 1u) << out;
  }
}

}  // namespace
}  // namespace synclint::probe::inject
