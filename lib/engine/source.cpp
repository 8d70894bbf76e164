#include "engine/source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace synclint::engine {

std::size_t invalid_utf8_offset(std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    // ASCII fast path, eight bytes at a time.
    while (i + 8 <= n) {
      std::uint64_t word;
      std::memcpy(&word, s + i, 8);
      if (word & 0x8080808080808080ull) break;
      i += 8;
    }
    if (i >= n) break;
    const unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;        // overlong
      if (c == 0xED) hi = 0x9F;        // surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;        // overlong
      if (c == 0xF4) hi = 0x8F;        // above U+10FFFF
    } else {
      return i;
    }
    if (i + len > n) return i;
    if (s[i + 1] < lo || s[i + 1] > hi) return i;
    for (std::size_t k = 2; k < len; ++k)
      if (s[i + k] < 0x80 || s[i + k] > 0xBF) return i;
    i += len;
  }
  return std::string_view::npos;
}

namespace {

FileError file_error(const std::string& display, std::string message) {
  return FileError{display, std::move(message), true, std::nullopt};
}

std::string errno_text(int err) { return std::strerror(err); }

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

Position position_of(std::string_view text, std::size_t offset) {
  Position p{1, 1};
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++p.line;
      p.column = 1;
    } else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      ++p.column;
    }
  }
  return p;
}

// "UTF-16" or "UTF-32" (with the byte order) for text with such a byte order mark, or without one when
// every other byte of an ASCII-looking start is NUL; null otherwise.
const char* utf16_or_32(std::string_view text) {
  if (text.starts_with(std::string_view("\xFF\xFE\0\0", 4))) return "UTF-32 (little-endian)";
  if (text.starts_with(std::string_view("\0\0\xFE\xFF", 4))) return "UTF-32 (big-endian)";
  if (text.starts_with("\xFF\xFE")) return "UTF-16 (little-endian)";
  if (text.starts_with("\xFE\xFF")) return "UTF-16 (big-endian)";
  const std::size_t n = std::min<std::size_t>(text.size(), 64) & ~std::size_t{1};
  if (n < 4) return nullptr;
  bool even_nul = true, odd_nul = true;
  for (std::size_t i = 0; i < n; i += 2) {
    even_nul = even_nul && text[i] == '\0' && text[i + 1] != '\0';
    odd_nul = odd_nul && text[i + 1] == '\0' && text[i] != '\0';
  }
  return odd_nul ? "UTF-16 (little-endian)" : even_nul ? "UTF-16 (big-endian)" : nullptr;
}

}  // namespace

void lone_cr_to_lf(std::string& text) {
  for (std::size_t i = text.find('\r'); i != std::string::npos; i = text.find('\r', i + 1))
    if (i + 1 == text.size() || text[i + 1] != '\n') text[i] = '\n';
}

std::variant<std::string, FileError> read_source(const std::filesystem::path& path, const std::string& display,
                                                 std::size_t max_bytes) {
  // O_NONBLOCK: opening a FIFO must never wait for a writer.
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (fd.get() < 0) return file_error(display, "cannot open: " + errno_text(errno));
  struct stat st{};
  if (::fstat(fd.get(), &st) != 0) return file_error(display, "cannot stat: " + errno_text(errno));
  if (S_ISDIR(st.st_mode)) return file_error(display, "is a folder, not a file");
  if (!S_ISREG(st.st_mode)) return file_error(display, "not a regular file (a FIFO, socket or device)");
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    return file_error(display, "file too large (" + std::to_string(st.st_size) + " bytes; the limit is " +
                                   std::to_string(max_bytes) + ")");
  }
  // One spare byte: a file that grew since fstat is noticed without a second allocation for the others.
  std::string text;
  text.resize(static_cast<std::size_t>(st.st_size) + 1);
  std::size_t got = 0;
  while (true) {
    if (got == text.size()) {
      if (text.size() > max_bytes) break;
      text.resize(std::min<std::size_t>(text.size() + (1u << 16), max_bytes + 1));
    }
    const ssize_t r = ::read(fd.get(), text.data() + got, text.size() - got);
    if (r < 0) {
      if (errno == EINTR) continue;
      return file_error(display, "cannot read: " + errno_text(errno));
    }
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  text.resize(got);
  if (text.size() > max_bytes) {
    return file_error(display, "file too large (more than " + std::to_string(max_bytes) + " bytes)");
  }
  if (const char* encoding = utf16_or_32(text)) {
    return file_error(display, std::string("the file is ") + encoding +
                                   " (synclint reads UTF-8 source, as Python does by default); skipped");
  }
  if (const std::size_t nul = text.find('\0'); nul != std::string::npos) {
    FileError e = file_error(display, "binary file (contains NUL bytes); skipped");
    e.position = position_of(text, nul);
    return e;
  }
  if (const std::size_t bad = invalid_utf8_offset(text); bad != std::string_view::npos) {
    FileError e = file_error(display, "invalid UTF-8 at byte offset " + std::to_string(bad) + "; skipped");
    e.position = position_of(text, bad);
    return e;
  }
  if (text.starts_with("\xEF\xBB\xBF")) text.erase(0, 3);
  lone_cr_to_lf(text);
  return text;
}

}  // namespace synclint::engine
