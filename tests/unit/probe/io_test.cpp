// Stream and report JSON round trips, version checks, merging and the Chrome trace.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "analysis/report_io.h"
#include "analysis/stream_io.h"
#include "analysis/trace.h"
#include "probe_samples.h"
#include "stream_builder.h"

namespace synclint::probe {
namespace {

using nlohmann::json;
using testing::sample_report;
using testing::sample_stream;
using testing::StreamBuilder;

// The error parse_stream gives for `text` ("no error" when none).
std::string stream_error(const std::string& text) {
  try {
    parse_stream(text, "rec.json");
  } catch (const ProbeError& e) {
    return std::string(e.what());
  }
  return std::string("no error");
}

TEST(ProbeStreamIo, RoundTripKeepsEveryField) {
  const EventStream s = sample_stream();
  const EventStream back = parse_stream(stream_to_json(s));
  ASSERT_EQ(back.sites.size(), 1u);
  EXPECT_EQ(back.sites[0].path, "/w/train.py");
  EXPECT_EQ(back.sites[0].function, "train_step");
  EXPECT_EQ(back.dropped_activity_records, 2u);
  ASSERT_EQ(back.host.size(), s.host.size());
  ASSERT_EQ(back.gpu.size(), s.gpu.size());
  for (std::size_t i = 0; i < s.host.size(); ++i) {
    EXPECT_EQ(back.host[i].start_ns, s.host[i].start_ns);
    EXPECT_EQ(back.host[i].end_ns, s.host[i].end_ns);
    EXPECT_EQ(back.host[i].kind, s.host[i].kind);
    EXPECT_EQ(back.host[i].api, s.host[i].api);
    EXPECT_EQ(back.host[i].site, s.host[i].site);
    EXPECT_EQ(back.host[i].correlation_id, s.host[i].correlation_id);
  }
  for (std::size_t i = 0; i < s.gpu.size(); ++i) {
    EXPECT_EQ(back.gpu[i].name, s.gpu[i].name);
    EXPECT_EQ(back.gpu[i].kind, s.gpu[i].kind);
    EXPECT_EQ(back.gpu[i].stream, s.gpu[i].stream);
  }
  EXPECT_TRUE(back.python_calls.empty());
  EXPECT_EQ(stream_to_json(s).find("python_calls"), std::string::npos);  // optional key, written when there are some
}

TEST(ProbeStreamIo, TheProbesTimeAroundEachCallIsAnOptionalTopLevelField) {
  EventStream s = sample_stream();
  EXPECT_EQ(stream_to_json(s).find("callback_overhead_ns"), std::string::npos);  // 0: not written
  EXPECT_EQ(parse_stream(stream_to_json(s)).callback_overhead_ns, 0u);
  s.callback_overhead_ns = 1500;
  EXPECT_EQ(parse_stream(stream_to_json(s)).callback_overhead_ns, 1500u);
  json doc = json::parse(stream_to_json(s));
  doc["callback_overhead_ns"] = "slow";
  EXPECT_THROW(parse_stream(doc.dump()), ProbeError);
}

TEST(ProbeStreamIo, PythonCallsRoundTripAndAreChecked) {
  EventStream s = sample_stream();
  s.python_calls.push_back(PythonCall{100, 900, 3, 0});
  const EventStream back = parse_stream(stream_to_json(s));
  ASSERT_EQ(back.python_calls.size(), 1u);
  EXPECT_EQ(back.python_calls[0].start_ns, 100u);
  EXPECT_EQ(back.python_calls[0].end_ns, 900u);
  EXPECT_EQ(back.python_calls[0].thread, 3u);
  EXPECT_EQ(back.python_calls[0].site, 0);
  EXPECT_NE(stream_error(R"({"format":"synclint-probe-stream","version":1,"python_calls":[[5,2,0,-1]]})")
                .find("python_calls[0]: ends before it starts"),
            std::string::npos);
  EXPECT_NE(stream_error(R"({"format":"synclint-probe-stream","version":1,"python_calls":[[1,2,0,4]]})")
                .find("site index 4 out of range"),
            std::string::npos);
}

TEST(ProbeStreamIo, TheProbesOwnTimeIsAnOptionalEighthFieldOfAHostCall) {
  EventStream s = sample_stream();
  s.host[1].probe_ns = 2500;
  const std::string text = stream_to_json(s);
  const EventStream back = parse_stream(text);
  for (std::size_t i = 0; i < s.host.size(); ++i) EXPECT_EQ(back.host[i].probe_ns, s.host[i].probe_ns) << i;
  // Written only where measured: the other records keep the seven fields that older readers expect.
  const json doc = json::parse(text);
  EXPECT_EQ(doc["host"][1].size(), 8u);
  EXPECT_EQ(doc["host"][0].size(), 7u);
  EXPECT_NE(stream_error(R"({"format":"synclint-probe-stream","version":1,"host":[[1,2,0,0,"launch","x",-1,-3]]})")
                .find("host[0]"),
            std::string::npos);
}

TEST(ProbeStreamIo, LaunchKeysAndStreamHandlesAreOptionalNinthToEleventhFields) {
  EventStream s = sample_stream();
  s.host[0].launch_key = 0x9e3779b97f4a7c15ull;  // a full 64-bit hash
  s.host[0].launch_family = 0x4b1;
  s.host[0].stream_handle = 0x7f00deadbeef;
  const std::string text = stream_to_json(s);
  const EventStream back = parse_stream(text);
  EXPECT_EQ(back.host[0].launch_key, s.host[0].launch_key);
  EXPECT_EQ(back.host[0].launch_family, s.host[0].launch_family);
  EXPECT_EQ(back.host[0].stream_handle, s.host[0].stream_handle);
  EXPECT_EQ(back.host[0].probe_ns, 0u);
  EXPECT_EQ(back.host[1].launch_key, 0u);
  const json doc = json::parse(text);
  EXPECT_EQ(doc["host"][0].size(), 11u);  // the probe's time (0) stands in the eighth place
  EXPECT_EQ(doc["host"][1].size(), 7u);
  EXPECT_NE(stream_error(R"({"format":"synclint-probe-stream","version":1,"host":[[1,2,0,0,"launch","x",-1,0,"k",1,0]]})")
                .find("host[0]"),
            std::string::npos);
}

// A kernel launch's grid (blocks, threads per block): the thirteenth and fourteenth fields, with the fields
// before them written as 0 where unknown; a record of thirteen fields keeps neither.
TEST(ProbeStreamIo, AKernelLaunchsGridIsAnOptionalThirteenthAndFourteenthField) {
  EventStream s = sample_stream();
  ASSERT_EQ(s.host[0].kind, HostCallKind::Launch);
  s.host[0].launch_blocks = 2'147'483'647ull * 65'535;  // gridDim.x at its limit, times y
  s.host[0].launch_block_threads = 1024;
  s.host[3].launch_block_threads = 256;  // one of the two alone still writes both
  const std::string text = stream_to_json(s);
  const EventStream back = parse_stream(text);
  for (std::size_t i = 0; i < s.host.size(); ++i) {
    EXPECT_EQ(back.host[i].launch_blocks, s.host[i].launch_blocks) << i;
    EXPECT_EQ(back.host[i].launch_block_threads, s.host[i].launch_block_threads) << i;
  }
  const json doc = json::parse(text);
  EXPECT_EQ(doc["host"][0].size(), 14u);
  EXPECT_EQ(doc["host"][0][11], 0);  // no wait for a CPU: 0 stands in its place
  EXPECT_EQ(doc["host"][3].size(), 14u);
  EXPECT_EQ(doc["host"][1].size(), 7u);
  const EventStream thirteen =
      parse_stream(R"({"format":"synclint-probe-stream","version":1,"host":[[1,2,0,0,"launch","x",-1,0,0,0,0,0,64]]})");
  EXPECT_EQ(thirteen.host[0].launch_blocks, 0u);
  EXPECT_NE(stream_error(R"({"format":"synclint-probe-stream","version":1,"host":[[1,2,0,0,"launch","x",-1,0,0,0,0,0,64,4294967296]]})")
                .find("host[0]"),
            std::string::npos);  // threads per block beyond 32 bits
  EXPECT_NE(stream_error(R"({"format":"synclint-probe-stream","version":1,"host":[[1,2,0,0,"launch","x",-1,0,0,0,0,0,-64,256]]})")
                .find("host[0]"),
            std::string::npos);
}

TEST(ProbeStreamIo, ASyncsWaitForACpuIsAnOptionalTwelfthField) {
  EventStream s = sample_stream();
  ASSERT_EQ(s.host[2].kind, HostCallKind::StreamSynchronize);
  s.host[2].descheduled_ns = 900'000;
  const std::string text = stream_to_json(s);
  const EventStream back = parse_stream(text);
  for (std::size_t i = 0; i < s.host.size(); ++i) EXPECT_EQ(back.host[i].descheduled_ns, s.host[i].descheduled_ns) << i;
  const json doc = json::parse(text);
  EXPECT_EQ(doc["host"][2].size(), 12u);  // the probe's time and the launch fields (0) stand before it
  EXPECT_EQ(doc["host"][1].size(), 7u);
  // No longer than the call itself (995 us).
  EXPECT_NE(stream_error(R"({"format":"synclint-probe-stream","version":1,"host":[[1000,2000,0,0,"stream_sync","x",-1,0,0,0,0,1001]]})")
                .find("host[0]: descheduled longer than the call lasted"),
            std::string::npos);
  EXPECT_EQ(stream_error(R"({"format":"synclint-probe-stream","version":1,"host":[[1000,2000,0,0,"stream_sync","x",-1,0,0,0,0,1000]]})"),
            "no error");
}

TEST(ProbeStreamIo, RejectsBadInputWithClearMessages) {
  EXPECT_NE(stream_error("{").find("rec.json: not valid JSON"), std::string::npos);
  EXPECT_NE(stream_error(R"({"format":"x"})").find("not a synclint probe stream"), std::string::npos);
  EXPECT_NE(stream_error(R"({"format":"synclint-probe-stream","version":9})").find("version 9 is not supported"),
            std::string::npos);
  EXPECT_NE(stream_error(R"({"format":"synclint-probe-stream","version":1,"host":[[1,2,0,0,"launch","x",0]]})")
                .find("site index 0 out of range"),
            std::string::npos);
  EXPECT_NE(stream_error(R"({"format":"synclint-probe-stream","version":1,"host":[[1,2,0,0,"teleport","x",-1]]})")
                .find("unknown kind"),
            std::string::npos);
  EXPECT_NE(stream_error(R"({"format":"synclint-probe-stream","version":1,"gpu":[[1,2]]})").find("gpu[0]"), std::string::npos);
  EXPECT_NE(stream_error(R"({"format":"synclint-probe-stream","version":1,"gpu":[[1,"a",0,0,0,"kernel","k"]]})").find("gpu[0]"),
            std::string::npos);
}

// The records are read as the parser reaches them, but the result and the first error are those of a reader
// of the whole document: in any order of the keys, whatever comes after the first bad record.
TEST(ProbeStreamIo, RecordsReadOneAtATimeGiveTheWholeDocumentsResultAndFirstError) {
  const std::string head = R"({"format":"synclint-probe-stream","version":1,)";
  const std::string sites = R"("sites":[["/w/a.py",3,"f","python"],["/w/b.py",4,"g","python"]])";
  const std::string host = R"("host":[[1,2,0,1,"stream_sync","cudaStreamSynchronize",1]])";
  const EventStream sites_first = parse_stream(head + sites + "," + host + "}");
  const EventStream host_first = parse_stream(head + host + "," + sites + "}");
  EXPECT_EQ(stream_to_json(host_first), stream_to_json(sites_first));
  ASSERT_EQ(host_first.host.size(), 1u);
  EXPECT_EQ(host_first.host[0].site, 1);
  // host[0]'s site is out of range and host[1] ends before it starts: host[0] is named, the sites coming last.
  EXPECT_EQ(stream_error(head + R"("host":[[1,2,0,1,"launch","x",2],[5,4,0,2,"launch","x",0]],)" + sites + "}"),
            "rec.json: host[0]: site index 2 out of range");
  EXPECT_EQ(stream_error(head + R"("host":[[1,2,0,1,"launch","x",0],[5,4,0,2,"launch","x",2]],)" + sites + "}"),
            "rec.json: host[1]: ends before it starts");
  // A bad record before invalid JSON, or before the format, is not what is reported.
  EXPECT_NE(stream_error(head + R"("gpu":[[1]],)").find("not valid JSON"), std::string::npos);
  EXPECT_NE(stream_error(R"({"gpu":[[1]],"format":"x"})").find("not a synclint probe stream"), std::string::npos);
  // The arrays in their order: sites, host, gpu, python_calls.
  EXPECT_EQ(stream_error(head + R"("gpu":[[1]],"sites":[["",1,"f","python"]]})"), "rec.json: sites[0]: the path is empty");
  // A key given twice: its last array counts, as in a document.
  const EventStream twice = parse_stream(head + R"("gpu":[[1]],"gpu":[[1,2,0,0,7,"kernel","k"]]})");
  ASSERT_EQ(twice.gpu.size(), 1u);
  EXPECT_EQ(twice.gpu[0].correlation_id, 7u);
}

TEST(ProbeStreamIo, AFileReadsAsItsText) {
  const EventStream s = sample_stream();
  const auto file = std::filesystem::temp_directory_path() / ("synclint-io-test-" + std::to_string(::getpid()) + ".json");
  write_stream(s, file);
  EXPECT_EQ(stream_to_json(read_stream(file)), stream_to_json(s));
  std::filesystem::remove(file);
  try {
    read_stream(file);
    FAIL() << "read a missing file";
  } catch (const ProbeError& e) {
    EXPECT_EQ(std::string(e.what()), file.string() + ": cannot open for reading");
  }
}

TEST(ProbeReportIo, RoundTrip) {
  const ProbeReport r = sample_report(0, 7.5);
  const ProbeReport back = parse_report(report_to_json(r));
  EXPECT_EQ(back.version, kReportVersion);
  EXPECT_EQ(back.run.command, r.run.command);
  EXPECT_EQ(back.run.cwd, "/w");
  EXPECT_EQ(back.run.gpu_name, "NVIDIA H200");
  EXPECT_EQ(back.run.rank, 0);
  ASSERT_EQ(back.runs.size(), 1u);
  ASSERT_EQ(back.sites.size(), 1u);
  EXPECT_EQ(back.sites[0].site.path, "/w/train.py");
  EXPECT_EQ(back.sites[0].site.line, 42u);
  EXPECT_EQ(back.sites[0].site.language, "python");
  EXPECT_EQ(back.sites[0].rule_guess, "SYNC001|SYNC003");
  EXPECT_EQ(back.sites[0].calls, 300u);
  EXPECT_EQ(back.sites[0].traced_calls, 75u);
  EXPECT_DOUBLE_EQ(back.sites[0].traced_host_blocked_ms, 4.5);
  EXPECT_DOUBLE_EQ(back.sites[0].replayed_blocked_ms, 13.75);
  EXPECT_EQ(back.run.callback_overhead_ns, 1200u);
  EXPECT_DOUBLE_EQ(back.sites[0].predicted_saving_ms, 7.5);
  EXPECT_DOUBLE_EQ(back.sites[0].gpu_idle_ms, 9.25);
  EXPECT_DOUBLE_EQ(back.sites[0].saving_if_removed_ms, 8.5);
  EXPECT_DOUBLE_EQ(back.sites[0].wait_saving_ms, 3.75);
  EXPECT_DOUBLE_EQ(back.sites[0].python_call_ms, 0.75);
  EXPECT_DOUBLE_EQ(back.sampled_fraction, 0.25);
  EXPECT_EQ(back.syncs, 300u);
  EXPECT_DOUBLE_EQ(back.gpu_idle_ms, 20);
  EXPECT_EQ(back.windows, 3u);
  // The analysis output round-trips too.
  const ProbeReport analysed = analyze(sample_stream());
  EXPECT_EQ(report_to_json(parse_report(report_to_json(analysed))), report_to_json(analysed));
}

TEST(ProbeReportIo, InvalidUtf8InPathsAndNamesIsWrittenNotThrown) {
  ProbeReport r = sample_report(0, 1);
  r.sites[0].site.path = "/w/caf\xe9.py";  // Latin-1 bytes
  const ProbeReport back = parse_report(report_to_json(r));
  EXPECT_EQ(back.sites[0].site.path, "/w/caf\xef\xbf\xbd.py");  // U+FFFD
  EventStream s = sample_stream();
  s.gpu[0].name = "kernel\xff";
  EXPECT_NO_THROW(parse_stream(stream_to_json(s)));
  std::ostringstream out;
  {
    TraceWriter w(out, 1, "p\xfe");
    w.add(s);
  }
  EXPECT_TRUE(json::accept(out.str()));
}

TEST(ProbeReportIo, NewerVersionIsRejectedWithAClearMessage) {
  json doc = json::parse(report_to_json(sample_report(0, 1)));
  doc["version"] = kReportVersion + 1;
  try {
    parse_report(doc.dump(), "future.json");
    FAIL() << "a newer report version was accepted";
  } catch (const ProbeError& e) {
    EXPECT_NE(std::string(e.what()).find("future.json: report version 2 is newer than this synclint understands (1)"),
              std::string::npos)
        << e.what();
  }
  doc["version"] = kReportVersion;
  doc["schema"] = "something-else";
  EXPECT_THROW(parse_report(doc.dump()), ProbeError);
  doc["schema"] = "synclint-probe-report";
  doc["sites"][0]["calls"] = "many";
  EXPECT_THROW(parse_report(doc.dump()), ProbeError);
  doc.erase("sites");
  EXPECT_THROW(parse_report(doc.dump()), ProbeError);
}

TEST(ProbeReportIo, AReportWithoutTracedCallsCountsAllCallsAsTraced) {
  json doc = json::parse(report_to_json(sample_report(0, 1)));
  doc["sites"][0].erase("traced_calls");
  doc["sites"][0].erase("traced_host_blocked_ms");
  const ProbeReport back = parse_report(doc.dump(), "older.json");
  ASSERT_EQ(back.sites.size(), 1u);
  EXPECT_EQ(back.sites[0].traced_calls, 300u);
  EXPECT_DOUBLE_EQ(back.sites[0].traced_host_blocked_ms, 12.5);
}

TEST(ProbeReportIo, AReportWithoutReplayedBlockedTimeTakesTheRecordedOne) {
  json doc = json::parse(report_to_json(sample_report(0, 1)));
  doc["sites"][0].erase("replayed_blocked_ms");
  doc["run"].erase("callback_overhead_ns");
  const ProbeReport back = parse_report(doc.dump(), "older.json");
  EXPECT_DOUBLE_EQ(back.sites.at(0).replayed_blocked_ms, 12.5);
  EXPECT_EQ(back.run.callback_overhead_ns, 0u);
}

TEST(ProbeReportIo, AReportWithoutTracedBlockedTimeTakesTheTracedCallsShare) {
  json doc = json::parse(report_to_json(sample_report(0, 1)));
  doc["sites"][0].erase("traced_host_blocked_ms");
  const ProbeReport back = parse_report(doc.dump(), "older.json");
  EXPECT_DOUBLE_EQ(back.sites.at(0).traced_host_blocked_ms, 12.5 * 75 / 300);
}

// Rank 1's report with a second site, line 50, that rank 0 does not have (saving 20 ms: ranked first).
ProbeReport rank1_with_its_own_site() {
  ProbeReport r1 = sample_report(1, 4);
  SiteResult other = r1.sites[0];
  other.site.line = 50;
  other.predicted_saving_ms = 20;
  r1.sites.push_back(other);
  r1.syncs += other.calls;
  return r1;
}

TEST(ProbeReportIo, MergeSumsPerSiteAndKeepsPerRankRuns) {
  const ProbeReport r0 = sample_report(0, 6), r1 = rank1_with_its_own_site();
  const ProbeReport m = merge({r1, r0});
  ASSERT_EQ(m.runs.size(), 2u);
  EXPECT_EQ(m.run.rank, 0);
  EXPECT_EQ(m.run.status, "ok");
  EXPECT_DOUBLE_EQ(m.run.wall_ms, 1001);
  ASSERT_EQ(m.sites.size(), 2u);
  EXPECT_EQ(m.sites[0].site.line, 50u);  // largest saving first
  EXPECT_EQ(m.sites[1].calls, 600u);
  EXPECT_EQ(m.sites[1].traced_calls, 150u);
  EXPECT_DOUBLE_EQ(m.sites[1].traced_host_blocked_ms, 9);
  EXPECT_DOUBLE_EQ(m.sites[1].replayed_blocked_ms, 27.5);
  EXPECT_EQ(m.run.callback_overhead_ns, 1200u);  // the first process's, as the run's
  EXPECT_DOUBLE_EQ(m.sites[1].predicted_saving_ms, 10);
  EXPECT_DOUBLE_EQ(m.sites[1].saving_if_removed_ms, 12);
  EXPECT_DOUBLE_EQ(m.sites[1].wait_saving_ms, 5);
  EXPECT_DOUBLE_EQ(m.sites[1].python_call_ms, 1);
  // Weighted by wall time: rank 0 ran 1000 ms with 0.25 traced, rank 1 1001 ms fully traced.
  EXPECT_NEAR(m.sampled_fraction, (0.25 * r0.run.wall_ms + r1.run.wall_ms) / (r0.run.wall_ms + r1.run.wall_ms), 1e-12);
  EXPECT_DOUBLE_EQ(m.sites[1].host_blocked_ms, 25);
  EXPECT_DOUBLE_EQ(m.sites[1].share_of_run, 10.0 / 2001.0);
  EXPECT_EQ(m.syncs, 900u);
  EXPECT_EQ(m.windows, 6u);
  // A merged report merges again (runs are kept, not nested).
  EXPECT_EQ(merge({m, sample_report(2, 1)}).runs.size(), 3u);
  // Status: one process without data makes the merge partial.
  ProbeReport bad = sample_report(3, 0);
  bad.run.status = "cupti-unavailable: libcupti.so not found";
  EXPECT_EQ(merge({r0, bad}).run.status,
            "partial: 1 of 2 processes (rank 3): cupti-unavailable: libcupti.so not found");
  // The processes that are not ok are named: by rank, or by pid where no rank is set.
  ProbeReport killed = sample_report(1, 0);
  killed.run.rank = -1;
  killed.run.pid = 4242;
  killed.run.status = "partial: the probe's final report was not written (the process ended first)";
  EXPECT_EQ(merge({r0, bad, killed}).run.status,
            "partial: 2 of 3 processes (rank 3, pid 4242): cupti-unavailable: libcupti.so not found");
  EXPECT_EQ(merge({bad}).run.status, "cupti-unavailable: libcupti.so not found");
}

// Each merged site names the ranks that made its calls; the names survive a second merge and a round trip,
// and the table shows them once the report holds more than one rank.
TEST(ProbeReportIo, MergedSitesNameTheirRanks) {
  const ProbeReport m = merge({rank1_with_its_own_site(), sample_report(0, 6)});
  ASSERT_EQ(m.sites.size(), 2u);
  EXPECT_EQ(m.sites[0].ranks, (std::vector<std::int32_t>{1}));
  EXPECT_EQ(m.sites[1].ranks, (std::vector<std::int32_t>{0, 1}));
  const ProbeReport again = merge({parse_report(report_to_json(m), "m.json"), sample_report(3, 2)});
  EXPECT_EQ(again.sites[0].ranks, (std::vector<std::int32_t>{1}));
  EXPECT_EQ(again.sites[1].ranks, (std::vector<std::int32_t>{0, 1, 3}));
  const std::string table = format_table(m);
  EXPECT_NE(table.find("train.py:50 (train_step) cudaStreamSynchronize [rank 1]"), std::string::npos) << table;
  EXPECT_NE(table.find("train.py:42 (train_step) cudaStreamSynchronize [ranks 0, 1]"), std::string::npos) << table;
  // One process, or processes without ranks: no rank in the report or the table.
  EXPECT_TRUE(merge({sample_report(0, 6)}).sites[0].ranks == std::vector<std::int32_t>{0});
  EXPECT_EQ(format_table(merge({sample_report(0, 6)})).find("[rank"), std::string::npos);
  ProbeReport a = sample_report(0, 6), b = sample_report(1, 4);
  a.run.rank = b.run.rank = -1;
  a.runs = {a.run};
  b.runs = {b.run};
  EXPECT_TRUE(merge({a, b}).sites[0].ranks.empty());
  // A rank list of the wrong type is refused with the field named.
  json doc = json::parse(report_to_json(m));
  doc["sites"][0]["ranks"] = json::array({"zero"});
  EXPECT_THROW((void)parse_report(doc.dump(), "bad.json"), ProbeError);
}

TEST(ProbeReportIo, TableShowsRankedSitesRelativeToTheRunDirectory) {
  const std::string table = format_table(merge({sample_report(0, 6)}));
  EXPECT_NE(table.find("train.py:42 (train_step) cudaStreamSynchronize"), std::string::npos) << table;
  EXPECT_EQ(table.find("/w/train.py"), std::string::npos) << table;
  EXPECT_NE(table.find("SYNC001|SYNC003"), std::string::npos);
  EXPECT_NE(table.find("6.00 ms"), std::string::npos);
  EXPECT_NE(table.find("0.6%"), std::string::npos) << table;
  EXPECT_NE(table.find("predicted saving"), std::string::npos);
}

// The GPU model's counts (SYNCLINT_PROBE_GPU_RECORDS=first) round-trip and are summed by the merge; the
// table warns when more than a tenth of the modelled work had no learned duration.
TEST(ProbeReportIo, ModelledGpuWorkIsCountedAndWarnedAboutWhenMuchOfItWasNeverSeen) {
  ProbeReport a = sample_report(0, 6), b = sample_report(1, 4);
  a.modelled_gpu_activities = 1000;
  a.modelled_without_duration = 50;
  b.modelled_gpu_activities = 200;
  b.modelled_without_duration = 90;
  const ProbeReport back = parse_report(report_to_json(a));
  EXPECT_EQ(back.modelled_gpu_activities, 1000u);
  EXPECT_EQ(back.modelled_without_duration, 50u);
  EXPECT_EQ(format_table(a).find("modelled GPU activities"), std::string::npos) << "5% is not worth a warning";
  const ProbeReport merged = merge({a, b});
  EXPECT_EQ(merged.modelled_gpu_activities, 1200u);
  EXPECT_EQ(merged.modelled_without_duration, 140u);
  EXPECT_NE(format_table(merged).find("warning: 140 of 1200 modelled GPU activities had no duration"), std::string::npos)
      << format_table(merged);
  EXPECT_EQ(format_table(sample_report(0, 6)).find("modelled"), std::string::npos);  // none modelled: nothing said
}

// Each process's GPU records setting (run.gpu_records) round-trips; the merge keeps the common one, "mixed"
// when processes differ, and a report without it (written before the field) counts as unknown. Without
// records the table says that the GPU idle column is modelled, instead of warning about durations the
// first stretch never learned (it learned none, by design).
ProbeReport with_records(std::int32_t rank, const char* setting) {
  ProbeReport r = sample_report(rank, 5);
  r.run.gpu_records = setting;
  r.runs = {r.run};
  r.modelled_gpu_activities = 1000;
  r.modelled_without_duration = std::string(setting) == "model" ? 1000 : 300;
  return r;
}

TEST(ProbeReportIo, TheGpuRecordsSettingIsKeptMergedAndNamedInTheTable) {
  const ProbeReport model = with_records(0, "model"), first = with_records(1, "first");
  EXPECT_EQ(parse_report(report_to_json(model)).run.gpu_records, "model");
  EXPECT_EQ(parse_report(report_to_json(sample_report(0, 5))).run.gpu_records, "");
  EXPECT_EQ(merge({model, with_records(1, "model")}).run.gpu_records, "model");
  EXPECT_EQ(merge({model, first}).run.gpu_records, "mixed");
  EXPECT_EQ(merge({model, first, with_records(2, "all")}).run.gpu_records, "mixed");
  EXPECT_EQ(merge({sample_report(0, 5), first}).run.gpu_records, "first");
  const ProbeReport merged_model = merge({model, with_records(1, "model")});
  EXPECT_EQ(merged_model.runs[1].gpu_records, "model");

  const std::string records_free = format_table(model);
  EXPECT_NE(records_free.find("note: GPU idle times and savings rest on GPU work modelled from the syncs alone (no GPU activity records, "
                                  "--gpu-records model)"), std::string::npos)
      << records_free;
  EXPECT_EQ(records_free.find("had no duration learned"), std::string::npos) << records_free;
  const std::string learned = format_table(first);
  EXPECT_EQ(learned.find("modelled from the syncs"), std::string::npos) << learned;
  EXPECT_NE(learned.find("warning: 300 of 1000 modelled GPU activities had no duration learned"), std::string::npos)
      << learned;
  const std::string mixed = format_table(merge({model, first}));
  EXPECT_EQ(mixed.find("modelled from the syncs"), std::string::npos) << mixed;
  EXPECT_NE(mixed.find("warning: 1300 of 2000 modelled GPU activities"), std::string::npos) << mixed;
}

TEST(ProbeTrace, WritesValidTraceEventJsonWithNamedTracksAndBubbles) {
  std::ostringstream out;
  {
    TraceWriter w(out, 1234, "python3 train.py");
    const EventStream s = sample_stream();
    // Two windows: the bubble spans the cut.
    EventStream a = s, b = s;
    a.host.resize(3);
    a.gpu.resize(2);
    b.host.erase(b.host.begin(), b.host.begin() + 3);
    b.gpu.erase(b.gpu.begin(), b.gpu.begin() + 2);
    w.add(a);
    w.add(b);
  }
  const json doc = json::parse(out.str());
  ASSERT_TRUE(doc["traceEvents"].is_array());
  std::set<std::string> track_names, slice_names;
  for (const auto& e : doc["traceEvents"]) {
    ASSERT_TRUE(e.contains("ph") && e.contains("pid") && e.contains("name")) << e.dump();
    EXPECT_EQ(e["pid"], 1234);
    if (e["ph"] == "M") {
      if (e["name"] == "thread_name") track_names.insert(e["args"]["name"].get<std::string>());
      continue;
    }
    ASSERT_EQ(e["ph"], "X");
    ASSERT_TRUE(e.contains("ts") && e.contains("dur") && e.contains("tid")) << e.dump();
    EXPECT_GE(e["dur"].get<double>(), 0);
    slice_names.insert(e["name"].get<std::string>());
  }
  EXPECT_TRUE(track_names.count("host thread 1"));
  EXPECT_TRUE(track_names.count("GPU 0 stream 7"));
  EXPECT_TRUE(track_names.count("GPU 0 idle"));
  EXPECT_TRUE(slice_names.count("train.py:42 cudaStreamSynchronize"));
  EXPECT_TRUE(slice_names.count("GPU idle after train.py:42 cudaStreamSynchronize"));
  EXPECT_TRUE(slice_names.count("kernel"));
  for (const auto& e : doc["traceEvents"])
    if (e["name"] == "GPU idle after train.py:42 cudaStreamSynchronize") {
      EXPECT_DOUBLE_EQ(e["ts"].get<double>(), 1012);
      EXPECT_DOUBLE_EQ(e["dur"].get<double>(), 113);
    }
}

// A sync whose thread waited for a CPU inside it says how long in its slice's args; the others do not.
TEST(ProbeTrace, ASyncsWaitForACpuIsAnArgumentOfItsSlice) {
  std::ostringstream out;
  {
    TraceWriter w(out, 1, "train");
    EventStream s = sample_stream();
    s.host[2].descheduled_ns = 640'000;
    w.add(s);
  }
  const json doc = json::parse(out.str());
  int syncs = 0, others = 0;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] != "X" || e.value("cat", "") == "gpu") continue;
    if (e["name"] == "train.py:42 cudaStreamSynchronize") {
      ++syncs;
      EXPECT_DOUBLE_EQ(e["args"]["descheduled_us"].get<double>(), 640.0) << e.dump();
    } else if (e.contains("args") && e["args"].contains("api")) {
      ++others;
      EXPECT_FALSE(e["args"].contains("descheduled_us")) << e.dump();
    }
  }
  EXPECT_EQ(syncs, 1);
  EXPECT_GE(others, 2);
}

