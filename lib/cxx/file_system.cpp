#include "cxx/file_system.h"

#include <llvm/Support/MemoryBuffer.h>

namespace synclint::cxx {

llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> unit_file_system(const std::filesystem::path& directory) {
  llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> real(llvm::vfs::createPhysicalFileSystem().release());
  llvm::IntrusiveRefCntPtr<llvm::vfs::InMemoryFileSystem> stand_ins(new llvm::vfs::InMemoryFileSystem);
  stand_ins->addFile(std::string(kCudaStandInDir) + "/texture_fetch_functions.h", 0,
                     llvm::MemoryBuffer::getMemBuffer("// synclint: CUDA 13 has no texture fetch functions\n"));
  llvm::IntrusiveRefCntPtr<llvm::vfs::OverlayFileSystem> overlay(new llvm::vfs::OverlayFileSystem(real));
  overlay->pushOverlay(stand_ins);
  overlay->setCurrentWorkingDirectory(directory.string());
  return overlay;
}

}  // namespace synclint::cxx
