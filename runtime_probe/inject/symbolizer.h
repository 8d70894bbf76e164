// Native return addresses -> file:line + function, from the DWARF of each module, by the binutils
// addr2line (or llvm-symbolizer): one tool process per module, started at the module's first batch of
// addresses and kept running while batches come (ended after a minute without one, and at the probe's
// end), each batch written to its stdin and read back from its stdout (both tools answer each address read
// from stdin at once). A tool loads the module's debug information once: 0.1 s
// for the C++ benchmark's binary on the H200, which each batch paid again when the tool was spawned for it
// (two or three batches a process, 0.3 s of CPU beside the program's steps). Without either tool, dladdr's symbol
// name is used (no line).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace synclint::probe::inject {

struct SourceFrame {
  std::string function;  // demangled; "" when unknown
  std::string file;      // "" when unknown
  std::uint32_t line = 0;
};

// One entry per address, each the inline chain innermost first. Parses `addr2line -a -f -C -i` output.
std::vector<std::vector<SourceFrame>> parse_addr2line(std::string_view text, std::size_t addresses);
// Parses `llvm-symbolizer` output (function, file:line:column lines, a blank line after each address).
std::vector<std::vector<SourceFrame>> parse_llvm_symbolizer(std::string_view text, std::size_t addresses);

class Symbolizer {
 public:
  enum class Tool { None, Addr2line, LlvmSymbolizer };
  static constexpr std::chrono::milliseconds kTimeout{60'000};
  // Looks for the tools on PATH; `want` (SYNCLINT_PROBE_SYMBOLIZER: addr2line, llvm-symbolizer or none)
  // forces one.
  explicit Symbolizer(std::string_view want = {});
  // A given tool (the tests: a stand-in that dies or hangs), and how long a batch may take.
  Symbolizer(Tool tool, std::string tool_path, std::chrono::milliseconds timeout = kTimeout);
  ~Symbolizer();  // stop()
  Symbolizer(const Symbolizer&) = delete;
  Symbolizer& operator=(const Symbolizer&) = delete;

  Tool tool() const { return tool_; }
  const std::string& tool_path() const { return tool_path_; }
  // Addresses are file-relative (the module's load bias subtracted). Empty inner vectors when unknown:
  // also for every address of a module whose tool exited, or took longer than the timeout (then killed),
  // and which is not tried again.
  std::vector<std::vector<SourceFrame>> symbolize(const std::string& module, const std::vector<std::uint64_t>& offsets);
  // Ends the tools started by this process: closes their input, kills and reaps them. A later symbolize
  // starts a module's tool again. In a forked child it only closes the inherited connections.
  void stop();
  // Ends the tools that answered no batch since `idle` before `now` (a tool holds its module's debug
  // information in memory: 63 MB for a 61 MB binary with debug information; new sites mostly come in a
  // program's first steps). A later batch starts the module's tool again.
  static constexpr std::chrono::seconds kIdle{60};
  // At most this many tools run at once: a module's first batch beyond it ends the least recently used.
  static constexpr std::size_t kMaxTools = 4;
  void stop_idle(std::chrono::steady_clock::time_point now, std::chrono::steady_clock::duration idle = kIdle);
  // Tool processes started so far (one per module while none fails and none is stopped), and running now.
  std::size_t tools_started() const;
  std::size_t tools_running() const;

 private:
  struct Running {
    pid_t pid = -1;
    int fd = -1;  // both the tool's stdin and stdout (a socket: a dead tool cannot raise SIGPIPE here)
    std::chrono::steady_clock::time_point last_used;
  };
  // Starts the module's tool into `r`; false if it cannot be spawned.
  bool start(const std::string& module, Running& r);
  // Writes `request` to the tool and reads its answer to `addresses` addresses into `reply`; false if the
  // tool exited or the timeout passed first.
  bool exchange(const Running& r, const std::string& request, std::size_t addresses, std::string& reply) const;
  void end(Running& r, bool reap);
  std::vector<std::vector<SourceFrame>> parse(std::string_view text, std::size_t addresses) const;

  Tool tool_ = Tool::None;
  std::string tool_path_;
  std::chrono::milliseconds timeout_ = kTimeout;
  mutable std::mutex mu_;
  std::map<std::string, Running> running_;  // module -> its tool
  std::set<std::string> failed_;            // modules whose tool exited or hung: not symbolized again
  std::size_t started_ = 0;
  pid_t owner_ = 0;  // the process that started the tools in running_
};

// Runs argv[0] (a path) with argv, stdin from /dev/null, and returns its standard output. Uses
// posix_spawn; strips CUDA_INJECTION64_PATH and LD_PRELOAD from the child's environment.
bool run_capture(const std::vector<std::string>& argv, std::string& out);

// Whether `reply` holds the whole answer to a batch of `addresses` addresses: addr2line's (`-a`: each answer
// starts with the address) ends with the two lines after the echo of kEndAddress, written after the batch;
// llvm-symbolizer's with the batch's last blank line.
inline constexpr std::string_view kEndAddress = "0xffffffffffffffff";
bool answer_complete(Symbolizer::Tool tool, std::string_view reply, std::size_t addresses);

std::string find_on_path(std::string_view name);

}  // namespace synclint::probe::inject
