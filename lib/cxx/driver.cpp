#include "cxx/driver.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "core/parallel.h"
#include "cxx/command_line.h"
#include "cxx/compile_db.h"
#include "cxx/translation_unit.h"

#ifndef SYNCLINT_CLANG_RESOURCE_DIR
#error "SYNCLINT_CLANG_RESOURCE_DIR is set by lib/cxx/CMakeLists.txt"
#endif

namespace synclint::cxx {
namespace fs = std::filesystem;

Driver::Driver(const engine::CxxOptions& options) : options_(options) {
  if (options.header_filter) {
    try {
      header_filter_.emplace(*options.header_filter, std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error& e) {
      throw DatabaseError("--header-filter: invalid regular expression '" + *options.header_filter + "': " + e.what());
    }
  }
  commands_ = std::make_unique<CommandSource>(options.build_path, options.fixed_args);
}

Driver::~Driver() = default;

bool Driver::takes_walked(const fs::path& absolute) {
  return is_translation_unit_name(absolute) && commands_->lists(absolute);
}

namespace {

bool under(const fs::path& path, const fs::path& root) {
  const fs::path rel = path.lexically_relative(root);
  return !rel.empty() && *rel.begin() != "..";
}

FileError error_at(const std::string& path, std::string message, bool fatal) {
  return FileError{path, std::move(message), fatal, std::nullopt};
}

void merge_header(std::map<std::string, FileResult>& headers, FileResult&& header) {
  FileResult& into = headers[header.path];
  if (into.path.empty()) {
    into = std::move(header);
    return;
  }
  const auto same = [](const Finding& a, const Finding& b) {
    return std::tie(a.rule_id, a.range.begin, a.range.end, a.message) ==
           std::tie(b.rule_id, b.range.begin, b.range.end, b.message);
  };
  for (Finding& f : header.findings) {
    const bool seen = std::any_of(into.findings.begin(), into.findings.end(), [&](const Finding& g) { return same(f, g); });
    if (!seen) into.findings.push_back(std::move(f));
  }
}

}  // namespace

bool Driver::prepare(const Unit& unit, const RunOptions& options, UnitInput& input, FileResult& out) {
  out.path = unit.path;
  std::optional<CompileCommand> command;
  try {
    command = commands_->command_for(unit.open_path);
  } catch (const DatabaseError& e) {
    out.errors.push_back(error_at(unit.path, e.what(), true));
    return false;
  }
  if (!command) {
    out.errors.push_back(error_at(
        unit.path,
        "no compilation database found (compile_commands.json in this file's folders or their build/); "
        "name one with -p BUILD_DIR or give the compile flags after --",
        true));
    return false;
  }
  if (command->note) out.errors.push_back(error_at(unit.path, *command->note, false));
  ParseCommand parse = parse_command(command->argv, options_.extra_args_before, options_.extra_args,
                                     unit.open_path.string(), SYNCLINT_CLANG_RESOURCE_DIR);
  for (const std::string& flag : parse.dropped)
    out.errors.push_back(error_at(unit.path, "dropped '" + flag + "' from the compile command of " +
                                                 command->source + ": synclint never loads plugins",
                                  false));
  input.display_path = unit.path;
  input.main_file = unit.open_path;
  input.directory = command->directory;
  input.argv = std::move(parse.argv);
  input.catalog = options.catalog;
  input.report_cold = options.report_cold;
  input.show_warnings = !options_.quiet;
  input.user_header = [this, root = options.project_root, own = unit.open_path.parent_path()](const fs::path& header) {
    if (header_filter_) return std::regex_search(header.string(), *header_filter_);
    return under(header, root) || under(header, own);
  };
  return true;
}

void Driver::take(UnitOutput& output, const Unit& unit, FileResult& out, std::map<std::string, FileResult>& headers) {
  for (const CompilerMessage& m : output.messages) {
    const std::string where = m.path.empty() ? unit.path : m.path;
    out.errors.push_back(FileError{where, m.text, false, m.position});
  }
  if (!output.analysed) {
    out.errors.push_back(error_at(unit.path, "could not be analysed: Clang produced no syntax tree", true));
    return;
  }
  out.findings = std::move(output.main.findings);
  out.comments = std::move(output.main.comments);
  for (FileResult& h : output.headers) merge_header(headers, std::move(h));
}

RunResult Driver::run(const std::vector<Unit>& units, const RunOptions& options) {
  RunResult result;
  result.units.resize(units.size());
  // Commands first, on this thread (databases load once); then the parses in parallel.
  std::vector<std::optional<UnitInput>> inputs(units.size());
  for (std::size_t i = 0; i < units.size(); ++i) {
    UnitInput input;
    if (prepare(units[i], options, input, result.units[i])) inputs[i] = std::move(input);
  }

  std::vector<UnitOutput> outputs(units.size());
  parallel_for(units.size(), std::max(1u, options.jobs), [&](std::size_t i, unsigned) {
    if (inputs[i]) outputs[i] = parse_and_analyze(*inputs[i]);
  });

  std::map<std::string, FileResult> headers;
  for (std::size_t i = 0; i < units.size(); ++i) {
    if (!inputs[i]) continue;
    take(outputs[i], units[i], result.units[i], headers);
    outputs[i] = {};
  }
  for (auto& [path, header] : headers) result.headers.push_back(std::move(header));
  return result;
}

}  // namespace synclint::cxx
