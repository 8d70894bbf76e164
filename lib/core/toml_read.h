// Typed reading of toml++ tables with error messages that name the file, line and key. Shared by the
// catalog loader (CatalogError) and the configuration loader (ConfigError).
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include "core/suggest.h"

namespace synclint::detail {

inline std::string_view toml_type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    default: return "nothing";
  }
}

// `file` starts every message; `section` ("[tool.synclint] ") is put before key names.
template <class Error>
class TomlReader {
 public:
  TomlReader(std::string file, std::string section = {}) : file_(std::move(file)), section_(std::move(section)) {}

  [[noreturn]] void fail(const toml::node* at, std::string_view key, std::string_view message) const {
    std::string text = file_;
    if (at != nullptr && at->source().begin.line != 0) text += ":" + std::to_string(at->source().begin.line);
    text += ": ";
    text += section_;
    if (!key.empty()) text += "key '" + std::string(key) + "': ";
    text += message;
    throw Error(text);
  }

  // Rejects keys of `table` not in `allowed`; `prefix` is prepended to key names in messages ("docs.").
  void check_keys(const toml::table& table, const std::vector<std::string>& allowed,
                  std::string_view prefix = {}) const {
    for (const auto& [key, value] : table) {
      const std::string name(key.str());
      bool known = false;
      for (const auto& a : allowed) known = known || a == name;
      if (!known) {
        std::string text = file_;
        if (key.source().begin.line != 0) text += ":" + std::to_string(key.source().begin.line);
        throw Error(text + ": " + section_ + "unknown key '" + std::string(prefix) + name + "'" +
                    did_you_mean(name, allowed));
      }
    }
  }

  const toml::node& required(const toml::table& table, std::string_view key, std::string_view prefix = {}) const {
    const toml::node* node = table.get(key);
    if (node == nullptr) fail(&table, std::string(prefix) + std::string(key), "missing (it is required)");
    return *node;
  }

  std::string string(const toml::node& node, std::string_view key) const {
    const auto* value = node.as_string();
    if (value == nullptr) fail(&node, key, "expected a string, got " + std::string(toml_type_name(node)));
    return value->get();
  }

  const toml::table& table(const toml::node& node, std::string_view key) const {
    const auto* value = node.as_table();
    if (value == nullptr) fail(&node, key, "expected a table, got " + std::string(toml_type_name(node)));
    return *value;
  }

  // An array of strings; duplicates are an error (they are always a mistake in these files).
  std::vector<std::string> strings(const toml::node& node, std::string_view key) const {
    const auto* array = node.as_array();
    if (array == nullptr) fail(&node, key, "expected an array of strings, got " + std::string(toml_type_name(node)));
    std::vector<std::string> out;
    std::set<std::string, std::less<>> seen;
    for (const auto& element : *array) {
      const auto* text = element.as_string();
      if (text == nullptr) {
        fail(&element, key, "expected an array of strings, found " + std::string(toml_type_name(element)));
      }
      if (text->get().empty()) fail(&element, key, "empty string in the array");
      if (!seen.insert(text->get()).second) fail(&element, key, "'" + text->get() + "' is listed twice");
      out.push_back(text->get());
    }
    return out;
  }

 private:
  std::string file_;
  std::string section_;
};

// Parses TOML text; a syntax error becomes Error("file:line:col: invalid TOML: ...").
template <class Error>
toml::table parse_toml(std::string_view text, const std::string& file) {
  try {
    return toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    throw Error(file + ":" + std::to_string(e.source().begin.line) + ":" + std::to_string(e.source().begin.column) +
                ": invalid TOML: " + std::string(e.description()));
  }
}

}  // namespace synclint::detail
