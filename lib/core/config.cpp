#include "core/config.h"

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

#include "core/catalog.h"
#include "core/glob.h"
#include "core/toml_read.h"

namespace synclint {

namespace fs = std::filesystem;

namespace {

using Reader = detail::TomlReader<ConfigError>;

const std::vector<std::string> kTopLevelKeys{"select",  "ignore",        "severity",       "per-file-ignores",
                                             "exclude", "hot-functions", "extra-sync-apis"};

std::string read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ConfigError(file.string() + ": cannot read the configuration file");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A rule id, rule name or id prefix ("SYNC", "SYNC0") -> canonical upper-case id or prefix.
std::string resolve_selector(const Reader& reader, const toml::node& at, std::string_view key, const std::string& text,
                             const Catalog& catalog, bool allow_prefix) {
  if (const Rule* rule = catalog.find(text)) return rule->id;
  static const std::regex prefix_re("SYNC[0-9]{0,3}", std::regex::icase);
  if (allow_prefix && std::regex_match(text, prefix_re)) {
    std::string upper = text;
    std::transform(upper.begin(), upper.end(), upper.begin(), [](char c) { return static_cast<char>(std::toupper(c)); });
    for (const Rule& r : catalog.rules()) {
      if (r.id.starts_with(upper)) return upper;
    }
  }
  reader.fail(&at, key,
              std::string(allow_prefix ? "unknown rule id, name or prefix '" : "unknown rule id or name '") + text +
                  "'" + did_you_mean(text, catalog.ids_and_names()));
}

std::vector<std::string> read_selectors(const Reader& reader, const toml::node& node, std::string_view key,
                                        const Catalog& catalog) {
  std::vector<std::string> out;
  for (const auto& text : reader.strings(node, key)) out.push_back(resolve_selector(reader, node, key, text, catalog, true));
  return out;
}

// Why `glob` is not a usable glob (a '[' that no ']' closes in its component), or empty when it is.
std::string glob_problem(std::string_view glob) {
  for (std::size_t i = 0; i < glob.size(); ++i) {
    if (glob[i] == '\\') {
      ++i;
      continue;
    }
    if (glob[i] != '[') continue;
    std::size_t j = i + 1;
    if (j < glob.size() && (glob[j] == '!' || glob[j] == '^')) ++j;
    if (j < glob.size() && glob[j] == ']') ++j;  // a ']' first in the set is a member
    while (j < glob.size() && glob[j] != ']' && glob[j] != '/') ++j;
    if (j >= glob.size() || glob[j] != ']')
      return "invalid glob '" + std::string(glob) + "': the '[' at offset " + std::to_string(i) +
             " has no closing ']' (write [[] for a literal '[')";
    i = j;
  }
  return {};
}

std::vector<std::string> read_globs(const Reader& reader, const toml::node& node, std::string_view key) {
  std::vector<std::string> globs = reader.strings(node, key);
  for (const std::string& g : globs)
    if (std::string problem = glob_problem(g); !problem.empty()) reader.fail(&node, key, problem);
  return globs;
}

ExtraApi read_extra_api(const Reader& reader, const toml::node& node, const std::string& key, const Catalog& catalog) {
  const auto* entry = node.as_table();
  if (entry == nullptr) {
    reader.fail(&node, key,
                "expected a table such as { rule = \"SYNC001\", name = \"mylib.to_float\", kind = \"functions\" }, got " +
                    std::string(detail::toml_type_name(node)));
  }
  reader.check_keys(*entry, {"rule", "name", "kind", "language"}, key + ".");
  ExtraApi api;
  const toml::node& rule_node = reader.required(*entry, "rule", key + ".");
  const std::string rule_text = reader.string(rule_node, key + ".rule");
  api.rule_id = resolve_selector(reader, rule_node, key + ".rule", rule_text, catalog, false);
  api.name = reader.string(reader.required(*entry, "name", key + "."), key + ".name");
  if (api.name.empty()) reader.fail(entry->get("name"), key + ".name", "must not be empty");
  if (const toml::node* lang_node = entry->get("language")) {
    const std::string text = reader.string(*lang_node, key + ".language");
    const auto lang = parse_language(text);
    if (!lang) reader.fail(lang_node, key + ".language", "'" + text + "' is not python or cpp" + did_you_mean(text, {"python", "cpp"}));
    api.language = *lang;
  }
  const Rule* rule = catalog.find(api.rule_id);
  if (std::find(rule->languages.begin(), rule->languages.end(), api.language) == rule->languages.end()) {
    reader.fail(&rule_node, key + ".rule",
                rule->id + " (" + rule->name + ") does not apply to " + std::string(to_string(api.language)));
  }
  api.kind = "functions";
  if (const toml::node* kind_node = entry->get("kind")) {
    api.kind = reader.string(*kind_node, key + ".kind");
    const auto& kinds = api_kinds(api.language);
    if (std::find(kinds.begin(), kinds.end(), api.kind) == kinds.end()) {
      std::string list;
      for (const auto& k : kinds) list += (list.empty() ? "" : ", ") + k;
      reader.fail(kind_node, key + ".kind",
                  "'" + api.kind + "' is not a " + std::string(to_string(api.language)) + " API kind (" + list + ")" +
                      did_you_mean(api.kind, kinds));
    }
  }
  return api;
}

Config read_config(const toml::table& table, const fs::path& file, const std::string& section, const Catalog& catalog) {
  const Reader reader(file.string(), section);
  reader.check_keys(table, kTopLevelKeys);
  Config config;
  config.file = fs::absolute(file).lexically_normal();
  config.root = config.file->parent_path();
  const std::string source = config.file->string();

  if (const auto* node = table.get("select")) {
    config.select = {read_selectors(reader, *node, "select", catalog), source};
    if (config.select.value.empty())
      reader.fail(node, "select", "is empty, so no rule would be checked (leave `select` out to check every rule, or "
                                  "name the rules to check)");
  }
  if (const auto* node = table.get("ignore")) config.ignore = {read_selectors(reader, *node, "ignore", catalog), source};
  if (const auto* node = table.get("severity")) {
    std::map<std::string, Severity> levels;
    for (const auto& [key, value] : reader.table(*node, "severity")) {
      const std::string path = "severity." + std::string(key.str());
      const std::string id = resolve_selector(reader, value, path, std::string(key.str()), catalog, false);
      const std::string level = reader.string(value, path);
      const auto parsed = parse_severity(level);
      if (!parsed) {
        reader.fail(&value, path, "'" + level + "' is not note, warning or error" + did_you_mean(level, {"note", "warning", "error"}));
      }
      levels[id] = *parsed;
    }
    config.severity = {std::move(levels), source};
  }
  if (const auto* node = table.get("per-file-ignores")) {
    std::vector<PerFileIgnore> entries;
    for (const auto& [key, value] : reader.table(*node, "per-file-ignores")) {
      const std::string path = "per-file-ignores.\"" + std::string(key.str()) + "\"";
      if (std::string problem = glob_problem(key.str()); !problem.empty()) reader.fail(&value, path, problem);
      entries.push_back(PerFileIgnore{std::string(key.str()), read_selectors(reader, value, path, catalog)});
    }
    config.per_file_ignores = {std::move(entries), source};
  }
  if (const auto* node = table.get("exclude")) config.exclude = {read_globs(reader, *node, "exclude"), source};
  if (const auto* node = table.get("hot-functions")) config.hot_functions = {reader.strings(*node, "hot-functions"), source};
  if (const auto* node = table.get("extra-sync-apis")) {
    const auto* array = node->as_array();
    if (array == nullptr) {
      reader.fail(node, "extra-sync-apis", "expected an array of tables, got " + std::string(detail::toml_type_name(*node)));
    }
    std::vector<ExtraApi> apis;
    for (std::size_t i = 0; i < array->size(); ++i) {
      apis.push_back(read_extra_api(reader, *array->get(i), "extra-sync-apis[" + std::to_string(i) + "]", catalog));
    }
    config.extra_sync_apis = {std::move(apis), source};
  }
  return config;
}

// How specifically the longest selector in `list` matches `rule_id` (0 when none does). A selector is
// an id prefix (case-insensitive) or a rule name; values from files are already canonical ids, but the
// command line passes selectors through as typed.
std::size_t longest_prefix(const std::vector<std::string>& list, std::string_view rule_id) {
  std::size_t best = 0;
  for (const auto& s : list) {
    if (s.empty()) continue;
    if (s.size() <= rule_id.size() && iequals(rule_id.substr(0, s.size()), s)) {
      best = std::max(best, s.size());
    } else if (const Rule* rule = Catalog::builtin().find(s); rule != nullptr && rule->id == rule_id) {
      best = std::max(best, rule_id.size());
    }
  }
  return best;
}

std::string relative_to_root(const fs::path& root, const fs::path& path) {
  const fs::path absolute = fs::absolute(path).lexically_normal();
  const fs::path relative = absolute.lexically_relative(fs::absolute(root).lexically_normal());
  if (relative.empty() || *relative.begin() == "..") return absolute.generic_string();
  return relative.generic_string();
}

std::string toml_quoted(std::string_view text) {
  std::ostringstream out;
  out << toml::value<std::string>(std::string(text));
  return out.str();
}

std::string quoted_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (const auto& item : items) out += (out.size() > 1 ? ", " : "") + toml_quoted(item);
  return out + "]";
}

}  // namespace

