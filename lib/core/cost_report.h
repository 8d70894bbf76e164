// Language-neutral reader of the probe report ("synclint-probe-report", docs/probe.md) for the core:
// `synclint check --costs` and the language server join it on findings. Core structs only; the probe's
// own model lives in runtime_probe/analysis and is not a dependency of the core.
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/finding.h"

namespace synclint {

class CostReportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr std::string_view kCostReportSchema = "synclint-probe-report";
inline constexpr int kCostReportVersion = 1;  // newest version this reader understands

// One probed process (a merged report holds one per rank / child process).
struct CostRun {
  std::vector<std::string> command;
  std::string cwd;       // working directory of the probed process: base for relative finding paths
  std::string hostname;
  std::int64_t pid = 0;
  std::int32_t rank = -1;
  std::string gpu_name;
  double wall_ms = 0;
  std::string status = "ok";
};

// One runtime sync site: where (absolute path on the probed machine), what API, and its cost.
struct CostSite {
  std::string path;
  std::uint32_t line = 0;
  std::string function;
  std::string language;    // "python", "cpp"
  std::string api;         // "cudaStreamSynchronize"
  std::string rule_guess;  // "SYNC001|SYNC003", "SYNC007", "" when unsure
  SiteCost cost;
};

struct CostReport {
  int version = kCostReportVersion;
  CostRun run;                 // the whole run (merged: the longest wall time, combined status)
  std::vector<CostRun> runs;   // per process
  std::vector<CostSite> sites;
};

// Parses report JSON text; `source` names it in error messages. Throws CostReportError on invalid JSON,
// a wrong schema, or a version newer than kCostReportVersion.
CostReport parse_cost_report(std::string_view json_text, std::string_view source = "<report>");
// Reads and parses a file; throws CostReportError (unreadable file included).
CostReport read_cost_report(const std::filesystem::path& file);

}  // namespace synclint
