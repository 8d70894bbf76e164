#include "symbolizer.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "site_filter.h"

extern char** environ;

namespace synclint::probe::inject {

namespace {

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    auto pos = text.find('\n');
    out.push_back(text.substr(0, pos));
    if (pos == std::string_view::npos) break;
    text.remove_prefix(pos + 1);
  }
  return out;
}

// "file:line", "file:line (discriminator 2)", "file:line:col", "??:0", "??:?"
void parse_location(std::string_view loc, SourceFrame& f, bool has_column) {
  if (auto d = loc.find(" (discriminator"); d != std::string_view::npos) loc = loc.substr(0, d);
  auto take_number = [](std::string_view s, std::uint32_t& v) {
    if (s.empty()) return false;
    std::uint32_t n = 0;
    for (char c : s) {
      if (c < '0' || c > '9') return false;
      n = n * 10 + static_cast<std::uint32_t>(c - '0');
    }
    v = n;
    return true;
  };
  if (has_column) {
    auto c = loc.rfind(':');
    std::uint32_t col = 0;
    if (c != std::string_view::npos && take_number(loc.substr(c + 1), col)) loc = loc.substr(0, c);
  }
  auto c = loc.rfind(':');
  std::uint32_t line = 0;
  std::string_view file = loc;
  if (c != std::string_view::npos) {
    file = loc.substr(0, c);
    if (!take_number(loc.substr(c + 1), line)) line = 0;
  }
  if (file != "??" && !file.empty()) f.file = std::string(file);
  f.line = line;
}

bool is_address_line(std::string_view l) {
  if (l.size() < 3 || l[0] != '0' || l[1] != 'x') return false;
  for (char c : l.substr(2))
    if (std::strchr("0123456789abcdefABCDEF", c) == nullptr) return false;
  return true;
}

}  // namespace

std::vector<std::vector<SourceFrame>> parse_addr2line(std::string_view text, std::size_t addresses) {
  std::vector<std::vector<SourceFrame>> out;
  auto lines = lines_of(text);
  std::size_t i = 0;
  while (i < lines.size()) {
    if (!is_address_line(lines[i])) {
      ++i;
      continue;
    }
    ++i;
    std::vector<SourceFrame> chain;
    while (i < lines.size() && !is_address_line(lines[i])) {
      SourceFrame f;
      std::string_view fn = lines[i];
      if (fn != "??") f.function = std::string(fn);
      ++i;
      if (i < lines.size() && !is_address_line(lines[i])) {
        parse_location(lines[i], f, false);
        ++i;
      }
      if (!f.function.empty() || !f.file.empty()) chain.push_back(std::move(f));
    }
    out.push_back(std::move(chain));
  }
  out.resize(addresses);
  return out;
}

std::vector<std::vector<SourceFrame>> parse_llvm_symbolizer(std::string_view text, std::size_t addresses) {
  std::vector<std::vector<SourceFrame>> out;
  std::vector<SourceFrame> chain;
  auto lines = lines_of(text);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].empty()) {
      out.push_back(std::move(chain));
      chain.clear();
      continue;
    }
    SourceFrame f;
    if (lines[i] != "??") f.function = std::string(lines[i]);
    if (i + 1 < lines.size() && !lines[i + 1].empty()) parse_location(lines[++i], f, true);
    if (!f.function.empty() || !f.file.empty()) chain.push_back(std::move(f));
  }
  if (!chain.empty()) out.push_back(std::move(chain));
  out.resize(addresses);
  return out;
}

std::string find_on_path(std::string_view name) {
  const char* path = std::getenv("PATH");
  std::string p = path != nullptr ? path : "/usr/bin:/bin";
  for (const auto& dir : split_list(p, ':')) {
    std::string candidate = dir + "/" + std::string(name);
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

bool run_capture(const std::vector<std::string>& argv, std::string& out) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return false;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<char*> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if (std::strncmp(*e, "CUDA_INJECTION64_PATH=", 22) == 0 || std::strncmp(*e, "LD_PRELOAD=", 11) == 0) continue;
    env.push_back(*e);
  }
  env.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    return false;
  }
  char buf[65536];
  for (;;) {
    ssize_t n = read(fds[0], buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<std::size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;
    }
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

Symbolizer::Symbolizer() {
  const char* force = std::getenv("SYNCLINT_PROBE_SYMBOLIZER");
  std::string want = force != nullptr ? force : "";
  if (want == "none") return;
  if (want.empty() || want == "addr2line") {
    tool_path_ = find_on_path("addr2line");
    if (!tool_path_.empty()) {
      tool_ = Tool::Addr2line;
      return;
    }
  }
  if (want.empty() || want == "llvm-symbolizer") {
    tool_path_ = find_on_path("llvm-symbolizer");
    if (!tool_path_.empty()) tool_ = Tool::LlvmSymbolizer;
  }
}

std::vector<std::vector<SourceFrame>> Symbolizer::symbolize(const std::string& module,
                                                            const std::vector<std::uint64_t>& offsets) const {
  if (tool_ == Tool::None || offsets.empty()) return std::vector<std::vector<SourceFrame>>(offsets.size());
  std::vector<std::string> argv;
  if (tool_ == Tool::Addr2line) {
    argv = {tool_path_, "-a", "-f", "-C", "-i", "-e", module};
  } else {
    argv = {tool_path_, "--inlining", "--demangle", "--functions=linkage", "--obj=" + module};
  }
  char hex[32];
  for (auto off : offsets) {
    std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(off));
    argv.emplace_back(hex);
  }
  std::string out;
  run_capture(argv, out);
  return tool_ == Tool::Addr2line ? parse_addr2line(out, offsets.size())
                                  : parse_llvm_symbolizer(out, offsets.size());
}

}  // namespace synclint::probe::inject