bool glob_matches(std::string_view glob, std::string_view relative) {
  return Glob(glob, Glob::Style::Config).matches(relative);
}

bool Config::rule_enabled(std::string_view rule_id, const fs::path& path) const {
  return rule_enabled(rule_id, per_file_ignored(path));
}

std::vector<std::string> Config::per_file_ignored(const fs::path& path) const {
  std::vector<std::string> ids;
  if (per_file_ignores.value.empty()) return ids;
  const std::string relative = relative_to_root(root, path);
  const std::vector<std::string_view> components = Glob::split_path(relative, Glob::Style::Config);
  for (const auto& entry : per_file_ignores.value)
    if (Glob(entry.glob, Glob::Style::Config).matches(components)) ids.insert(ids.end(), entry.ids.begin(), entry.ids.end());
  return ids;
}

bool Config::rule_enabled(std::string_view rule_id, const std::vector<std::string>& file_ignored) const {
  const std::size_t selected = longest_prefix(select.value, rule_id);
  return selected != 0 && longest_prefix(ignore.value, rule_id) < selected && longest_prefix(file_ignored, rule_id) == 0;
}

Severity Config::severity_for(std::string_view rule_id, Severity default_severity) const {
  const auto it = std::find_if(severity.value.begin(), severity.value.end(),
                               [&](const auto& entry) { return entry.first == rule_id; });
  if (it == severity.value.end() || default_severity == Severity::Note) return default_severity;
  return it->second;
}

