#include "output.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <system_error>

namespace synclint::probe::inject {

std::int32_t rank_from_env() {
  for (const char* name : {"RANK", "LOCAL_RANK", "SLURM_PROCID"}) {
    const char* v = std::getenv(name);
    if (v == nullptr || *v == '\0') continue;
    char* end = nullptr;
    long r = std::strtol(v, &end, 10);
    if (end != nullptr && *end == '\0' && r >= 0 && r < (1L << 30)) return static_cast<std::int32_t>(r);
  }
  return -1;
}

std::filesystem::path output_file(const std::string& dir, std::string_view kind, std::int64_t pid, std::int32_t rank) {
  std::filesystem::path d = !dir.empty() ? dir : ".";
  std::string name(kind);
  if (rank >= 0) name += "-rank" + std::to_string(rank);
  name += "-" + std::to_string(pid) + ".json";
  return d / name;
}

RunInfo collect_run_info() {
  RunInfo run;
  run.pid = getpid();
  run.rank = rank_from_env();
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string arg;
  while (std::getline(in, arg, '\0')) run.command.push_back(arg);
  char buf[4096];
  if (getcwd(buf, sizeof buf) != nullptr) run.cwd = buf;
  if (gethostname(buf, sizeof buf) == 0) {
    buf[sizeof buf - 1] = '\0';
    run.hostname = buf;
  }
  return run;
}

bool write_file_atomic(const std::filesystem::path& file, std::string_view text, std::string& error) {
  std::error_code ec;
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), ec);
  auto tmp = file;
  tmp += ".tmp";
  // A file past the process's size limit (ulimit -f) would raise SIGXFSZ, whose default action ends the
  // program: the probe writes nothing rather than change how the program ends.
  rlimit limit{};
  if (getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY && text.size() > limit.rlim_cur) {
    error = "cannot write " + file.string() + ": " + std::to_string(text.size()) +
            " bytes are more than the file size limit (ulimit -f) of " + std::to_string(limit.rlim_cur);
    return false;
  }
  bool written = false;
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (out) {
      out.write(text.data(), static_cast<std::streamsize>(text.size()));
      written = static_cast<bool>(out.flush());
    }
  }
  if (!written) {
    error = "cannot write " + tmp.string() + ": " + std::strerror(errno);
    std::filesystem::remove(tmp, ec);
    return false;
  }
  std::filesystem::rename(tmp, file, ec);
  if (ec) {
    error = "cannot rename " + tmp.string() + " to " + file.string() + ": " + ec.message();
    std::filesystem::remove(tmp, ec);
    return false;
  }
  return true;
}

}  // namespace synclint::probe::inject
