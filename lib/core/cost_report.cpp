#include "core/cost_report.h"

#include <fstream>

namespace synclint {
namespace {
constexpr std::string_view kWrongSchemaHint = "; write one with `synclint probe -o FILE -- CMD`";
}  // namespace

SiteCost site_cost(const CostSite& site) {
  SiteCost c;
  c.calls = site.calls;
  c.host_blocked_ms = site.host_blocked_ms;
  c.gpu_idle_ms = site.gpu_idle_ms;
  c.predicted_saving_ms = site.predicted_saving_ms;
  c.share_of_run = site.share_of_run;
  return c;
}

CostReport parse_cost_report(std::string_view text, std::string_view source) {
  return report_schema::parse<CostReportError>(text, source, kWrongSchemaHint);
}

CostReport read_cost_report(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw CostReportError(file.string() + ": cannot open the cost report");
  return report_schema::parse_input<CostReportError>(in, file.string(), kWrongSchemaHint);
}

}  // namespace synclint
