// The probe report as versioned JSON ("synclint-probe-report", docs/probe.md; its fields are the shared
// schema's, lib/core/report_schema.h): writer, reader, merge of per-process reports, and the ranked table
// `synclint probe` prints.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/analysis.h"
#include "analysis/stream_io.h"  // ProbeError

namespace synclint::probe {

inline constexpr std::string_view kReportSchema = report_schema::kName;

std::string report_to_json(const ProbeReport& report);
// Throws ProbeError: invalid JSON, wrong schema, a version newer than kReportVersion, malformed fields.
ProbeReport parse_report(std::string_view json_text, std::string_view source = "<report>");
ProbeReport read_report(const std::filesystem::path& file);
void write_report(const ProbeReport& report, const std::filesystem::path& file);

// Combines per-process reports (DataLoader workers, one process per GPU): sums per site and the totals,
// keeps every process's run info in `runs`; `run` gets the first process's command and cwd, the
// longest wall time and a combined status. share_of_run becomes saving / sum of the processes' wall
// times.
ProbeReport merge(const std::vector<ProbeReport>& reports);

// The ranked table (site, rule guess, calls, host blocked, GPU idle after, predicted saving, share of
// run time) with a summary line; paths under run.cwd are shown relative to it. max_rows 0: all.
std::string format_table(const ProbeReport& report, std::size_t max_rows = 0);

}  // namespace synclint::probe
