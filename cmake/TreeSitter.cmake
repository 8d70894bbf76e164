# The tree-sitter runtime and the Python grammar, compiled from the npm-pinned sources.
set(_ts_root "${SYNCLINT_NODE_MODULES}/tree-sitter/vendor/tree-sitter/lib")
set(_ts_python "${SYNCLINT_NODE_MODULES}/tree-sitter-python/src")
foreach(_f "${_ts_root}/src/lib.c" "${_ts_python}/parser.c" "${_ts_python}/scanner.c")
  if(NOT EXISTS "${_f}")
    message(FATAL_ERROR "synclint: ${_f} is missing. Run scripts/setup (npm ci --ignore-scripts) first, "
                        "or point SYNCLINT_NODE_MODULES at the folder holding tree-sitter and tree-sitter-python.")
  endif()
endforeach()

add_library(synclint_tree_sitter STATIC "${_ts_root}/src/lib.c")
target_include_directories(synclint_tree_sitter SYSTEM PUBLIC "${_ts_root}/include" PRIVATE "${_ts_root}/src")
target_compile_definitions(synclint_tree_sitter PRIVATE _POSIX_C_SOURCE=200112L _DEFAULT_SOURCE)
set_target_properties(synclint_tree_sitter PROPERTIES C_STANDARD 11)
# The grammar declares its scanner functions without a prototype (`void *f()`) and the runtime calls them
# through prototyped pointers: the same ABI, but clang's -fsanitize=function (part of undefined) reports
# each call. Not checked in the runtime's own calls (SYNCLINT_SANITIZE, SYNCLINT_FUZZ).
target_compile_options(synclint_tree_sitter PRIVATE $<$<C_COMPILER_ID:Clang>:-fno-sanitize=function>)

# The scanner's serialize and deserialize steps are wrapped by lib/python/scanner_bound.c (a bound on what it
# writes; its initial state written as nothing).
add_library(synclint_tree_sitter_python STATIC "${_ts_python}/parser.c" "${_ts_python}/scanner.c"
                                               "${PROJECT_SOURCE_DIR}/lib/python/scanner_bound.c")
set_property(SOURCE "${_ts_python}/scanner.c" APPEND PROPERTY COMPILE_DEFINITIONS
             tree_sitter_python_external_scanner_serialize=synclint_python_scanner_serialize_unbounded
             tree_sitter_python_external_scanner_deserialize=synclint_python_scanner_deserialize_full)
target_include_directories(synclint_tree_sitter_python PRIVATE "${_ts_python}")
target_link_libraries(synclint_tree_sitter_python PUBLIC synclint_tree_sitter)
set_target_properties(synclint_tree_sitter_python PROPERTIES C_STANDARD 11)

# Under libFuzzer, the runtime and the generated parse tables keep their edge coverage but not the tracing
# of each comparison: their table lookups would take most of a Python input's time, and what the tracing
# finds there (token values) the dictionary already gives. The hand-written scanner keeps all of it.
if(SYNCLINT_FUZZ)
  target_compile_options(synclint_tree_sitter PRIVATE -fno-sanitize-coverage=trace-cmp)
  set_property(SOURCE "${_ts_python}/parser.c" APPEND PROPERTY COMPILE_OPTIONS -fno-sanitize-coverage=trace-cmp)
endif()
