# CUPTI (cupti.h and libcupti), which the runtime probe's injection library needs, looked for under
# SYNCLINT_CUDA_ROOT only: a toolkit elsewhere on the machine never changes what a build contains.
# Sets SYNCLINT_HAVE_CUPTI; the cached SYNCLINT_CUPTI_INCLUDE_DIR and SYNCLINT_CUPTI_LIBRARY are what
# runtime_probe/inject builds against. Without CUPTI everything else is still built: the analysis, the
# CLI with `probe report/merge/analyze`, and the tests that need no CUPTI headers.

# Another root than the one searched before: search again (values given with -D on the first run stay).
if(DEFINED _SYNCLINT_CUPTI_SEARCHED_ROOT AND NOT _SYNCLINT_CUPTI_SEARCHED_ROOT STREQUAL SYNCLINT_CUDA_ROOT)
  unset(SYNCLINT_CUPTI_INCLUDE_DIR CACHE)
  unset(SYNCLINT_CUPTI_LIBRARY CACHE)
  unset(SYNCLINT_NVCC CACHE)  # bench/: the same toolkit's nvcc
endif()
set(_SYNCLINT_CUPTI_SEARCHED_ROOT "${SYNCLINT_CUDA_ROOT}" CACHE INTERNAL "SYNCLINT_CUDA_ROOT of the last CUPTI search")

# The toolkit's layouts: include/ and lib64/, targets/<arch>-linux/, the older extras/CUPTI/, and a
# distribution's (SYNCLINT_CUDA_ROOT=/usr: include/ and lib/<multiarch>/).
find_path(SYNCLINT_CUPTI_INCLUDE_DIR cupti.h
  PATHS "${SYNCLINT_CUDA_ROOT}/include" "${SYNCLINT_CUDA_ROOT}/targets/${CMAKE_SYSTEM_PROCESSOR}-linux/include"
        "${SYNCLINT_CUDA_ROOT}/targets/sbsa-linux/include" "${SYNCLINT_CUDA_ROOT}/extras/CUPTI/include"
  NO_DEFAULT_PATH)
find_library(SYNCLINT_CUPTI_LIBRARY NAMES cupti
  PATHS "${SYNCLINT_CUDA_ROOT}/lib64" "${SYNCLINT_CUDA_ROOT}/targets/${CMAKE_SYSTEM_PROCESSOR}-linux/lib"
        "${SYNCLINT_CUDA_ROOT}/targets/sbsa-linux/lib" "${SYNCLINT_CUDA_ROOT}/extras/CUPTI/lib64"
        "${SYNCLINT_CUDA_ROOT}/lib/${CMAKE_LIBRARY_ARCHITECTURE}" "${SYNCLINT_CUDA_ROOT}/lib"
  NO_DEFAULT_PATH)

if(SYNCLINT_CUPTI_INCLUDE_DIR AND SYNCLINT_CUPTI_LIBRARY)
  set(SYNCLINT_HAVE_CUPTI ON)
  message(STATUS "synclint: CUPTI: ${SYNCLINT_CUPTI_LIBRARY}")
else()
  set(SYNCLINT_HAVE_CUPTI OFF)
  message(STATUS "synclint: CUPTI not found under ${SYNCLINT_CUDA_ROOT}: the runtime probe library is not built "
                 "(install the CUDA toolkit or set SYNCLINT_CUDA_ROOT)")
endif()
