// `synclint rules`, `synclint explain`, `synclint config`: read-only views of the catalog and the
// configuration.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "core/catalog.h"
#include "core/config.h"
#include "core/suggest.h"

namespace synclint::cli {

namespace {

namespace fs = std::filesystem;

std::string languages_text(const Rule& rule) {
  std::string text;
  for (Language l : rule.languages) text += (text.empty() ? "" : ",") + std::string(to_string(l));
  return text;
}

void print_table(const Catalog& catalog, std::ostream& out) {
  std::size_t name_width = 4;
  for (const Rule& r : catalog.rules()) name_width = std::max(name_width, r.name.size());
  const auto row = [&](const std::string& id, const std::string& name, const std::string& severity,
                       const std::string& langs, const std::string& summary) {
    std::string line = id;
    line.resize(9, ' ');
    line += name;
    line.resize(9 + name_width + 2, ' ');
    line += severity;
    line.resize(line.size() + (9 - severity.size()), ' ');
    line += langs;
    line.resize(line.size() + (12 - std::min<std::size_t>(langs.size(), 11)), ' ');
    out << line << summary << "\n";
  };
  row("ID", "NAME", "SEVERITY", "LANGUAGES", "SUMMARY");
  for (const Rule& r : catalog.rules()) {
    row(r.id, r.name, std::string(to_string(r.default_severity)), languages_text(r), r.summary);
  }
}

nlohmann::ordered_json rules_json(const Catalog& catalog) {
  nlohmann::ordered_json rules = nlohmann::ordered_json::array();
  for (const Rule& r : catalog.rules()) {
    nlohmann::ordered_json apis = nlohmann::ordered_json::object();
    for (const auto& [lang, kinds] : r.apis) {
      for (const auto& [kind, names] : kinds) apis[std::string(to_string(lang))][kind] = names;
    }
    nlohmann::ordered_json languages = nlohmann::ordered_json::array();
    for (Language l : r.languages) languages.push_back(std::string(to_string(l)));
    rules.push_back({{"id", r.id},
                     {"name", r.name},
                     {"summary", r.summary},
                     {"default_severity", std::string(to_string(r.default_severity))},
                     {"languages", languages},
                     {"apis", apis},
                     {"help_uri", r.help_uri()}});
  }
  return rules;
}

// Writes the generated docs pages into `dir`; removes pages of rules that no longer exist.
int write_markdown_dir(const Catalog& catalog, const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    std::cerr << "synclint: error: cannot create " << dir.string() << ": " << ec.message() << "\n";
    return kExitError;
  }
  const auto pages = rule_doc_pages(catalog);
  static const std::regex page_name("SYNC[0-9]+\\.md");
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    const bool current = std::any_of(pages.begin(), pages.end(), [&](const auto& p) { return p.first == name; });
    if (!current && std::regex_match(name, page_name)) fs::remove(entry.path(), ec);
  }
  for (const auto& [name, text] : pages) {
    std::ofstream out(dir / name, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush()) {
      std::cerr << "synclint: error: cannot write " << (dir / name).string() << "\n";
      return kExitError;
    }
  }
  std::cout << "wrote " << pages.size() << " files to " << dir.string() << "\n";
  return kExitClean;
}

}  // namespace

void add_catalog_commands(CLI::App& app, int& exit_code) {
  struct RulesOptions {
    std::string format = "text";
    std::string markdown_dir;
  };
  auto rules_options = std::make_shared<RulesOptions>();
  CLI::App* rules = app.add_subcommand("rules", "List the rules: id, name, default severity, languages, summary");
  rules->add_option("--format", rules_options->format, "Output format")->check(CLI::IsMember({"text", "json"}));
  rules->add_option("--markdown-dir", rules_options->markdown_dir,
                    "Write the docs pages (one <ID>.md per rule and README.md) into this folder instead");
  rules->callback([rules_options, &exit_code] {
    const Catalog& catalog = Catalog::builtin();
    if (!rules_options->markdown_dir.empty()) {
      exit_code = write_markdown_dir(catalog, rules_options->markdown_dir);
    } else if (rules_options->format == "json") {
      std::cout << rules_json(catalog).dump(2) << "\n";
    } else {
      print_table(catalog, std::cout);
    }
  });

  auto rule_arg = std::make_shared<std::string>();
  CLI::App* explain = app.add_subcommand("explain", "Print a rule's documentation (by id or name)");
  explain->add_option("rule", *rule_arg, "Rule id (SYNC001) or name (tensor-item)")->required();
  explain->callback([rule_arg, &exit_code] {
    const Catalog& catalog = Catalog::builtin();
    const Rule* rule = catalog.find(*rule_arg);
    if (rule == nullptr) {
      std::cerr << "synclint: error: unknown rule '" << *rule_arg << "'" << did_you_mean(*rule_arg, catalog.ids_and_names())
                << "; `synclint rules` lists them\n";
      exit_code = kExitError;
      return;
    }
    std::cout << rule->markdown();
  });

  auto path_arg = std::make_shared<std::string>(".");
  CLI::App* config = app.add_subcommand("config", "Show the configuration that applies to PATH and where each value comes from");
  config->add_option("path", *path_arg, "A file or folder (default: the current folder)");
  config->callback([path_arg, &exit_code] {
    std::error_code ec;
    if (!fs::exists(*path_arg, ec)) {
      std::cerr << "synclint: error: " << *path_arg << ": no such file or directory\n";
      exit_code = kExitError;
      return;
    }
    try {
      std::cout << describe_config(find_config(*path_arg, Catalog::builtin()));
    } catch (const ConfigError& e) {
      std::cerr << "synclint: error: " << e.what() << "\n";
      exit_code = kExitError;
    }
  });
}

}  // namespace synclint::cli