TEST(ProbeTrace, StopsAtTheEventLimitAndSaysSo) {
  std::ostringstream out;
  {
    TraceWriter w(out, 1, "p");
    w.set_event_limit(5);
    for (int i = 0; i < 10; ++i) w.add(sample_stream());
  }
  const json doc = json::parse(out.str());
  EXPECT_LT(doc["traceEvents"].size(), 30u);  // one window (about 15 events), not ten
  EXPECT_TRUE(doc["otherData"].contains("synclint_truncated_after_events"));
}

TEST(ProbeTrace, MergeKeepsTheTruncationNoticeOfEachProcess) {
  std::ostringstream a, b;
  {
    TraceWriter w(a, 7, "rank 0");
    w.set_event_limit(5);
    for (int i = 0; i < 10; ++i) w.add(sample_stream());
  }
  {
    TraceWriter w(b, 8, "rank 1");
    w.add(sample_stream());
  }
  const json one = json::parse(a.str());
  const auto after = one["otherData"]["synclint_truncated_after_events"].get<std::uint64_t>();
  // One process: its document as written, notice included.
  EXPECT_EQ(merge_traces({a.str()}), a.str());
  const json merged = json::parse(merge_traces({b.str(), a.str()}));
  EXPECT_EQ(merged["otherData"]["synclint_truncated_after_events"].get<std::uint64_t>(), after);
  EXPECT_EQ(merged["otherData"]["synclint_truncated_pids"], json::array({7}));
  EXPECT_TRUE(trace_truncated(a.str()));
  EXPECT_TRUE(trace_truncated(merge_traces({b.str(), a.str()})));
  EXPECT_FALSE(trace_truncated(b.str()));
  const json whole = json::parse(merge_traces({b.str(), b.str()}));
  EXPECT_FALSE(whole["otherData"].contains("synclint_truncated_after_events"));
  EXPECT_THROW(merge_traces({"{\"traceEvents\":[ x"}), ProbeError);  // one invalid document still fails
}

TEST(ProbeTrace, MergeAlignsProcessesOnTheirOrigin) {
  std::ostringstream a, b;
  {
    TraceWriter w(a, 1, "rank 0");
    w.add(sample_stream());
  }
  {
    EventStream s = sample_stream();
    for (auto& h : s.host) h.start_ns += 5000, h.end_ns += 5000;
    for (auto& g : s.gpu) g.start_ns += 5000, g.end_ns += 5000;
    s.run_start_ns = 5000;
    TraceWriter w(b, 2, "rank 1");
    w.add(s);
  }
  const json doc = json::parse(merge_traces({a.str(), b.str()}));
  double first_host_rank1 = -1;
  for (const auto& e : doc["traceEvents"])
    if (e["pid"] == 2 && e["ph"] == "X" && first_host_rank1 < 0) first_host_rank1 = e["ts"].get<double>();
  EXPECT_DOUBLE_EQ(first_host_rank1, 5.0);  // 5000 ns later than rank 0's origin
  EXPECT_THROW(merge_traces({"{\"x\":1}"}), ProbeError);
}

}  // namespace
}  // namespace synclint::probe
