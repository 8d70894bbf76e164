// A recorded event stream ("synclint-probe-stream") as `probe analyze` reads it: parse, the what-if
// replay, merge and the ranked table; and the stream written back.
#include "analysis/analysis.h"
#include "analysis/report_io.h"
#include "analysis/stream_io.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace synclint;
  try {
    const probe::EventStream stream = probe::parse_stream(fuzz::as_text(data, size));
    (void)probe::stream_to_json(stream);
    probe::RunInfo run;
    run.status = "ok";
    const probe::ProbeReport merged = probe::merge({probe::analyze(stream, run)});
    (void)probe::report_to_json(merged);
    (void)probe::format_table(merged, 20);
  } catch (const probe::ProbeError&) {
  }
  return 0;
}