bool Config::excluded(const fs::path& path) const {
  if (exclude.value.empty()) return false;
  const std::string relative = relative_to_root(root, path);
  return std::any_of(exclude.value.begin(), exclude.value.end(),
                     [&](const std::string& glob) { return glob_matches(glob, relative); });
}

const std::vector<std::string>& default_hot_functions() {
  static const std::vector<std::string> names{
      // PyTorch Lightning / Fabric and similar LightningModule-style callbacks.
      "training_step", "validation_step", "test_step", "predict_step", "forward",
      "on_train_batch_start", "on_train_batch_end", "on_validation_batch_end", "on_test_batch_end",
      "on_before_backward", "on_after_backward", "on_before_optimizer_step", "optimizer_step",
      // Hugging Face Trainer overrides.
      "compute_loss", "prediction_step",
      // Common hand-written names.
      "train_step", "eval_step", "train_one_step", "step_fn"};
  return names;
}

std::optional<Config> load_config_file(const fs::path& file, const Catalog& catalog) {
  const std::string text = read_file(file);
  const toml::table root = detail::parse_toml<ConfigError>(text, file.string());
  if (file.filename() == "pyproject.toml") {
    const toml::node* tool = root.get("tool");
    const toml::node* section = tool != nullptr && tool->is_table() ? tool->as_table()->get("synclint") : nullptr;
    if (section == nullptr) return std::nullopt;
    return read_config(Reader(file.string()).table(*section, "tool.synclint"), file, "[tool.synclint] ", catalog);
  }
  if (const toml::node* tool = root.get("tool")) {
    Reader(file.string()).fail(tool, "tool",
                               "a .synclint.toml takes its keys at the top level, without a [tool.synclint] header");
  }
  return read_config(root, file, "", catalog);
}

