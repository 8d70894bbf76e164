# Header-only fallbacks for machines where toml++, nlohmann-json and CLI11 are not installed and cannot be
# (GPU machines without a package registry). When find_package fails and SYNCLINT_HEADER_DEPS_DIR names
# a folder holding toml++/, nlohmann/ and CLI/, INTERFACE targets with the packages' own names are made
# from those headers; toml++ is then used header-only (TOML_HEADER_ONLY=1).
# bench/gpu/prepare_carry.sh fills such a folder from this machine's /usr/include.

# synclint_header_dep(<package> <version|""> <target> <subfolder> [compile definitions...])
function(synclint_header_dep package version target subdir)
  find_package(${package} ${version} QUIET)
  if(${package}_FOUND)
    return()
  endif()
  if(NOT SYNCLINT_HEADER_DEPS_DIR)
    find_package(${package} ${version} REQUIRED)  # fails with CMake's own message
  endif()
  get_filename_component(_dir "${SYNCLINT_HEADER_DEPS_DIR}" ABSOLUTE BASE_DIR "${PROJECT_SOURCE_DIR}")
  if(NOT IS_DIRECTORY "${_dir}/${subdir}")
    message(FATAL_ERROR "synclint: ${package} is not installed and ${_dir}/${subdir} does not exist "
                        "(SYNCLINT_HEADER_DEPS_DIR). Run bench/gpu/prepare_carry.sh on a machine that has it.")
  endif()
  add_library(${target} INTERFACE IMPORTED GLOBAL)
  set_target_properties(${target} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_dir}")
  if(ARGN)
    set_target_properties(${target} PROPERTIES INTERFACE_COMPILE_DEFINITIONS "${ARGN}")
  endif()
  message(STATUS "synclint: ${package} from headers in ${_dir}/${subdir}")
endfunction()

