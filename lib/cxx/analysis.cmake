add_library(synclint_cxx_analysis STATIC analysis.cpp)
target_include_directories(synclint_cxx_analysis PUBLIC "${PROJECT_SOURCE_DIR}/lib")
target_include_directories(synclint_cxx_analysis SYSTEM PRIVATE ${LLVM_INCLUDE_DIRS} ${CLANG_INCLUDE_DIRS})
target_link_libraries(synclint_cxx_analysis PUBLIC synclint_core PRIVATE clang-cpp LLVM)
