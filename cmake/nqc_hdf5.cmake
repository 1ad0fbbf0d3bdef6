# Target nqc_hdf5: the HDF5 C library for nqc_formats (docs/cli.md, "Start-up").
#
# Debian's shared libhdf5 needs libcurl and libcrypto for its read-only S3 driver (ROS3), which
# nqc never uses, and with them GnuTLS, Kerberos, LDAP, SSH and 25 more: 33 shared libraries
# loaded and relocated at every start of every program linked with it, 4 to 7 ms, more than
# `nqc complete` spends solving a board of n <= 17. Linked statically (NQC_STATIC_HDF5, the
# default), only the objects of libhdf5.a that nqc calls come in, and the S3 driver is not among
# them: no libcurl, no libcrypto. Szip (libaec) and zlib, which HDF5's filters call, are linked
# statically too when their static libraries are installed (Debian: libaec-dev, zlib1g-dev).
# NQC_STATIC_HDF5=OFF: HDF5 as FindHDF5 gives it (shared, with libcurl); test
# cli_startup_libraries then fails, as it should.
option(NQC_STATIC_HDF5 "Link HDF5, szip and zlib statically (no libcurl, TLS or Kerberos loaded at start-up)" ON)
add_library(nqc_hdf5 INTERFACE)
if(NOT NQC_STATIC_HDF5)
  target_link_libraries(nqc_hdf5 INTERFACE HDF5::HDF5)
  return()
endif()

# libhdf5.a beside the shared library FindHDF5 found (Debian: .../hdf5/serial/libhdf5.a).
find_library(NQC_HDF5_STATIC_LIBRARY NAMES libhdf5.a libhdf5_serial.a HINTS ${HDF5_C_LIBRARY_DIRS} ${HDF5_LIBRARY_DIRS}
  PATH_SUFFIXES hdf5/serial)
if(NOT NQC_HDF5_STATIC_LIBRARY)
  message(FATAL_ERROR "NQC_STATIC_HDF5: no static HDF5 library (libhdf5.a) found (Debian: libhdf5-dev has it); "
                      "configure with -DNQC_STATIC_HDF5=OFF to link the shared one (slower start-up)")
endif()
# The static libraries of HDF5's filters, each where installed (else the shared one).
set(nqc_hdf5_filters "")
foreach(name sz aec z)  # libsz.a (szip's API) calls libaec.a: this order
  find_library(NQC_${name}_STATIC_LIBRARY NAMES lib${name}.a)
  mark_as_advanced(NQC_${name}_STATIC_LIBRARY)
  if(NQC_${name}_STATIC_LIBRARY)
    list(APPEND nqc_hdf5_filters ${NQC_${name}_STATIC_LIBRARY})
  else()
    find_library(NQC_${name}_LIBRARY NAMES ${name})
    mark_as_advanced(NQC_${name}_LIBRARY)
    if(NQC_${name}_LIBRARY)
      list(APPEND nqc_hdf5_filters ${NQC_${name}_LIBRARY})
    endif()
  endif()
endforeach()
find_package(Threads REQUIRED)
target_include_directories(nqc_hdf5 SYSTEM INTERFACE ${HDF5_C_INCLUDE_DIRS} ${HDF5_INCLUDE_DIRS})
target_compile_definitions(nqc_hdf5 INTERFACE ${HDF5_C_DEFINITIONS} ${HDF5_DEFINITIONS})
target_link_libraries(nqc_hdf5 INTERFACE ${NQC_HDF5_STATIC_LIBRARY} ${nqc_hdf5_filters} Threads::Threads ${CMAKE_DL_LIBS} m)
message(STATUS "HDF5 linked statically: ${NQC_HDF5_STATIC_LIBRARY} ${nqc_hdf5_filters}")
