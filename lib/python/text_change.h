// The bytes an edit changed between two texts: those between their common prefix and common suffix.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string_view>

namespace synclint::python {

struct TextChange {
  std::size_t start = 0;    // the common prefix's length
  std::size_t old_end = 0;  // where the common suffix starts in the old text
  std::size_t new_end = 0;  // and in the new one
};

inline TextChange text_change(std::string_view old_text, std::string_view text) {
  const std::size_t common = std::min(old_text.size(), text.size());
  std::size_t prefix = 0;
  while (prefix < common && old_text[prefix] == text[prefix]) ++prefix;
  std::size_t suffix = 0;
  while (suffix < common - prefix && old_text[old_text.size() - 1 - suffix] == text[text.size() - 1 - suffix]) ++suffix;
  return TextChange{prefix, old_text.size() - suffix, text.size() - suffix};
}

}  // namespace synclint::python
