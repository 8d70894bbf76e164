#include "native_site.h"

#include "deep_frames.h"

#include <dlfcn.h>
#include <execinfo.h>

#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace synclint::probe::inject {
namespace {

// The probe's own code is linked into this test executable (in the real library it is a skipped
// module): skip its files, so the walk goes on to the test's frames.
SiteFilters test_filters(const char* env = nullptr) {
  SiteFilters f = make_site_filters(env);
  f.native_files = SkipList([&] {
    auto subs = f.native_files.substrings();
    subs.push_back("runtime_probe/inject/");
    subs.push_back("deep_frames.cpp");
    return subs;
  }());
  return f;
}

__attribute__((noinline)) std::int32_t capture_here(NativeSites& ns, unsigned& line) {
  line = __LINE__ + 1;
  std::int32_t site = ns.capture();
  asm volatile("" ::: "memory");  // keeps the call from being a tail call
  return site;
}

__attribute__((noinline)) std::int32_t frames_here(NativeSites& ns, unsigned& line, bool libc_first) {
  void* frames[64];
  line = __LINE__ + 1;
  int n = backtrace(frames, 64);
  asm volatile("" ::: "memory");
  if (libc_first) {
    // A return address inside libc, as a CUDA library frame would be: it must be skipped.
    for (int i = n; i > 0; --i) frames[i] = frames[i - 1];
    frames[0] = reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(dlsym(RTLD_DEFAULT, "printf")) + 8);
    ++n;
  }
  std::int32_t site = ns.site_for(frames, n);
  asm volatile("" ::: "memory");
  return site;
}

TEST(NativeSites, WalkStopsAtTheFirstUserFrameAndSymbolizesIt) {
  SiteTable table;
  SiteFilters f = test_filters();
  NativeSites ns(f, table);
  unsigned line = 0;
  std::int32_t site = capture_here(ns, line);
  ASSERT_GE(site, 0);
  EXPECT_EQ(table.snapshot()[site].line, 0u);  // a placeholder until resolved
  ns.resolve();
  Site s = table.snapshot()[site];
  EXPECT_NE(s.path.find("native_site_test.cpp"), std::string::npos) << s.path << ":" << s.line << " " << s.function;
  EXPECT_EQ(s.line, line);
  EXPECT_NE(s.function.find("capture_here"), std::string::npos) << s.function;
  EXPECT_EQ(s.language, "cpp");
  // The same place again: the same site, known at once now.
  unsigned line2 = 0;
  std::int32_t again = capture_here(ns, line2);
  EXPECT_EQ(table.snapshot()[again].line, line);
}

__attribute__((noinline)) std::int32_t deep_from_here(NativeSites& ns, unsigned& line, std::size_t dynamic) {
  line = __LINE__ + 1;
  std::int32_t site = deep_capture(ns, 12, dynamic);
  asm volatile("" ::: "memory");
  return site;
}

__attribute__((noinline)) std::int32_t deep_from_there(NativeSites& ns, unsigned& line) {
  line = __LINE__ + 1;
  std::int32_t site = deep_capture(ns, 12, 0);
  asm volatile("" ::: "memory");
  return site;
}

TEST(NativeSites, LearnedStepsFindTheSameSitesAsTheUnwinder) {
  SiteTable table;
  SiteFilters f = test_filters();
  NativeSites ns(f, table);
  for (int round = 0; round < 20; ++round) {
    unsigned here = 0, there = 0;
    // A frame whose size changes each round (alloca) between the capture and the user's code; and a
    // path of fixed frames, which learned steps walk.
    std::int32_t a = deep_from_here(ns, here, 64 + 16 * static_cast<std::size_t>(round));
    std::int32_t b = deep_from_there(ns, there);
    ns.resolve();
    auto sites = table.snapshot();
    ASSERT_GE(a, 0);
    ASSERT_GE(b, 0);
    EXPECT_EQ(sites[a].line, here) << "round " << round << " " << sites[a].path;
    EXPECT_NE(sites[a].function.find("deep_from_here"), std::string::npos) << sites[a].function;
    EXPECT_EQ(sites[b].line, there) << "round " << round;
    EXPECT_NE(sites[b].function.find("deep_from_there"), std::string::npos) << sites[b].function;
  }
#if defined(__x86_64__)
  EXPECT_GT(ns.fast_walks(), 10u) << "full unwinds: " << ns.full_walks();
#endif
}

TEST(NativeSites, LearnedStepsReachTheEndOfAShortStack) {
  // A thread's stack holds fewer candidate frames than a walk looks for, and nothing is resolved until
  // the end (a run shorter than one window): walks must still follow learned steps to the stack's end.
  SiteTable table;
  SiteFilters f = test_filters();
  NativeSites ns(f, table);
  std::vector<std::int32_t> sites;
  unsigned line = 0;
  std::thread t([&] {
    for (int i = 0; i < 20; ++i) sites.push_back(deep_from_there(ns, line));
  });
  t.join();
#if defined(__x86_64__)
  EXPECT_GE(ns.fast_walks(), 18u) << "full unwinds: " << ns.full_walks() << "; " << ns.fallback_summary();
#endif
  ns.resolve();
  auto table_now = table.snapshot();
  for (auto s : sites) {
    ASSERT_GE(s, 0);
    EXPECT_EQ(table_now[s].line, line);
    EXPECT_NE(table_now[s].function.find("deep_from_there"), std::string::npos) << table_now[s].function;
  }
}

TEST(NativeSites, SkipsLibraryFrames) {
  SiteTable table;
  SiteFilters f = test_filters();
  NativeSites ns(f, table);
  unsigned line = 0;
  std::int32_t site = frames_here(ns, line, true);
  ASSERT_GE(site, 0);
  ns.resolve();
  Site s = table.snapshot()[site];
  EXPECT_NE(s.path.find("native_site_test.cpp"), std::string::npos) << s.path;
  EXPECT_EQ(s.line, line);
}

TEST(NativeSites, NoUserFrameGivesNoSite) {
  SiteTable table;
  SiteFilters f = test_filters();
  NativeSites ns(f, table);
  void* libc_only[1] = {reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(dlsym(RTLD_DEFAULT, "printf")) + 8)};
  EXPECT_EQ(ns.site_for(libc_only, 1), -1);
  EXPECT_EQ(ns.site_for(libc_only, 0), -1);
}

TEST(NativeSites, WithoutSymbolizerTheModuleIsTheSite) {
  SiteTable table;
  SiteFilters f = test_filters();
  NativeSites ns(f, table, "none");
  unsigned line = 0;
  std::int32_t site = frames_here(ns, line, false);
  ASSERT_GE(site, 0);
  ns.resolve();
  Site s = table.snapshot()[site];
  char exe[4096];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  ASSERT_GT(n, 0);
  exe[n] = '\0';
  EXPECT_EQ(s.path, exe);
  EXPECT_EQ(s.line, 0u);
  EXPECT_FALSE(s.function.empty());
}

}  // namespace
}  // namespace synclint::probe::inject
