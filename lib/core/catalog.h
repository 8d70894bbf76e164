// The rule catalog: one TOML file per rule under rules/, embedded at build time, extendable from
// configuration. It is the single source of rule docs (explain, docs/rules/*.md, SARIF metadata) and of
// the API names front-ends look up.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/finding.h"

namespace synclint {

class CatalogError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// API kinds a front-end looks up. Python: "methods" (x.NAME(...) on a device value), "functions"
// (qualified call, "torch.cuda.synchronize", "wandb.log"), "builtins" ("float", "print").
// C++: "methods", "functions". The loader rejects any other kind for a language.
struct RuleDocs {
  std::string what;         // What it does
  std::string why;          // Why it stalls the GPU
  std::string example;      // code, language-tagged markdown fences
  std::string use_instead;  // code or prose
  std::string options;      // configuration that affects the rule
};

struct Rule {
  std::string id;       // "SYNC001"
  std::string name;     // "tensor-item"
  std::string summary;  // one line, for `synclint rules` and SARIF shortDescription
  Severity default_severity = Severity::Warning;
  std::vector<Language> languages;
  // apis[language][kind] -> names
  std::map<Language, std::map<std::string, std::vector<std::string>, std::less<>>> apis;
  // What a call of the rule's APIs in a language gives back, where its [apis.<language>] table says
  // (`returns`, one of api_returns_values()): "host", a host value read from the device (a number, a list);
  // "timer", a host clock reading. Front-ends use it in their device inference.
  std::map<Language, std::string> api_returns;
  RuleDocs docs;
  // "docs/rules/<id>.md": a path relative to the repository root, not an absolute URI. SARIF's helpUri
  // must be absolute, so emitters should not put this there; they carry markdown() as the rule's help
  // text instead, and may use this path to point readers at the checked-in page.
  std::string help_uri() const;
  std::string markdown() const;  // the full docs page (what docs/rules/<id>.md contains)

  // Names of one kind for one language (empty when none).
  const std::vector<std::string>& api_names(Language lang, std::string_view kind) const;
  // What the rule's APIs in `lang` return ("host", "timer"), empty when the catalog does not say.
  std::string_view returns(Language lang) const;
};

// The API kinds valid for a language, as listed above (added; the configuration loader validates
// extra-sync-apis against it).
const std::vector<std::string>& api_kinds(Language lang);
// The values of `returns` in an [apis.<language>] table.
const std::vector<std::string>& api_returns_values();

class Catalog {
 public:
  // The catalog compiled into the binary. Throws CatalogError if an embedded file is invalid (a test
  // guards this).
  static const Catalog& builtin();
  // Parses rule files (name, TOML text). Unknown keys, duplicate ids or names, unknown kinds fail with
  // a message naming the file and key.
  static Catalog from_files(const std::vector<std::pair<std::string, std::string>>& files);

  const std::vector<Rule>& rules() const { return rules_; }
  // By id ("SYNC001") or name ("tensor-item"); nullptr when unknown.
  const Rule* find(std::string_view id_or_name) const;

  // Every rule id and name, for "did you mean" suggestions. (Added.)
  std::vector<std::string> ids_and_names() const;

  // Adds a user API (from configuration) to a rule: `rule_id` must exist.
  void add_api(std::string_view rule_id, Language lang, std::string_view kind, std::string name);

  // Which rules list `name` under `kind` for `lang` (usually one).
  std::vector<const Rule*> rules_for_api(Language lang, std::string_view kind, std::string_view name) const;

 private:
  void index_rule(std::size_t position);

  std::vector<Rule> rules_;
  // language -> kind -> API name -> positions in rules_ (rules_for_api is on the front-ends' hot path).
  std::map<Language, std::map<std::string, std::map<std::string, std::vector<std::size_t>, std::less<>>, std::less<>>>
      index_;
};

// The generated docs/rules folder as (file name, content): one "<ID>.md" page per rule (markdown() under
// a do-not-edit line) and "README.md", the index table. `synclint rules --markdown-dir` writes it and a
// test compares it with the checked-in files. (Added.)
std::vector<std::pair<std::string, std::string>> rule_doc_pages(const Catalog& catalog);

}  // namespace synclint
