#include "symbolizer.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
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

namespace {
// The program's environment without the variables that would load the probe into the child.
std::vector<char*> child_environment() {
  std::vector<char*> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if (std::strncmp(*e, "CUDA_INJECTION64_PATH=", 22) == 0 || std::strncmp(*e, "LD_PRELOAD=", 11) == 0) continue;
    env.push_back(*e);
  }
  env.push_back(nullptr);
  return env;
}

// posix_spawn of argv with the file actions given; the pid, or -1. The tool gets a process group of its
// own: a signal the program sends to its group (`kill(0, SIGTERM)`, as job schedulers do) or a terminal's
// Ctrl-C must not end it while the probe still needs it to write the report.
pid_t spawn(const std::vector<std::string>& argv, const posix_spawn_file_actions_t& actions) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<char*> env = child_environment();
  posix_spawnattr_t attr;
  if (posix_spawnattr_init(&attr) != 0) return -1;
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  pid_t pid = 0;
  const bool started = posix_spawn(&pid, args[0], &actions, &attr, args.data(), env.data()) == 0;
  posix_spawnattr_destroy(&attr);
  return started ? pid : -1;
}

void reap(pid_t pid, int* status = nullptr) {
  int ignored = 0;
  while (waitpid(pid, status != nullptr ? status : &ignored, 0) < 0 && errno == EINTR) {
  }
}
}  // namespace

bool run_capture(const std::vector<std::string>& argv, std::string& out) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return false;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  const pid_t pid = spawn(argv, actions);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (pid < 0) {
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
  reap(pid, &status);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

bool answer_complete(Symbolizer::Tool tool, std::string_view reply, std::size_t addresses) {
  if (reply.empty() || reply.back() != '\n') return false;
  if (tool == Symbolizer::Tool::LlvmSymbolizer) {
    std::size_t blocks = 0;
    for (std::size_t at = reply.find("\n\n"); at != std::string_view::npos; at = reply.find("\n\n", at + 2)) ++blocks;
    return blocks >= addresses;
  }
  // addr2line: the end address's echo on a line of its own (a batch's first line is a real address's),
  // then its function and location lines.
  const std::string marker = "\n" + std::string(kEndAddress) + "\n";
  const std::size_t at = reply.rfind(marker);
  if (at == std::string_view::npos) return false;
  const std::string_view after = reply.substr(at + marker.size());
  return std::count(after.begin(), after.end(), '\n') >= 2;
}

Symbolizer::Symbolizer(std::string_view want) {
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

Symbolizer::Symbolizer(Tool tool, std::string tool_path, std::chrono::milliseconds timeout)
    : tool_(tool), tool_path_(std::move(tool_path)), timeout_(timeout) {}

Symbolizer::~Symbolizer() { stop(); }

std::size_t Symbolizer::tools_started() const {
  std::lock_guard lock(mu_);
  return started_;
}

std::size_t Symbolizer::tools_running() const {
  std::lock_guard lock(mu_);
  return owner_ == getpid() ? running_.size() : 0;
}

void Symbolizer::stop_idle(std::chrono::steady_clock::time_point now, std::chrono::steady_clock::duration idle) {
  std::lock_guard lock(mu_);
  if (owner_ != getpid()) return;
  for (auto it = running_.begin(); it != running_.end();) {
    if (now - it->second.last_used > idle) {
      end(it->second, true);
      it = running_.erase(it);
    } else {
      ++it;
    }
  }
}

std::vector<std::vector<SourceFrame>> Symbolizer::parse(std::string_view text, std::size_t addresses) const {
  return tool_ == Tool::Addr2line ? parse_addr2line(text, addresses) : parse_llvm_symbolizer(text, addresses);
}

void Symbolizer::end(Running& r, bool reap_it) {
  if (r.fd >= 0) close(r.fd);
  if (reap_it && r.pid > 0) {
    kill(r.pid, SIGKILL);
    reap(r.pid);
  }
  r = Running{};
}

void Symbolizer::stop() {
  std::lock_guard lock(mu_);
  // Tools started by a parent before a fork are not this process's children: only its copies of their
  // connections are closed.
  const bool ours = owner_ == getpid();
  for (auto& [module, r] : running_) end(r, ours);
  running_.clear();
}

bool Symbolizer::start(const std::string& module, Running& r) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) return false;
  std::vector<std::string> argv;
  if (tool_ == Tool::Addr2line) {
    argv = {tool_path_, "-a", "-f", "-C", "-i", "-e", module};
  } else {
    argv = {tool_path_, "--inlining", "--demangle", "--functions=linkage", "--obj=" + module};
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, sv[1], 0);
  posix_spawn_file_actions_adddup2(&actions, sv[1], 1);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  r.pid = spawn(argv, actions);
  posix_spawn_file_actions_destroy(&actions);
  close(sv[1]);
  if (r.pid < 0) {
    close(sv[0]);
    return false;
  }
  r.fd = sv[0];
  fcntl(r.fd, F_SETFL, fcntl(r.fd, F_GETFL) | O_NONBLOCK);
  ++started_;
  return true;
}

