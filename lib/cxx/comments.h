// The comments of one file of a parsed translation unit, for the suppression service: the raw lexer's
// comment tokens, so that text inside string literals is never taken for a comment.
#pragma once

#include <clang/Basic/SourceLocation.h>

#include <vector>

#include "core/suppressions.h"

namespace clang {
class SourceManager;
class LangOptions;
}  // namespace clang

namespace synclint::cxx {

std::vector<Comment> comments_of(const clang::SourceManager& sm, clang::FileID file, const clang::LangOptions& lang);

}  // namespace synclint::cxx