Config find_config(const fs::path& dir, const Catalog& catalog) {
  std::error_code ec;
  // An empty path (the parent of "train.py") is the working directory.
  fs::path start = fs::absolute(dir.empty() ? fs::path(".") : dir, ec).lexically_normal();
  if (ec) throw ConfigError(dir.string() + ": cannot resolve the path: " + ec.message());
  if (fs::is_regular_file(start, ec)) start = start.parent_path();
  // "dir/." normalises to "dir/", whose last component is empty.
  if (!start.has_filename() && start.has_parent_path() && start != start.root_path()) start = start.parent_path();
  std::vector<std::string> skipped;
  for (fs::path folder = start;; folder = folder.parent_path()) {
    for (const char* name : kConfigFileNames) {
      const fs::path candidate = folder / name;
      if (!fs::is_regular_file(candidate, ec)) continue;
      std::optional<Config> config;
      try {
        config = load_config_file(candidate, catalog);
      } catch (const ConfigError& e) {
        // A pyproject.toml that is not TOML stops the run only when it holds (or means to hold) ours.
        if (std::string_view(name) != "pyproject.toml" || read_file(candidate).find("synclint") != std::string::npos)
          throw;
        skipped.push_back(candidate.string() + ": skipped, not valid TOML and without [tool.synclint] (" + e.what() + ")");
        continue;
      }
      if (config) {
        config->skipped = std::move(skipped);
        return *config;
      }
      if (std::string_view(name) == "pyproject.toml") skipped.push_back(candidate.string() + ": skipped, no [tool.synclint]");
    }
    if (folder == folder.root_path() || !folder.has_parent_path() || folder.parent_path() == folder) break;
  }
  Config config;
  config.root = start;
  config.skipped = std::move(skipped);
  return config;
}

void apply_extra_apis(const Config& config, Catalog& catalog) {
  for (const auto& api : config.extra_sync_apis.value) {
    try {
      catalog.add_api(api.rule_id, api.language, api.kind, api.name);
    } catch (const CatalogError& e) {
      throw ConfigError(config.extra_sync_apis.source + ": extra-sync-apis: " + e.what());
    }
  }
}

std::string describe_config(const Config& config) {
  std::ostringstream out;
  out << "# root: " << config.root.generic_string() << "\n";
  out << "# file: " << (config.file ? config.file->generic_string() : std::string("none (defaults)")) << "\n";
  for (const std::string& note : config.skipped) out << "# " << note << "\n";
  const auto line = [&](std::string_view key, const std::string& value, const std::string& source) {
    std::string text = std::string(key) + " = " + value;
    const std::size_t width = std::max<std::size_t>(text.size() + 2, 40);
    text.resize(width, ' ');
    out << text << "# " << source << "\n";
  };
  line("select", quoted_list(config.select.value), config.select.source);
  line("ignore", quoted_list(config.ignore.value), config.ignore.source);
  std::string severity = "{";
  for (const auto& [id, level] : config.severity.value) {
    severity += (severity.size() > 1 ? ", " : " ") + id + " = " + toml_quoted(to_string(level));
  }
  line("severity", severity + (severity.size() > 1 ? " }" : "}"), config.severity.source);
  std::string per_file = "{";
  for (const auto& entry : config.per_file_ignores.value) {
    per_file += (per_file.size() > 1 ? ", " : " ") + toml_quoted(entry.glob) + " = " + quoted_list(entry.ids);
  }
  line("per-file-ignores", per_file + (per_file.size() > 1 ? " }" : "}"), config.per_file_ignores.source);
  line("exclude", quoted_list(config.exclude.value), config.exclude.source);
  line("hot-functions", quoted_list(config.hot_functions.value), config.hot_functions.source);
  std::string apis = "[";
  for (const auto& api : config.extra_sync_apis.value) {
    apis += std::string(apis.size() > 1 ? ", " : "") + "{ rule = " + toml_quoted(api.rule_id) + ", name = " + toml_quoted(api.name) +
            ", kind = " + toml_quoted(api.kind) + ", language = " + toml_quoted(to_string(api.language)) + " }";
  }
  line("extra-sync-apis", apis + "]", config.extra_sync_apis.source);
  out << "# always hot (built in): ";
  std::string names;
  for (const auto& n : default_hot_functions()) names += (names.empty() ? "" : ", ") + n;
  out << names << "\n";
  return out.str();
}

}  // namespace synclint