bool Symbolizer::exchange(const Running& r, const std::string& request, std::size_t addresses, std::string& reply) const {
  // Written and read together: a batch larger than the socket's buffer would otherwise block both sides.
  std::size_t written = 0;
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd pfd{r.fd, static_cast<short>(POLLIN | (written < request.size() ? POLLOUT : 0)), 0};
    const int n = poll(&pfd, 1, static_cast<int>(std::min<long long>(left.count(), 1 << 30)));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    if ((pfd.revents & POLLOUT) != 0) {
      const ssize_t w = send(r.fd, request.data() + written, request.size() - written, MSG_NOSIGNAL);
      if (w < 0 && errno != EAGAIN && errno != EINTR) return false;
      if (w > 0) written += static_cast<std::size_t>(w);
    }
    if ((pfd.revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
      char buf[65536];
      const ssize_t got = recv(r.fd, buf, sizeof buf, 0);
      if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) return false;  // the tool exited
      if (got > 0) {
        reply.append(buf, static_cast<std::size_t>(got));
        if (written == request.size() && answer_complete(tool_, reply, addresses)) return true;
      }
    }
  }
}

std::vector<std::vector<SourceFrame>> Symbolizer::symbolize(const std::string& module,
                                                            const std::vector<std::uint64_t>& offsets) {
  std::vector<std::vector<SourceFrame>> unknown(offsets.size());
  if (tool_ == Tool::None || offsets.empty()) return unknown;
  std::lock_guard lock(mu_);
  if (owner_ != getpid()) {  // first use, or the first in a forked child
    for (auto& [m, r] : running_) end(r, false);
    running_.clear();
    owner_ = getpid();
  }
  if (failed_.count(module) != 0) return unknown;
  if (running_.count(module) == 0 && running_.size() >= kMaxTools) {
    auto oldest = std::min_element(running_.begin(), running_.end(), [](const auto& a, const auto& b) {
      return a.second.last_used < b.second.last_used;
    });
    end(oldest->second, true);
    running_.erase(oldest);
  }
  Running& r = running_[module];
  std::string request, reply;
  char hex[32];
  for (auto off : offsets) {
    std::snprintf(hex, sizeof hex, "0x%llx\n", static_cast<unsigned long long>(off));
    request += hex;
  }
  if (tool_ == Tool::Addr2line) request.append(kEndAddress).push_back('\n');
  if ((r.pid < 0 && !start(module, r)) || !exchange(r, request, offsets.size(), reply)) {
    end(r, true);
    running_.erase(module);
    failed_.insert(module);
    return unknown;
  }
  r.last_used = std::chrono::steady_clock::now();
  return parse(reply, offsets.size());
}

}  // namespace synclint::probe::inject
