// A small catalog for the front-end's unit tests, independent of the shipped rules/*.toml, plus helpers
// that run the analyzer on inline sources.
#pragma once

#include <string>
#include <vector>

#include "core/catalog.h"
#include "python/analyzer.h"

namespace synclint::python::test {

const Catalog& catalog();
Options options(bool report_cold = false);
// Analyzes one inline source as "train.py".
FileResult analyze(const std::string& source, const Options& opts = options());
std::vector<FileResult> analyze_files(const std::vector<SourceFile>& files, const Options& opts = options());
// Findings of one rule, as "line:column" strings, in order.
std::vector<std::string> sites(const FileResult& r, const std::string& rule_id);
const Finding* find(const FileResult& r, const std::string& rule_id, std::uint32_t line);

}  // namespace synclint::python::test
