# The per-TU analysis of the C++ front-end (device inference, hot context, the SYNC rules), included by
# lib/cxx/CMakeLists.txt after Clang was found. Defines the static library synclint_cxx_analysis.
set(_cxx "${CMAKE_CURRENT_LIST_DIR}")
file(GLOB _synclint_cxx_rule_sources CONFIGURE_DEPENDS "${_cxx}/rules/*.cpp")
add_library(synclint_cxx_analysis STATIC
            "${_cxx}/analysis.cpp" "${_cxx}/ast_util.cpp" "${_cxx}/device.cpp" "${_cxx}/hot_context.cpp" "${_cxx}/parameter_count.cpp"
            "${_cxx}/tu_index.cpp" ${_synclint_cxx_rule_sources})
target_include_directories(synclint_cxx_analysis PUBLIC "${PROJECT_SOURCE_DIR}/lib")
target_include_directories(synclint_cxx_analysis SYSTEM PUBLIC ${CLANG_INCLUDE_DIRS} ${LLVM_INCLUDE_DIRS})
target_link_libraries(synclint_cxx_analysis PUBLIC synclint_core clang-cpp LLVM)
# GCC warns about code inlined from LLVM's headers.
target_compile_options(synclint_cxx_analysis PRIVATE $<$<CXX_COMPILER_ID:GNU>:-Wno-nonnull>)
