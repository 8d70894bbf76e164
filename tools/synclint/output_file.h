// Writing a report to the path a user named with -o / --trace. A regular file (or a path that does not
// exist yet) is replaced atomically: a temporary file in the same folder, renamed over it, so readers see
// the old file or the complete new one; an existing file keeps its mode, and a symbolic link is followed
// (the file it points at is replaced, the link stays). Anything else (/dev/null, /dev/stdout, a FIFO, a
// process substitution such as >(cmd), a character device) is opened and written in place.
#pragma once

#include <filesystem>
#include <string_view>

namespace synclint::cli {

// Throws std::runtime_error("cannot write PATH: reason").
void write_output_file(const std::filesystem::path& path, std::string_view text);

// Throws when `path` could not be written later; creates nothing and never opens a FIFO or device (which
// could block, or end a reader's input).
void check_output_writable(const std::filesystem::path& path, const char* what);

}  // namespace synclint::cli
