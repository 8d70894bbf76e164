// Where the probe writes (SYNCLINT_PROBE_DIR, one file per process: pid and rank in the name) and the
// run facts it reports.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "analysis/analysis.h"

namespace synclint::probe::inject {

// RANK, else LOCAL_RANK, else SLURM_PROCID; -1 when none is a number.
std::int32_t rank_from_env();

// <dir>/<kind>-<pid>.json, or <dir>/<kind>-rank<R>-<pid>.json; an empty dir (SYNCLINT_PROBE_DIR) is ".".
std::filesystem::path output_file(const std::string& dir, std::string_view kind, std::int64_t pid, std::int32_t rank);

// Command line, working directory, host name, pid and rank of the calling process.
RunInfo collect_run_info();

// Writes `text` to `file` through a temporary name and a rename; false (and `error`) on failure, leaving
// no temporary file. A text larger than the file size limit (RLIMIT_FSIZE) is not written at all.
bool write_file_atomic(const std::filesystem::path& file, std::string_view text, std::string& error);

}  // namespace synclint::probe::inject
