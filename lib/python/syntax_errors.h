// Syntax errors of one file as a user should see them: at the token where the parse broke (not at the
// start of the statement tree-sitter's recovery wrapped), quoting that token only, with invisible
// characters (a no-break space, a zero-width space) named, and one error per broken span.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/finding.h"
#include "python/syntax.h"

namespace synclint::python {

// The syntax errors of `tree` (at most `limit`), in file order: the first of the loose ends `ends` (what the
// parse read as spaces, Parser::loose_last) on each line, as a bracket that was never closed or a dot
// without its name, in place of what tree-sitter found wrong on that line.
std::vector<FileError> syntax_errors(const SyntaxTree& tree, const SourceText& src, std::size_t limit,
                                     const std::vector<LooseEnd>& ends = {});

// `text` with every character that prints invisibly or looks like another (control characters, Unicode
// spaces and format characters) written as U+XXXX.
std::string visible(std::string_view text);

}  // namespace synclint::python
