// The probe report ("synclint-probe-report") as `check --costs` reads it (the core's reader) and as
// `probe merge` / `probe report` read it (the probe's reader, merge, JSON writer and ranked table).
#include "analysis/report_io.h"
#include "core/cost_report.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace synclint;
  const std::string_view text = fuzz::as_text(data, size);
  try {
    const CostReport costs = parse_cost_report(text);
    for (const auto& site : costs.sites) (void)site_cost(site);
  } catch (const CostReportError&) {
  }
  try {
    const probe::ProbeReport report = probe::parse_report(text);
    const probe::ProbeReport merged = probe::merge({report, report});
    (void)probe::report_to_json(merged);
    (void)probe::format_table(merged, 20);
  } catch (const probe::ProbeError&) {
  }
  return 0;
}
