#include "engine/finish.h"

#include <iterator>

#include "core/config.h"

namespace synclint::engine {

std::vector<Finding> finish_findings(Language lang, const std::string& path, std::vector<Finding> findings,
                                     const std::vector<Comment>& comments, bool report_unused,
                                     const std::filesystem::path& config_path, const Config& config,
                                     const Catalog& catalog) {
  Suppressions suppressions = Suppressions::parse(lang, path, comments);
  suppressions.apply(findings);
  if (report_unused) {
    std::vector<Finding> unused = suppressions.unused(catalog);
    findings.insert(findings.end(), std::make_move_iterator(unused.begin()), std::make_move_iterator(unused.end()));
  }
  std::vector<Finding> kept;
  if (findings.empty()) return kept;
  const std::vector<std::string> file_ignored = config.per_file_ignored(config_path);
  for (Finding& f : findings) {
    if (!config.rule_enabled(f.rule_id, file_ignored)) continue;
    f.severity = config.severity_for(f.rule_id, f.severity);
    kept.push_back(std::move(f));
  }
  return kept;
}

}  // namespace synclint::engine
