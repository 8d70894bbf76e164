# What `cmake --install` puts under the prefix: the synclint program in bin/ and, where they were built,
# the C++ front-end's module, the probe's injection library and the LibTorch shim in lib/synclint/, where
# the program looks for them (<exe>/../lib/synclint/). Nothing else: no static libraries, headers or tests.
# Components: `synclint` (the program and the probe library) and `torch_ops` (the shim, which needs
# LibTorch: a package of its own, so that synclint's does not depend on LibTorch).
set(SYNCLINT_INSTALL_LIBDIR "lib/synclint")
install(TARGETS synclint RUNTIME DESTINATION bin COMPONENT synclint)
if(TARGET synclint_cxx_frontend)
  install(TARGETS synclint_cxx_frontend LIBRARY DESTINATION "${SYNCLINT_INSTALL_LIBDIR}" COMPONENT synclint)
endif()
if(TARGET synclint_probe)
  install(TARGETS synclint_probe LIBRARY DESTINATION "${SYNCLINT_INSTALL_LIBDIR}" COMPONENT synclint)
endif()
if(TARGET synclint_torch_ops)
  install(TARGETS synclint_torch_ops LIBRARY DESTINATION "${SYNCLINT_INSTALL_LIBDIR}" COMPONENT torch_ops)
endif()

include("${CMAKE_CURRENT_LIST_DIR}/Package.cmake")
