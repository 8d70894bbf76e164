#include "core/catalog.h"

#include <algorithm>
#include <regex>

#include "core/embedded_rules.h"
#include "core/toml_read.h"

namespace synclint {

const std::vector<std::string>& api_kinds(Language lang) {
  static const std::vector<std::string> python{"methods", "functions", "builtins"};
  static const std::vector<std::string> cxx{"methods", "functions"};
  return lang == Language::Python ? python : cxx;
}

const std::vector<std::string>& api_returns_values() {
  static const std::vector<std::string> values{"host", "timer"};
  return values;
}

namespace {

using Reader = detail::TomlReader<CatalogError>;

bool valid_kind(Language lang, std::string_view kind) {
  const auto& kinds = api_kinds(lang);
  return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

std::string_view language_title(Language lang) { return lang == Language::Python ? "Python" : "C++ (LibTorch)"; }

std::string trimmed(std::string text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

void read_apis(const Reader& reader, const toml::table& apis, Rule& rule) {
  std::vector<std::string> language_keys;
  for (Language l : rule.languages) language_keys.emplace_back(to_string(l));
  for (const auto& [key, node] : apis) {
    const std::string lang_name(key.str());
    const std::string path = "apis." + lang_name;
    const auto lang = parse_language(lang_name);
    if (!lang || std::find(rule.languages.begin(), rule.languages.end(), *lang) == rule.languages.end()) {
      reader.fail(&node, path,
                  "not one of the rule's languages [" + [&] {
                    std::string list;
                    for (const auto& l : language_keys) list += (list.empty() ? "" : ", ") + l;
                    return list;
                  }() + "]" + did_you_mean(lang_name, language_keys));
    }
    const auto& kinds_table = reader.table(node, path);
    std::vector<std::string> keys = api_kinds(*lang);
    keys.emplace_back("returns");
    reader.check_keys(kinds_table, keys, path + ".");
    for (const auto& [kind, names] : kinds_table) {
      if (kind.str() == "returns") continue;
      rule.apis[*lang][std::string(kind.str())] = reader.strings(names, path + "." + std::string(kind.str()));
    }
    if (const toml::node* returns = kinds_table.get("returns")) {
      const std::string value = reader.string(*returns, path + ".returns");
      const auto& values = api_returns_values();
      if (std::find(values.begin(), values.end(), value) == values.end()) {
        reader.fail(returns, path + ".returns", "'" + value + "' is not host or timer" + did_you_mean(value, values));
      }
      rule.api_returns[*lang] = value;
    }
  }
}

Rule read_rule(const std::string& file, std::string_view text) {
  const toml::table root = detail::parse_toml<CatalogError>(text, file);
  const Reader reader(file);
  reader.check_keys(root, {"id", "name", "summary", "severity", "languages", "apis", "docs"});

  Rule rule;
  rule.id = reader.string(reader.required(root, "id"), "id");
  static const std::regex id_pattern("SYNC[0-9]{3}");
  if (!std::regex_match(rule.id, id_pattern)) reader.fail(root.get("id"), "id", "'" + rule.id + "' is not SYNC followed by three digits");
  const auto slash = file.find_last_of("/\\");
  const std::string base = slash == std::string::npos ? file : file.substr(slash + 1);
  if (base.size() > 5 && base.ends_with(".toml") && base != rule.id + ".toml") {
    reader.fail(root.get("id"), "id", "'" + rule.id + "' does not match the file name (expected " + rule.id + ".toml)");
  }

  rule.name = reader.string(reader.required(root, "name"), "name");
  static const std::regex name_pattern("[a-z][a-z0-9]*(-[a-z0-9]+)*");
  if (!std::regex_match(rule.name, name_pattern)) {
    reader.fail(root.get("name"), "name", "'" + rule.name + "' is not lower-case words joined by '-'");
  }

  rule.summary = trimmed(reader.string(reader.required(root, "summary"), "summary"));
  if (rule.summary.empty() || rule.summary.find('\n') != std::string::npos) {
    reader.fail(root.get("summary"), "summary", "must be one non-empty line");
  }

  if (const toml::node* severity = root.get("severity")) {
    const std::string text_value = reader.string(*severity, "severity");
    const auto parsed = parse_severity(text_value);
    if (!parsed) {
      reader.fail(severity, "severity",
                  "'" + text_value + "' is not note, warning or error" + did_you_mean(text_value, {"note", "warning", "error"}));
    }
    rule.default_severity = *parsed;
  }

  const toml::node& languages = reader.required(root, "languages");
  for (const auto& lang_name : reader.strings(languages, "languages")) {
    const auto lang = parse_language(lang_name);
    if (!lang) {
      reader.fail(&languages, "languages",
                  "'" + lang_name + "' is not python or cpp" + did_you_mean(lang_name, {"python", "cpp"}));
    }
    if (std::find(rule.languages.begin(), rule.languages.end(), *lang) != rule.languages.end()) {
      reader.fail(&languages, "languages", "'" + lang_name + "' is listed twice");
    }
    rule.languages.push_back(*lang);
  }
  if (rule.languages.empty()) reader.fail(&languages, "languages", "must name at least one language");

  if (const toml::node* apis = root.get("apis")) read_apis(reader, reader.table(*apis, "apis"), rule);

  const auto& docs = reader.table(reader.required(root, "docs"), "docs");
  reader.check_keys(docs, {"what", "why", "example", "use_instead", "options"}, "docs.");
  const auto section = [&](std::string_view key) {
    const std::string path = "docs." + std::string(key);
    std::string value = trimmed(reader.string(reader.required(docs, key, "docs."), path));
    if (value.empty()) reader.fail(docs.get(key), path, "must not be empty");
    return value;
  };
  rule.docs = RuleDocs{section("what"), section("why"), section("example"), section("use_instead"), section("options")};
  return rule;
}

}  // namespace

std::string Rule::help_uri() const { return "docs/rules/" + id + ".md"; }

std::string Rule::markdown() const {
  std::string languages_text;
  for (Language l : languages) languages_text += (languages_text.empty() ? "" : ", ") + std::string(language_title(l));
  std::string out = "# " + id + ": " + name + "\n\n" + summary + "\n\n";
  out += "Default severity: **" + std::string(to_string(default_severity)) + "**. Languages: " + languages_text + ".\n\n";
  out += "## What it does\n\n" + docs.what + "\n\n";
  out += "## Why it stalls the GPU\n\n" + docs.why + "\n\n";
  out += "## Example\n\n" + docs.example + "\n\n";
  out += "## Use instead\n\n" + docs.use_instead + "\n\n";
  out += "## Options\n\n" + docs.options + "\n";
  if (!apis.empty()) {
    out += "\n## Matched APIs\n\nThe names the front-ends look up for this rule (extend them with `extra-sync-apis`).\n\n";
    for (const auto& [lang, kinds] : apis) {
      for (const auto& [kind, names] : kinds) {
        std::string list;
        for (const auto& n : names) list += (list.empty() ? "`" : ", `") + n + "`";
        out += "- " + std::string(language_title(lang)) + " " + kind + ": " + list + "\n";
      }
    }
  }
  return out;
}

const std::vector<std::string>& Rule::api_names(Language lang, std::string_view kind) const {
  static const std::vector<std::string> none;
  const auto by_lang = apis.find(lang);
  if (by_lang == apis.end()) return none;
  const auto by_kind = by_lang->second.find(kind);
  return by_kind == by_lang->second.end() ? none : by_kind->second;
}

std::string_view Rule::returns(Language lang) const {
  const auto it = api_returns.find(lang);
  return it == api_returns.end() ? std::string_view() : std::string_view(it->second);
}

const Catalog& Catalog::builtin() {
  static const Catalog catalog = [] {
    std::vector<std::pair<std::string, std::string>> files;
    for (const auto& f : embedded_rule_files()) files.emplace_back("rules/" + std::string(f.name), std::string(f.text));
    return from_files(files);
  }();
  return catalog;
}

Catalog Catalog::from_files(const std::vector<std::pair<std::string, std::string>>& files) {
  Catalog catalog;
  std::map<std::string, std::string, std::less<>> owner;  // id or name -> file that defines it
  for (const auto& [file, text] : files) {
    Rule rule = read_rule(file, text);
    for (const std::string* key : {&rule.id, &rule.name}) {
      const auto [it, inserted] = owner.emplace(*key, file);
      if (!inserted) {
        throw CatalogError(file + ": key '" + (key == &rule.id ? "id" : "name") + "': '" + *key +
                           "' is already defined in " + it->second);
      }
    }
    catalog.rules_.push_back(std::move(rule));
  }
  std::sort(catalog.rules_.begin(), catalog.rules_.end(), [](const Rule& a, const Rule& b) { return a.id < b.id; });
  for (std::size_t i = 0; i < catalog.rules_.size(); ++i) catalog.index_rule(i);
  return catalog;
}

void Catalog::index_rule(std::size_t position) {
  for (const auto& [lang, kinds] : rules_[position].apis) {
    for (const auto& [kind, names] : kinds) {
      for (const auto& name : names) {
        auto& positions = index_[lang][kind][name];
        if (std::find(positions.begin(), positions.end(), position) == positions.end()) positions.push_back(position);
      }
    }
  }
}

const Rule* Catalog::find(std::string_view id_or_name) const {
  for (const auto& rule : rules_) {
    if (iequals(rule.id, id_or_name) || rule.name == id_or_name) return &rule;
  }
  return nullptr;
}

std::vector<std::string> Catalog::ids_and_names() const {
  std::vector<std::string> words;
  for (const Rule& r : rules_) {
    words.push_back(r.id);
    words.push_back(r.name);
  }
  return words;
}

void Catalog::add_api(std::string_view rule_id, Language lang, std::string_view kind, std::string name) {
  const Rule* found = find(rule_id);
  if (found == nullptr) throw CatalogError("unknown rule '" + std::string(rule_id) + "'");
  if (!valid_kind(lang, kind)) {
    throw CatalogError("unknown API kind '" + std::string(kind) + "' for " + std::string(to_string(lang)) +
                       did_you_mean(kind, api_kinds(lang)));
  }
  if (name.empty()) throw CatalogError("empty API name for " + found->id);
  Rule& rule = rules_[static_cast<std::size_t>(found - rules_.data())];
  if (std::find(rule.languages.begin(), rule.languages.end(), lang) == rule.languages.end()) {
    throw CatalogError(rule.id + " (" + rule.name + ") does not apply to " + std::string(to_string(lang)));
  }
  auto& names = rule.apis[lang][std::string(kind)];
  if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(std::move(name));
  index_rule(static_cast<std::size_t>(&rule - rules_.data()));
}

std::vector<const Rule*> Catalog::rules_for_api(Language lang, std::string_view kind, std::string_view name) const {
  std::vector<const Rule*> out;
  const auto by_lang = index_.find(lang);
  if (by_lang == index_.end()) return out;
  const auto by_kind = by_lang->second.find(kind);
  if (by_kind == by_lang->second.end()) return out;
  const auto by_name = by_kind->second.find(name);
  if (by_name == by_kind->second.end()) return out;
  for (std::size_t position : by_name->second) out.push_back(&rules_[position]);
  std::sort(out.begin(), out.end(), [](const Rule* a, const Rule* b) { return a->id < b->id; });
  return out;
}

std::vector<std::pair<std::string, std::string>> rule_doc_pages(const Catalog& catalog) {
  const std::string generated = "<!-- Generated from rules/*.toml by `synclint rules --markdown-dir docs/rules`. Do not edit. -->\n\n";
  std::vector<std::pair<std::string, std::string>> pages;
  std::string index = generated + "# Rules\n\nEvery rule synclint checks, generated from the catalog in `rules/`. `synclint explain <ID>` prints\nthe same pages in a terminal.\n\n";
  index += "| Code | Name | Default severity | Languages | Summary |\n|---|---|---|---|---|\n";
  for (const Rule& rule : catalog.rules()) {
    pages.emplace_back(rule.id + ".md", generated + rule.markdown());
    std::string languages;
    for (Language l : rule.languages) languages += (languages.empty() ? "" : ", ") + std::string(language_title(l));
    std::string summary;
    for (char c : rule.summary) summary += c == '|' ? std::string("\\|") : std::string(1, c);
    index += "| [" + rule.id + "](" + rule.id + ".md) | " + rule.name + " | " + std::string(to_string(rule.default_severity)) +
             " | " + languages + " | " + summary + " |\n";
  }
  pages.emplace_back("README.md", index);
  return pages;
}

}  // namespace synclint
