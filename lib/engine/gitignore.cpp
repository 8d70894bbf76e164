#include "engine/gitignore.h"

#include <fstream>
#include <sstream>
#include <system_error>

namespace synclint::engine {
namespace fs = std::filesystem;

namespace {

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    std::size_t end = text.find(sep, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return parts;
}

// Trailing spaces are dropped unless escaped with a backslash.
std::string_view trim_trailing_spaces(std::string_view line) {
  while (!line.empty() && line.back() == ' ') {
    std::size_t backslashes = 0;
    for (std::size_t i = line.size() - 1; i > 0 && line[i - 1] == '\\'; --i) ++backslashes;
    if (backslashes % 2 == 1) break;  // "\ " is a literal space
    line.remove_suffix(1);
  }
  return line;
}

}  // namespace

IgnoreFile IgnoreFile::parse(std::string_view text) {
  IgnoreFile result;
  for (std::string_view line : split(text, '\n')) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    line = trim_trailing_spaces(line);
    if (line.empty() || line.front() == '#') continue;
    Pattern p;
    if (line.front() == '!') {
      p.negated = true;
      line.remove_prefix(1);
    }
    if (!line.empty() && line.back() == '/') {
      p.dir_only = true;
      line.remove_suffix(1);
    }
    if (line.empty() || line == "/") continue;
    p.glob = Glob(line, Glob::Style::Gitignore);
    result.patterns_.push_back(std::move(p));
  }
  return result;
}

std::optional<bool> IgnoreFile::match(std::string_view relative, bool is_dir) const {
  if (patterns_.empty() || relative.empty()) return std::nullopt;
  const std::vector<std::string_view> path = Glob::split_path(relative, Glob::Style::Gitignore);
  // The last matching pattern decides.
  for (auto it = patterns_.rbegin(); it != patterns_.rend(); ++it) {
    if (it->dir_only && !is_dir) continue;
    if (it->glob.matches(path)) return !it->negated;
  }
  return std::nullopt;
}

void IgnoreStack::load(const fs::path& dir, const fs::path& file) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return;
  std::ifstream in(file, std::ios::binary);
  if (!in) return;  // an unreadable ignore file ignores nothing
  std::ostringstream text;
  text << in.rdbuf();
  IgnoreFile parsed = IgnoreFile::parse(text.str());
  if (parsed.empty()) return;
  std::string base = dir.lexically_normal().generic_string();
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  entries_.push_back({std::move(base), std::move(parsed)});
}

std::size_t IgnoreStack::push_dir(const fs::path& dir) {
  std::size_t before = entries_.size();
  std::error_code ec;
  if (fs::exists(dir / ".git", ec)) load(dir, dir / ".git" / "info" / "exclude");
  load(dir, dir / ".gitignore");
  return entries_.size() - before;
}

void IgnoreStack::pop(std::size_t count) {
  entries_.resize(entries_.size() - std::min(count, entries_.size()));
}

void IgnoreStack::push_parents(const fs::path& dir) {
  std::error_code ec;
  fs::path here = fs::absolute(dir, ec).lexically_normal();
  if (ec) return;
  if (here.has_filename() == false && here.has_parent_path()) here = here.parent_path();
  std::vector<fs::path> chain;  // parents of `dir`, closest first
  for (fs::path p = here; p.has_parent_path() && p.parent_path() != p;) {
    if (fs::exists(p / ".git", ec) && p == here) return;  // `dir` is the repository root
    p = p.parent_path();
    chain.push_back(p);
    if (fs::exists(p / ".git", ec)) {
      for (auto it = chain.rbegin(); it != chain.rend(); ++it) push_dir(*it);
      return;
    }
  }
}

bool IgnoreStack::ignored(const fs::path& path, bool is_dir) const {
  if (entries_.empty()) return false;
  std::string p = path.generic_string();
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    const std::string& base = it->base;
    std::string_view rel;
    if (base == "/") {
      rel = std::string_view(p).substr(1);
    } else if (p.size() > base.size() && p.compare(0, base.size(), base) == 0 && p[base.size()] == '/') {
      rel = std::string_view(p).substr(base.size() + 1);
    } else {
      continue;
    }
    if (auto decision = it->file.match(rel, is_dir)) return *decision;
  }
  return false;
}

}  // namespace synclint::engine
