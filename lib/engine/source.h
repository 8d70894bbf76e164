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

// The text of the file (a leading UTF-8 byte order mark removed), or why it cannot be checked.
// `display` is the path used in the error.
std::variant<std::string, FileError> read_source(const std::filesystem::path& path, const std::string& display,
                                                 std::size_t max_bytes);

}  // namespace synclint::engine
