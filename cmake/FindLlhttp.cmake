# FindLlhttp.cmake — llhttp, the HTTP/1.1 parser, as the target Llhttp::llhttp.
#
#   find_package(Llhttp REQUIRED)
#   target_link_libraries(<t> PRIVATE Llhttp::llhttp)
#
# Looks, in order, for
#  1. a system libllhttp (pkg-config "libllhttp", else llhttp.h + libllhttp.so in the usual
#     places): linked as is;
#  2. the generated C sources Debian's `node-llhttp` package installs
#     (/usr/share/llhttp/{llhttp,api,http}.c and /usr/share/include/llhttp/llhttp.h): compiled
#     here into a small static library. It is third-party code, so its warnings are silenced;
#     it is built position-independent because it ends up inside plugin MODULEs.
# No copy of llhttp lives in this repository.
#
# Cache variables to point elsewhere:
#   LLHTTP_SOURCE_DIR          directory holding llhttp.c, api.c, http.c  (/usr/share/llhttp)
#   LLHTTP_SOURCE_INCLUDE_DIR  directory holding llhttp.h    (/usr/share/include/llhttp)
# Result variables: Llhttp_FOUND, Llhttp_FROM_SOURCES (TRUE when compiled from sources).

if(TARGET Llhttp::llhttp)
  set(Llhttp_FOUND TRUE)
  return()
endif()

set(LLHTTP_SOURCE_DIR "/usr/share/llhttp" CACHE PATH "llhttp generated C sources (node-llhttp)")
set(LLHTTP_SOURCE_INCLUDE_DIR "/usr/share/include/llhttp" CACHE PATH "llhttp.h for those sources")

# --- 1. a system library ------------------------------------------------------------------------
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(PC_LLHTTP QUIET libllhttp)
endif()
find_path(LLHTTP_SYSTEM_INCLUDE_DIR NAMES llhttp.h
          HINTS ${PC_LLHTTP_INCLUDE_DIRS}
          NO_CMAKE_PATH NO_CMAKE_ENVIRONMENT_PATH)
find_library(LLHTTP_SYSTEM_LIBRARY NAMES llhttp HINTS ${PC_LLHTTP_LIBRARY_DIRS})
mark_as_advanced(LLHTTP_SYSTEM_INCLUDE_DIR LLHTTP_SYSTEM_LIBRARY)

set(Llhttp_FROM_SOURCES FALSE)
if(LLHTTP_SYSTEM_INCLUDE_DIR AND LLHTTP_SYSTEM_LIBRARY)
  add_library(Llhttp::llhttp UNKNOWN IMPORTED)
  set_target_properties(Llhttp::llhttp PROPERTIES
    IMPORTED_LOCATION "${LLHTTP_SYSTEM_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${LLHTTP_SYSTEM_INCLUDE_DIR}")
  set(_llhttp_found_as "${LLHTTP_SYSTEM_LIBRARY}")
# --- 2. the node-llhttp sources -------------------------------------------------------------------
elseif(EXISTS "${LLHTTP_SOURCE_DIR}/llhttp.c" AND EXISTS "${LLHTTP_SOURCE_DIR}/api.c"
       AND EXISTS "${LLHTTP_SOURCE_DIR}/http.c" AND EXISTS "${LLHTTP_SOURCE_INCLUDE_DIR}/llhttp.h")
  if(NOT TARGET vc_llhttp)
    add_library(vc_llhttp STATIC
      "${LLHTTP_SOURCE_DIR}/llhttp.c"
      "${LLHTTP_SOURCE_DIR}/api.c"
      "${LLHTTP_SOURCE_DIR}/http.c")
    set_target_properties(vc_llhttp PROPERTIES
      POSITION_INDEPENDENT_CODE ON
      C_VISIBILITY_PRESET hidden
      C_STANDARD 11
      # Its files each define the same static helpers: they cannot share a unity batch.
      UNITY_BUILD OFF)
    target_include_directories(vc_llhttp SYSTEM PUBLIC "${LLHTTP_SOURCE_INCLUDE_DIR}")
    # Third-party generated code: its warnings are not ours to fix.
    target_compile_options(vc_llhttp PRIVATE -w)
  endif()
  add_library(Llhttp::llhttp ALIAS vc_llhttp)
  set(Llhttp_FROM_SOURCES TRUE)
  set(_llhttp_found_as "${LLHTTP_SOURCE_DIR}")
endif()

include(FindPackageHandleStandardArgs)
find_package_handle_standard_args(Llhttp
  REQUIRED_VARS _llhttp_found_as
  REASON_FAILURE_MESSAGE
    "neither a system libllhttp nor the llhttp sources were found. Install Debian's node-llhttp package (apt-get install node-llhttp), which puts them in /usr/share/llhttp, or set LLHTTP_SOURCE_DIR and LLHTTP_SOURCE_INCLUDE_DIR")
