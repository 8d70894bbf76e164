// Bad input to every reader of probe data: recorded streams, probe reports (the probe's reader and the
// core's reader behind `synclint check --costs`) and Chrome traces. Each structured mutant of a valid
// document (tests/unit/json_mutants.h) must be rejected with the reader's own error, or read exactly: a
// replaced value that is accepted comes back unchanged when the result is written again, so nothing is
// silently truncated, wrapped or rounded. Whatever is accepted must then go through the rest of the
// pipeline (analysis, Chrome trace, merge, table, ranking join) without throwing.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../json_mutants.h"
#include "analysis/analysis.h"
#include "analysis/report_io.h"
#include "analysis/stream_io.h"
#include "analysis/trace.h"
#include "core/cost_report.h"
#include "core/finding.h"
#include "core/ranking.h"
#include "probe_samples.h"
#include "stream_builder.h"

namespace synclint::probe {
namespace {

using nlohmann::json;
using synclint::testing::json_mutants;
using synclint::testing::JsonMutant;
using testing::sample_report;
using testing::sample_stream;
using testing::StreamBuilder;

// A small stream with every kind of record: sites, host calls (one with the probe's own time, a sync with its
// wait for a CPU, a launch with its grid), GPU records
// and timed Python calls.
json small_stream() {
  EventStream s = sample_stream();
  s.host[1].probe_ns = 2000;
  s.host[2].descheduled_ns = 100'000;  // the sync's wait for a CPU
  s.host[0].launch_blocks = 64;        // the first kernel's grid
  s.host[0].launch_block_threads = 256;
  s.python_calls.push_back(PythonCall{testing::us(9), testing::us(1020), 1, 0});
  s.run_start_ns = 1;
  s.run_end_ns = testing::us(3000);
  return json::parse(stream_to_json(s));
}

// The first records of a real recording, so that the mutants cover what the probe writes on the GPU.
json recorded_stream_head(std::size_t records) {
  const auto file = std::filesystem::path(SYNCLINT_SOURCE_DIR) / "runtime_probe/testdata/cpp-smoke.stream.json";
  json doc = json::parse(read_text_file(file));
  for (const char* key : {"host", "gpu", "python_calls"})
    if (doc.contains(key) && doc[key].size() > records) doc[key].erase(doc[key].begin() + records, doc[key].end());
  return doc;
}

json small_report() { return json::parse(report_to_json(sample_report(0, 7))); }

// Whether the value a mutant put at `m.at` came back unchanged after reading and writing again.
::testing::AssertionResult kept_exactly(const JsonMutant& m, const json& written) {
  if (!m.replaced) return ::testing::AssertionSuccess();
  const json& given = m.document.at(m.at);
  // null, {} and [] read as absent: the reader fills in the documented defaults.
  if (given.is_null() || (given.is_structured() && given.empty())) return ::testing::AssertionSuccess();
  if (!written.contains(m.at))
    return ::testing::AssertionFailure() << m.description << ": accepted, then left out when written again";
  const json& back = written.at(m.at);
  if (back == given) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << m.description << ": accepted, but read as " << back.dump();
}

TEST(ProbeBadInput, StreamMutantsAreRejectedOrReadExactly) {
  for (const json& doc : {small_stream(), recorded_stream_head(6)}) {
    const auto mutants = json_mutants(doc);
    ASSERT_GT(mutants.size(), 300u);
    std::size_t accepted = 0, rejected = 0;
    for (const auto& m : mutants) {
      EventStream s;
      try {
        s = parse_stream(m.text, "rec.json");
      } catch (const ProbeError& e) {
        ++rejected;
        EXPECT_EQ(std::string(e.what()).rfind("rec.json", 0), 0u) << m.description << ": " << e.what();
        continue;
      }
      ++accepted;
      EXPECT_TRUE(kept_exactly(m, json::parse(stream_to_json(s))));
      // What is accepted goes through the analysis, the report and the Chrome trace.
      ProbeReport r;
      EXPECT_NO_THROW(r = analyze(s)) << m.description;
      EXPECT_NO_THROW(parse_report(report_to_json(r))) << m.description;
      std::ostringstream trace;
      EXPECT_NO_THROW({
        TraceWriter w(trace, 1, "train");
        w.add(s);
        w.finish();
      }) << m.description;
      EXPECT_NO_THROW(json::parse(trace.str())) << m.description;
    }
    EXPECT_GT(accepted, 0u);
    EXPECT_GT(rejected, 0u);
  }
}

TEST(ProbeBadInput, ReportMutantsAreRejectedOrReadExactlyByBothReaders) {
  const json doc = small_report();
  const auto mutants = json_mutants(doc);
  ASSERT_GT(mutants.size(), 300u);
  std::size_t accepted = 0, rejected = 0;
  for (const auto& m : mutants) {
    // The probe's reader (`synclint probe merge`, the table).
    try {
      const ProbeReport r = parse_report(m.text, "r.json");
      ++accepted;
      EXPECT_TRUE(kept_exactly(m, json::parse(report_to_json(r))));
      EXPECT_NO_THROW((void)format_table(r)) << m.description;
      EXPECT_NO_THROW((void)report_to_json(merge({r, r}))) << m.description;
    } catch (const ProbeError& e) {
      ++rejected;
      EXPECT_EQ(std::string(e.what()).rfind("r.json", 0), 0u) << m.description << ": " << e.what();
    }
    // The core's reader (`synclint check --costs`), then the join.
    try {
      const CostReport c = parse_cost_report(m.text, "r.json");
      Report findings;
      EXPECT_NO_THROW(join_costs(findings, c, {{"/w", "/home/me/w"}})) << m.description;
    } catch (const CostReportError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("r.json", 0), 0u) << m.description << ": " << e.what();
    }
  }
  EXPECT_GT(accepted, 0u);
  EXPECT_GT(rejected, 0u);
}

TEST(ProbeBadInput, TraceMutantsAreRejectedOrMerged) {
  StreamBuilder b;
  const auto site = b.site("/w/train.py", 42, "train_step");
  b.kernel(0, 5, 10, 1010);
  b.copy_d2h(10, 5, 1010, 1012, site);
  b.sync(20, 1015, site);
  std::ostringstream trace;
  {
    TraceWriter w(trace, 7, "train");
    w.add(b.done());
  }
  const json doc = json::parse(trace.str());
  for (const auto& m : json_mutants(doc, 2)) {
    try {
      const std::string merged = merge_traces({trace.str(), m.text});
      EXPECT_NO_THROW(json::parse(merged)) << m.description;
      EXPECT_NO_THROW((void)trace_truncated(merged)) << m.description;
    } catch (const ProbeError&) {
    }
  }
}

}  // namespace
}  // namespace synclint::probe
