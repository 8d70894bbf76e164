#pragma once
#include <string_view>
#include <vector>

namespace synclint {
struct EmbeddedRuleFile {
  std::string_view name;  // "SYNC001.toml"
  std::string_view text;
};
// The rules/*.toml files compiled into the binary (generated at build time).
const std::vector<EmbeddedRuleFile>& embedded_rule_files();
}  // namespace synclint
