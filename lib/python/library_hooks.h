// Library hooks: methods that a training library's own loop calls on every step, for classes derived from
// the library's hook base (mmengine's Hook, detectron2's HookBase, Lightning's Callback). The library's
// loop is not among the checked files, so these methods are per-step callbacks of the program.
#pragma once

#include <string_view>

#include "python/project.h"

namespace synclint::python {

// The loop that calls function `fn` every step ("mmengine's training loop"), when `fn` is such a hook method
// of a class derived from a library's hook base; empty otherwise.
std::string_view library_hook_loop(const Project& p, int fn);

// The class of the object that the library passes to hook method `fn` as parameter `param` (mmengine's
// `runner`, Lightning's `trainer`) when the library's own sources are among the checked files; -1 otherwise.
int library_hook_owner(const Project& p, int fn, std::string_view param);

}  // namespace synclint::python
