// Runs the C++ analysis on a snippet compiled against tests/unit/cxx/mock_torch.h.
#pragma once

#include <string>
#include <vector>

#include "core/catalog.h"
#include "core/finding.h"

namespace synclint::cxx::test {

// `code` is the whole of train.cpp (it should start with #include "torch.h"); `report_cold` is --all.
std::vector<Finding> analyze(const std::string& code, bool report_cold = false, const Catalog* catalog = nullptr);
// Findings of one rule.
std::vector<Finding> of_rule(const std::vector<Finding>& all, const std::string& id);

}  // namespace synclint::cxx::test
