// Typed reading of toml++ tables with error messages that name the file, line and key. Shared by the
// catalog loader (CatalogError) and the configuration loader (ConfigError).
#pragma once

#include <cctype>
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

// toml++ recurses once per level of arrays, inline tables and dotted-key or table-header parts (it
// overflows the stack near 50,000); deeper input is refused before it parses.
inline constexpr std::size_t kMaxTomlNesting = 128;

// The first line where brackets and dotted-key parts nest deeper than `limit`, or 0; strings and comments
// are skipped.
inline std::size_t toml_too_deep(std::string_view text, std::size_t limit) {
  std::size_t line = 1, brackets = 0, dots = 0;
  const auto skip_to = [&](std::size_t i, std::string_view end, bool escapes, bool multiline) {
    for (; i < text.size(); ++i) {
      if (escapes && text[i] == '\\') {
        if (i + 1 < text.size() && text[i + 1] == '\n') ++line;
        ++i;
        continue;
      }
      if (text.compare(i, end.size(), end) == 0) return i + end.size() - 1;
      if (text[i] == '\n') {
        if (!multiline) return i - 1;  // unterminated: the line end is read by the caller
        ++line;
      }
    }
    return text.size();
  };
  // `dots`: parts of the dotted key being read; `outer`: those of the keys around the open brackets.
  std::vector<std::size_t> outer;
  std::size_t outer_dots = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '#') {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
    } else if (c == '"' || c == '\'') {
      const bool triple = text.compare(i, 3, std::string(3, c)) == 0;
      i = skip_to(i + (triple ? 3 : 1), std::string(triple ? 3 : 1, c), c == '"', triple);
    } else if (c == '[' || c == '{') {
      outer.push_back(outer_dots);
      outer_dots += dots;
      ++brackets;
      dots = 0;
    } else if (c == ']' || c == '}') {
      if (!outer.empty()) {
        outer_dots = outer.back();
        outer.pop_back();
        --brackets;
      }
      dots = 0;
    } else if (c == '.') {
      ++dots;
    } else if (c == '\n') {
      ++line;
      dots = 0;
    } else if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != ' ' && c != '\t' &&
               c != '=') {
      dots = 0;
    }
    if (brackets + outer_dots + dots > limit) return line;
  }
  return 0;
}

// Parses TOML text; a syntax error becomes Error("file:line:col: invalid TOML: ...").
template <class Error>
toml::table parse_toml(std::string_view text, const std::string& file) {
  if (const std::size_t line = toml_too_deep(text, kMaxTomlNesting)) {
    throw Error(file + ":" + std::to_string(line) + ": invalid TOML: arrays, inline tables and dotted keys nest more than " +
                std::to_string(kMaxTomlNesting) + " levels deep");
  }
  try {
    return toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    throw Error(file + ":" + std::to_string(e.source().begin.line) + ":" + std::to_string(e.source().begin.column) +
                ": invalid TOML: " + std::string(e.description()));
  }
}

}  // namespace synclint::detail
