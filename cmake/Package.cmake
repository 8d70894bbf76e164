# `cpack -G DEB` in the build folder: synclint_<version>_<arch>.deb (the program and the probe library)
# and, where the LibTorch shim was built, synclint-torch-ops_<version>_<arch>.deb. Dependencies come from
# dpkg-shlibdeps (dpkg-dev) reading the installed files; files are stripped, under /usr.
set(SYNCLINT_PACKAGE_MAINTAINER "synclint maintainers <maintainers@synclint.invalid>" CACHE STRING
    "Maintainer field of the .deb packages (name <email>)")

set(CPACK_PACKAGE_NAME synclint)
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
# Each package's summary is the first line of its description: CPack puts CPACK_PACKAGE_DESCRIPTION_SUMMARY
# before it unless the summary is CPack's default, which this is.
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_NAME} built using CMake")
set(CPACK_PACKAGE_CONTACT "${SYNCLINT_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_GENERATOR DEB)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL synclint)
if(TARGET synclint_torch_ops)
  list(APPEND CPACK_COMPONENTS_ALL torch_ops)
endif()
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)
set(CPACK_DEBIAN_SYNCLINT_PACKAGE_NAME synclint)
# The probe symbolizes the probed program's native frames with addr2line when it is on PATH.
set(CPACK_DEBIAN_SYNCLINT_PACKAGE_RECOMMENDS binutils)
set(CPACK_DEBIAN_SYNCLINT_DESCRIPTION
    "finds and measures hidden host-device synchronizations in PyTorch code
synclint check finds the .item(), float(loss), print(tensor) and blocking copies in the hot code of
PyTorch training scripts that make the Python thread wait for the GPU. synclint probe measures what
each one costs at run time through a CUPTI injection library (needs the NVIDIA driver and CUPTI).")
set(CPACK_DEBIAN_TORCH_OPS_PACKAGE_NAME synclint-torch-ops)
set(CPACK_DEBIAN_TORCH_OPS_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_TORCH_OPS_DESCRIPTION
    "LibTorch read-timing shim for synclint probe
libsynclint_torch_ops.so times the host work of each read operator (.item(), if (t)) in C++ LibTorch
programs for synclint probe --torch-ops. It works with programs built against the same LibTorch.")

include(CPack)
cpack_add_component(synclint DISPLAY_NAME "synclint" REQUIRED)
if(TARGET synclint_torch_ops)
  cpack_add_component(torch_ops DISPLAY_NAME "LibTorch shim" DEPENDS synclint)
endif()
