// Runs a program with a time limit for the probe fault-injection tests: its exit status or the signal that
// ended it, its stdout and stderr, and whether it had to be killed for running past the limit (a hang).
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace synclint::probe::inject {

struct Ended {
  int status = -1;  // the exit status, or -1 when a signal ended it
  int signal = 0;   // the signal that ended it, or 0
  bool hung = false;  // still running at the limit: killed with its process group
  std::string out, err;
  bool operator==(const Ended& o) const { return status == o.status && signal == o.signal; }
};

// Runs argv in a process group of its own (a signal it sends to its group reaches no test), its stdout and
// stderr through pipes (no file size limit applies to them), for at most `limit`.
Ended run_bounded(const std::vector<std::string>& argv, std::chrono::seconds limit = std::chrono::seconds(60));

// "exit 3", "signal 15", "hung".
std::string describe(const Ended& e);

}  // namespace synclint::probe::inject
