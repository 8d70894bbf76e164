// One open text document: its text, version and line index, and the conversions between LSP positions
// (in the negotiated encoding), byte offsets and synclint's 1-based code-point columns.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lsp/protocol.h"

namespace synclint::lsp {

class Document {
 public:
  Document(std::string text, std::int64_t version, PositionEncoding encoding);

  const std::string& text() const { return text_; }
  std::int64_t version() const { return version_; }

  // Applies one change (a range edit, or the whole text). Positions past a line's end or the document's
  // end are clamped, as the specification asks.
  void apply(const ContentChange& change);
  void set_version(std::int64_t v) { version_ = v; }

  std::size_t line_count() const { return starts_.size(); }
  std::string_view line(std::uint32_t line) const;  // without its line break
  std::size_t offset_of(Position p) const;           // clamped
  // An LSP position from a 0-based line and a 0-based column in code points.
  Position position_of(std::uint32_t line, std::uint32_t code_points) const;

 private:
  void index();
  std::string text_;
  std::int64_t version_;
  PositionEncoding encoding_;
  std::vector<std::size_t> starts_;  // byte offset of each line's first byte
};

// A column in `encoding` units for the first `code_points` code points of `line`, and back to bytes.
std::uint32_t encode_column(std::string_view line, std::uint32_t code_points, PositionEncoding encoding);
std::size_t byte_of_column(std::string_view line, std::uint32_t column, PositionEncoding encoding);

}  // namespace synclint::lsp
