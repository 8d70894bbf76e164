#include "cxx/comments.h"

#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>

namespace synclint::cxx {
namespace {

// 1-based column in code points of the byte at `offset`.
std::uint32_t code_point_column(llvm::StringRef buffer, std::size_t offset) {
  std::size_t line_start = offset;
  while (line_start > 0 && buffer[line_start - 1] != '\n') --line_start;
  std::uint32_t column = 1;
  for (std::size_t i = line_start; i < offset; ++i)
    if ((static_cast<unsigned char>(buffer[i]) & 0xC0) != 0x80) ++column;
  return column;
}

}  // namespace

std::vector<Comment> comments_of(const clang::SourceManager& sm, clang::FileID file, const clang::LangOptions& lang) {
  std::vector<Comment> out;
  const std::optional<llvm::MemoryBufferRef> buffer = sm.getBufferOrNone(file);
  if (!buffer) return out;
  const llvm::StringRef text = buffer->getBuffer();
  clang::Lexer lexer(sm.getLocForStartOfFile(file), lang, text.begin(), text.begin(), text.end());
  lexer.SetCommentRetentionState(true);
  clang::Token token;
  for (bool last = false; !last;) {
    last = lexer.LexFromRawLexer(token);
    if (token.is(clang::tok::eof)) break;
    if (token.isNot(clang::tok::comment)) continue;
    const std::size_t begin = sm.getFileOffset(token.getLocation());
    const std::size_t end = begin + token.getLength();
    Comment c;
    c.text = text.substr(begin, token.getLength()).str();
    c.begin = {sm.getLineNumber(file, begin), code_point_column(text, begin)};
    c.end = {sm.getLineNumber(file, end), code_point_column(text, end)};
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace synclint::cxx
