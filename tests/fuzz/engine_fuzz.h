// What the Python front-end targets share: `check` on paths as the command line runs it, then the
// emitters over its report.
#pragma once

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/catalog.h"
#include "core/config.h"
#include "core/embedded_rules.h"
#include "emit/emit.h"
#include "engine/engine.h"
#include "fuzz_support.h"

namespace synclint::fuzz {

// The built-in catalog cut down to the rules `ids` names, in the built-in order, made once per set. A SARIF
// log lists its catalog's rules: the whole catalog is the same text for every input, and writing it costs
// more than a small input's own findings.
inline const Catalog& catalog_of(const std::set<std::string>& ids) {
  static std::map<std::set<std::string>, Catalog> made;
  auto it = made.find(ids);
  if (it == made.end()) {
    std::vector<std::pair<std::string, std::string>> files;
    for (const EmbeddedRuleFile& f : embedded_rule_files()) {
      const std::string_view id = f.name.substr(0, f.name.find('.'));
      if (ids.contains(std::string(id))) files.emplace_back("rules/" + std::string(f.name), std::string(f.text));
    }
    it = made.emplace(ids, Catalog::from_files(files)).first;
  }
  return it->second;
}

inline const Catalog& catalog_for(const Report& report) {
  std::set<std::string> ids;
  for (const Finding& f : report.findings) ids.insert(f.rule_id);
  return catalog_of(ids);
}

// `synclint check PATH...` with one job; then each of `formats` over the report (sources read from disk,
// relative paths from `working_directory`).
inline void check_and_emit(const std::vector<std::string>& paths, const std::filesystem::path& working_directory,
                           std::initializer_list<emit::Format> formats) {
  engine::CheckOptions options;
  options.paths = paths;
  options.jobs = 1;
  Report report;
  try {
    report = engine::run_check(options);
  } catch (const ConfigError&) {
    return;
  }
  emit::Options emit_options;
  emit_options.working_directory = working_directory;
  emit_options.information_uri = "";
  emit_options.read_source = emit::read_source_from_disk();
  std::ostringstream out;
  for (emit::Format format : formats) emit::write(format, out, report, catalog_for(report), emit_options);
}

// For LLVMFuzzerInitialize: what the first inputs would otherwise make while they are measured (the
// catalogs of no rule, of each rule and of each pair of rules; the engine's and emitters' own one-time
// state, through one small check), so that it neither counts as their coverage nor looks like a leak.
inline void warm_up() {
  std::vector<std::string> ids;
  for (const Rule& r : Catalog::builtin().rules()) ids.push_back(r.id);
  (void)catalog_of({});
  for (std::size_t i = 0; i < ids.size(); ++i)
    for (std::size_t j = i; j < ids.size(); ++j) (void)catalog_of({ids[i], ids[j]});
  const std::filesystem::path file = scratch() / "warm_up.py";
  write_file(file, "import torch\nx = torch.zeros(2).cuda()\nfor i in range(3):\n    print(x.sum().item())\n");
  check_and_emit({file.string()}, scratch(), {emit::Format::Text, emit::Format::Sarif});
  std::filesystem::remove(file);
}

}  // namespace synclint::fuzz
