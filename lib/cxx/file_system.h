// The file system a translation unit is parsed on: the real one, seen from the compile command's working
// directory, plus a small virtual folder of empty stand-ins for CUDA headers that Clang's CUDA wrapper
// includes but newer CUDA toolkits no longer ship (texture_fetch_functions.h is gone in CUDA 13). The
// folder is searched last (-idirafter), so a toolkit that has the header wins.
#pragma once

#include <filesystem>

#include <llvm/ADT/IntrusiveRefCntPtr.h>
#include <llvm/Support/VirtualFileSystem.h>

namespace synclint::cxx {

// The virtual folder parse_command() adds for CUDA sources.
inline constexpr const char* kCudaStandInDir = "/synclint-cuda-stand-ins";

llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> unit_file_system(const std::filesystem::path& directory);

}  // namespace synclint::cxx
