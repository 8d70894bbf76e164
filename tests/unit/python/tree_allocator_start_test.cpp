// The tree allocator is in place before main, so no tree-sitter block can come from another allocator
// than the one that frees it. A test binary of its own: nothing else in it installs the allocator first.
#include <cstddef>
#include <cstdlib>

#include <gtest/gtest.h>

#include "python/syntax.h"

extern "C" void* (*ts_current_malloc)(std::size_t);

namespace synclint::python {
namespace {

TEST(TreeAllocator, IsInstalledWhileTheProgramStarts) {
  void* (*const at_start)(std::size_t) = ts_current_malloc;
  use_tree_allocator();
  EXPECT_EQ(ts_current_malloc, at_start);
  EXPECT_NE(ts_current_malloc, static_cast<void* (*)(std::size_t)>(&std::malloc));
}

}  // namespace
}  // namespace synclint::python
