#include "lsp/document.h"

#include <algorithm>

namespace synclint::lsp {

namespace {

// Length in bytes of the UTF-8 sequence starting with `lead` (1 for invalid bytes).
std::size_t sequence_length(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead >> 5) == 0x6) return 2;
  if ((lead >> 4) == 0xe) return 3;
  if ((lead >> 3) == 0x1e) return 4;
  return 1;
}

std::uint32_t units(std::size_t bytes, PositionEncoding encoding) {
  switch (encoding) {
    case PositionEncoding::Utf8: return static_cast<std::uint32_t>(bytes);
    case PositionEncoding::Utf16: return bytes == 4 ? 2 : 1;
    case PositionEncoding::Utf32: break;
  }
  return 1;
}

}  // namespace

std::uint32_t encode_column(std::string_view line, std::uint32_t code_points, PositionEncoding encoding) {
  std::uint32_t out = 0;
  std::size_t i = 0;
  for (std::uint32_t cp = 0; cp < code_points && i < line.size(); ++cp) {
    const std::size_t n = std::min(sequence_length(static_cast<unsigned char>(line[i])), line.size() - i);
    out += units(n, encoding);
    i += n;
  }
  return out;
}

std::size_t byte_of_column(std::string_view line, std::uint32_t column, PositionEncoding encoding) {
  std::size_t i = 0;
  std::uint32_t at = 0;
  while (i < line.size() && at < column) {
    const std::size_t n = std::min(sequence_length(static_cast<unsigned char>(line[i])), line.size() - i);
    at += units(n, encoding);
    i += n;
  }
  return i;
}

Document::Document(std::string text, std::int64_t version, PositionEncoding encoding)
    : text_(std::move(text)), version_(version), encoding_(encoding) {
  index();
}

void Document::index() {
  starts_.clear();
  starts_.push_back(0);
  for (std::size_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n') starts_.push_back(i + 1);
}

std::string_view Document::line(std::uint32_t n) const {
  if (n >= starts_.size()) return {};
  const std::size_t begin = starts_[n];
  std::size_t end = n + 1 < starts_.size() ? starts_[n + 1] - 1 : text_.size();
  if (end > begin && text_[end - 1] == '\r') --end;
  return std::string_view(text_).substr(begin, end - begin);
}

std::size_t Document::offset_of(Position p) const {
  if (p.line >= starts_.size()) return text_.size();
  return starts_[p.line] + byte_of_column(line(p.line), p.character, encoding_);
}

Position Document::position_of(std::uint32_t line_number, std::uint32_t code_points) const {
  return Position{line_number, encode_column(line(line_number), code_points, encoding_)};
}

void Document::apply(const ContentChange& change) {
  if (!change.range) {
    text_ = change.text;
  } else {
    std::size_t begin = offset_of(change.range->start);
    std::size_t end = offset_of(change.range->end);
    if (end < begin) std::swap(begin, end);
    text_.replace(begin, end - begin, change.text);
    // Line starts: those inside the replaced bytes go, the new text's come in, the later ones shift.
    const auto first = std::upper_bound(starts_.begin(), starts_.end(), begin);
    const auto last = std::upper_bound(first, starts_.end(), end);
    std::vector<std::size_t> added;
    for (std::size_t i = 0; i < change.text.size(); ++i)
      if (change.text[i] == '\n') added.push_back(begin + i + 1);
    const std::ptrdiff_t delta = static_cast<std::ptrdiff_t>(change.text.size()) - static_cast<std::ptrdiff_t>(end - begin);
    auto tail = starts_.erase(first, last);
    for (auto it = tail; it != starts_.end(); ++it) *it = static_cast<std::size_t>(static_cast<std::ptrdiff_t>(*it) + delta);
    starts_.insert(tail, added.begin(), added.end());
    return;
  }
  index();
}

}  // namespace synclint::lsp
