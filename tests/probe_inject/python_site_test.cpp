// Loads the helper library into python3 with ctypes (which releases the GIL around the call, as .item()
// does) and checks the sites the probe's Python capture reports.
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "symbolizer.h"

namespace synclint::probe::inject {
namespace {

std::string run_script(const char* skip_env) {
  if (skip_env != nullptr)
    setenv("SYNCLINT_PROBE_SKIP", skip_env, 1);
  else
    unsetenv("SYNCLINT_PROBE_SKIP");
  std::string python = find_on_path("python3");
  EXPECT_FALSE(python.empty()) << "python3 is needed for this test";
  std::string out;
  const std::string data = PROBE_TEST_DATA;
  EXPECT_TRUE(run_capture({python, data + "/pysite/user_script.py", PROBE_PYTHON_HELPER, data + "/pysite/site-packages"}, out))
      << out;
  unsetenv("SYNCLINT_PROBE_SKIP");
  return out;
}

std::string line_of(const std::string& out, char tag) {
  std::istringstream in(out);
  std::string l;
  while (std::getline(in, l))
    if (!l.empty() && l[0] == tag) return l;
  return {};
}

TEST(PythonSites, UserFramesPastLibraryFrames) {
  std::string out = run_script(nullptr);
  const std::string script = std::string(PROBE_TEST_DATA) + "/pysite/user_script.py";
  // "A <site> <path>:<line>:<function>:python"
  EXPECT_NE(line_of(out, 'A').find(script + ":13:Trainer.step:python"), std::string::npos) << out;
  // A comprehension: its own frame before Python 3.12 ("loop.<locals>.<listcomp>"), inlined after.
  EXPECT_NE(line_of(out, 'B').find(script + ":17:loop"), std::string::npos) << out;
  // Another Python thread: its own stack.
  EXPECT_NE(line_of(out, 'C').find(script + ":25:<lambda>:python"), std::string::npos) << out;
}

TEST(PythonSites, CallsThatBlockAreTimedOnPython312AndLater) {
  std::string out = run_script(nullptr);
  const std::string v = line_of(out, 'V');
  ASSERT_FALSE(v.empty()) << out;
  int major = 0, minor = 0;
  ASSERT_EQ(std::sscanf(v.c_str(), "V %d %d", &major, &minor), 2) << v;
  std::istringstream in(out);
  std::string l;
  int timed = 0;
  const std::string script = std::string(PROBE_TEST_DATA) + "/pysite/user_script.py";
  while (std::getline(in, l)) {
    if (l.rfind("T ", 0) != 0) continue;
    ++timed;
    EXPECT_NE(l.find(script + ":35:<module> "), std::string::npos) << l;
    EXPECT_GT(std::stoull(l.substr(l.rfind(' ') + 1)), 0u) << l;
  }
  // Before 3.12 there is no sys.monitoring: nothing is timed and the program runs on unchanged. From
  // 3.12 on, the two calls after the first (which made the probe watch the instruction) are timed, and
  // no other call (fakelib.item() from Trainer.step, loop and the thread, made before timing started).
  EXPECT_EQ(timed, major > 3 || (major == 3 && minor >= 12) ? 2 : 0) << out;
}

TEST(PythonSites, SkipListFromTheEnvironment) {
  // Replacing the defaults: the fake library is not skipped any more, the script is.
  std::string out = run_script("user_script.py");
  EXPECT_NE(line_of(out, 'A').find("fakelib/__init__.py:14:item:python"), std::string::npos) << out;
}

}  // namespace
}  // namespace synclint::probe::inject
