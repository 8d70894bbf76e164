// Programs that can never place data on a GPU. A finding whose value's device is unknown (Low confidence,
// a note) is noise in a training script that runs on the CPU only: nothing in it or in what it imports
// ever names a GPU, moves data to a device it is given, or hands placement to a training framework.
#pragma once

#include <string_view>
#include <vector>

#include "python/project.h"

namespace synclint::python {

// Whether `text` names anything that can place data on an accelerator: the words cuda, gpu, mps, xla,
// tpu, hpu, npu, device (except a literal CPU device: `device="cpu"`, `torch.device("cpu")`), a `.to(`
// that is not a dtype or "cpu" conversion, pin_memory, and the frameworks and launchers that place data
// themselves (accelerate, distributed, DataParallel, Lightning, DeepSpeed, Trainer/Runner classes...).
// Strings count too (a device may be spelled in one), but not comments and docstrings.
bool names_a_device(const SyntaxTree& tree, std::string_view text);

// Whether the module runs code when it is run or imported: a top-level loop, a top-level call statement,
// or an `if __name__ == "__main__":` block. A module of definitions only is a library: its callers, which
// may be outside the project, decide the devices of its functions' arguments.
bool runs_code(const FileModel& file);

// For each file with `wanted` set: whether its program (the file, the files of the project that import it,
// directly or not, and everything all of those import) runs code and names no device in any file.
// Computed from the project's resolved imports; a file's program does not depend on which other files
// not connected to it by imports are in the run.
std::vector<char> cpu_only_programs(const Project& p, const std::vector<char>& wanted);

}  // namespace synclint::python
