// The core's reader of the probe report ("synclint-probe-report", docs/probe.md): `synclint check --costs`
// joins it on findings. The report's fields are the shared schema's (core/report_schema.h), the same ones
// the probe writes, so nothing the probe measured is dropped on the way in.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string_view>

#include "core/finding.h"
#include "core/report_schema.h"

namespace synclint {

class CostReportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr std::string_view kCostReportSchema = report_schema::kName;
inline constexpr int kCostReportVersion = report_schema::kVersion;  // newest version this reader understands

using CostRun = report_schema::Run;    // one probed process
using CostSite = report_schema::Site;  // one runtime sync site: where (absolute path on the probed machine), its cost
using CostReport = report_schema::Report;

// The part of a site's cost that a finding carries.
SiteCost site_cost(const CostSite& site);

// Parses report JSON text; `source` names it in error messages. Throws CostReportError on invalid JSON,
// a wrong schema, a version newer than kCostReportVersion or a malformed field. Unknown fields are ignored.
CostReport parse_cost_report(std::string_view json_text, std::string_view source = "<report>");
// Reads and parses a file; throws CostReportError (unreadable file included).
CostReport read_cost_report(const std::filesystem::path& file);

}  // namespace synclint
