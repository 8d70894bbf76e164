// Reading one source file safely: never blocks on FIFOs, refuses files over the size limit, binary files
// (NUL bytes) and invalid UTF-8 with a clear per-file error.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <variant>

#include "core/finding.h"

namespace synclint::engine {

// Offset of the first byte that is not part of valid UTF-8 (overlong forms, surrogates and code points
// above U+10FFFF are invalid), or npos when `text` is valid.
std::size_t invalid_utf8_offset(std::string_view text);

// Line endings as Python reads them: a carriage return not followed by a line feed ends a line too; it
// becomes a line feed (same length, so byte offsets do not move). CRLF stays.
void lone_cr_to_lf(std::string& text);

// The text of the file (a leading UTF-8 byte order mark removed, lone CRs made LFs), or why it cannot be
// checked (UTF-16 and UTF-32 files are named as such).
// `display` is the path used in the error.
std::variant<std::string, FileError> read_source(const std::filesystem::path& path, const std::string& display,
                                                 std::size_t max_bytes);

}  // namespace synclint::engine
