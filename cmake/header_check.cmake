# Target nqc_header_check: every header under src/ compiled in a translation unit of its own
# (a generated .cpp that includes just that header), so a header that forgets an include of
# its own fails the build. Part of `all` while NQC_HEADER_CHECK is ON (default: with the
# tests); compiled without optimisation, and again only for the headers a change touches.
# Included from src/CMakeLists.txt after the libraries, whose include paths it takes.
file(GLOB_RECURSE nqc_headers CONFIGURE_DEPENDS RELATIVE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/src/*.hpp)
set(nqc_header_units "")
foreach(header IN LISTS nqc_headers)
  set(unit ${CMAKE_CURRENT_BINARY_DIR}/header_check/${header}.cpp)
  file(CONFIGURE OUTPUT ${unit} CONTENT "#include \"${header}\"\n")
  list(APPEND nqc_header_units ${unit})
endforeach()
add_library(nqc_header_check OBJECT ${nqc_header_units})
target_link_libraries(nqc_header_check PRIVATE nqc_runner nqc_experiment nqc_formats nqc_core CLI11::CLI11 spdlog::spdlog
  nqc_version nqc_warnings)
target_compile_options(nqc_header_check PRIVATE -O0 -g0)
