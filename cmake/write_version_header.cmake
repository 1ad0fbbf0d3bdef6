# Writes OUTPUT, the generated header nqc/version.hpp: NQC_VERSION (the project's version),
# NQC_GIT_REVISION (the 12-digit commit of SOURCE_DIR's checkout, "-dirty" appended when a
# tracked file differs from it; "unknown" outside a git checkout, e.g. a source tarball) and
# NQC_GIT_DIRTY (1 or 0). Run at every build by the target nqc_version_stamp
# (src/CMakeLists.txt); OUTPUT is rewritten only when its text changes, so a build without a
# new commit or edit recompiles nothing.
# Usage: cmake -DSOURCE_DIR=DIR -DOUTPUT=FILE -DVERSION=X.Y.Z [-DGIT=git] -P write_version_header.cmake
cmake_minimum_required(VERSION 3.22)
foreach(var SOURCE_DIR OUTPUT VERSION)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "write_version_header.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT GIT)
  set(GIT git)
endif()

set(revision "unknown")
set(dirty 0)
# Only SOURCE_DIR's own checkout counts: a tarball unpacked inside another repository has none.
execute_process(COMMAND ${GIT} -C ${SOURCE_DIR} rev-parse --show-toplevel
  OUTPUT_VARIABLE toplevel RESULT_VARIABLE status OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(status EQUAL 0)
  file(REAL_PATH "${toplevel}" toplevel)
  file(REAL_PATH "${SOURCE_DIR}" source)
endif()
if(status EQUAL 0 AND toplevel STREQUAL source)
  execute_process(COMMAND ${GIT} -C ${SOURCE_DIR} rev-parse --short=12 HEAD
    OUTPUT_VARIABLE commit RESULT_VARIABLE status OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(status EQUAL 0 AND commit)
    set(revision "${commit}")
    # Exit 1: the tracked files (staged or not) differ from HEAD; untracked files do not count.
    execute_process(COMMAND ${GIT} -C ${SOURCE_DIR} diff --quiet HEAD --
      RESULT_VARIABLE status OUTPUT_QUIET ERROR_QUIET)
    if(status EQUAL 1)
      set(dirty 1)
      string(APPEND revision "-dirty")
    endif()
  endif()
endif()

file(CONFIGURE OUTPUT "${OUTPUT}" CONTENT [[
// Generated at every build by cmake/write_version_header.cmake: do not edit.
#pragma once
#define NQC_VERSION "@VERSION@"
#define NQC_GIT_REVISION "@revision@"
#define NQC_GIT_DIRTY @dirty@
]] @ONLY)
