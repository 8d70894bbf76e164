# The C++ tests parse LibTorch's headers with, by default, one precompiled <torch/torch.h> (built with
# clang-19, with the templates its headers use already instantiated: a LibTorch unit is analysed in a fifth
# of the time it takes without it). Sets SYNCLINT_TORCH_TEST_FLAGS (SYNCLINT_TORCH_FLAGS and
# -include-pch) and SYNCLINT_TORCH_PCH_FILE (the file, or empty); the target synclint_torch_pch builds it.
option(SYNCLINT_TORCH_PCH "Precompile <torch/torch.h> once for the C++ tests" ON)
set(SYNCLINT_TORCH_TEST_FLAGS ${SYNCLINT_TORCH_FLAGS})
set(SYNCLINT_TORCH_PCH_FILE "")
if(TARGET synclint_cxx AND SYNCLINT_TORCH_FLAGS AND SYNCLINT_TORCH_PCH AND SYNCLINT_CLANG19)
  set(_pch_dir "${PROJECT_BINARY_DIR}/generated/libtorch")
  # Rewritten only when it changes: a newer header would make Clang refuse the precompiled one.
  file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/torch_pch.h.in" "#include <torch/torch.h>\n")
  configure_file("${CMAKE_CURRENT_BINARY_DIR}/torch_pch.h.in" "${_pch_dir}/torch_pch.h" COPYONLY)
  add_custom_command(OUTPUT "${_pch_dir}/torch.pch"
    COMMAND "${SYNCLINT_CLANG19}" -x c++-header ${SYNCLINT_TORCH_FLAGS} -fpch-instantiate-templates
            "-resource-dir=${SYNCLINT_CLANG_RESOURCE_DIR}" "${_pch_dir}/torch_pch.h" -o "${_pch_dir}/torch.pch"
    DEPENDS "${SYNCLINT_TORCH_API_INCLUDE}/torch/torch.h" "${_pch_dir}/torch_pch.h"
    COMMENT "Precompiling <torch/torch.h> for the C++ tests" VERBATIM)
  add_custom_target(synclint_torch_pch ALL DEPENDS "${_pch_dir}/torch.pch")
  set(SYNCLINT_TORCH_PCH_FILE "${_pch_dir}/torch.pch")
  list(APPEND SYNCLINT_TORCH_TEST_FLAGS -include-pch "${SYNCLINT_TORCH_PCH_FILE}")
endif()
