// A compile error of a C++ translation unit that was still analysed: a non-fatal FileError whose message
// starts with kCompileErrorPrefix. Outputs show it as an error (`path:line:col: error: ...`, as clang-tidy
// does); only fatal errors (a unit that could not be analysed at all) change the exit status.
#pragma once

#include <string_view>

#include "core/finding.h"

namespace synclint {

inline constexpr std::string_view kCompileErrorPrefix = "compiler error: ";

inline bool is_compile_error(const FileError& e) {
  return !e.fatal && std::string_view(e.message).starts_with(kCompileErrorPrefix);
}

// Whether an output shows the problem as an error rather than a warning.
inline bool shown_as_error(const FileError& e) { return e.fatal || is_compile_error(e); }

// The message as the text output shows it after "error:": without the prefix.
inline std::string_view shown_message(const FileError& e) {
  std::string_view m = e.message;
  if (is_compile_error(e)) m.remove_prefix(kCompileErrorPrefix.size());
  return m;
}

}  // namespace synclint
