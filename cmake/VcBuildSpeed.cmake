# VcBuildSpeed.cmake — what makes a build of this tree fast, in one place. Nothing here changes
# what is built, only how long it takes (docs/benchmarks.md, "Build times", has the numbers).
#
#  VC_CCACHE=AUTO|ON|OFF   compile through ccache when it is installed (AUTO, the default). The
#                          cache lives where ccache keeps it, outside the source tree
#                          (~/.cache/ccache unless CCACHE_DIR says otherwise), so a fresh clone in
#                          another folder reuses what an earlier build compiled: paths under the
#                          source root are hashed relative to it (base_dir, no hash_dir).
#  VC_PCH=ON|OFF           precompile the heavy third-party headers once per target instead of
#                          parsing them in every file (nlohmann/json, spdlog with fmt, GoogleTest):
#                          measured on GCC 12, a file that includes json.hpp and spdlog.h spends
#                          about 7 s parsing them before it compiles a line of ours.
#  VC_UNITY_BUILD=ON|OFF   compile each target's C++ files in batches of sixteen, one compiler run a
#                          batch (CMake's unity build): the standard and third-party headers are
#                          read once a batch instead of once a file, which halves the release
#                          build's CPU time. The price is that a file's own includes are checked
#                          only with its batch; OFF builds file by file, as before (the
#                          ThreadSanitizer build does, so a missing include still fails a build).
#                          Generated third-party C (llhttp) is never batched.
#  Release is -O2 -DNDEBUG (CMake's default is -O3, which costs compile time and bought nothing
#  measurable here: the host waits on engines, not on its own code).
#
# vc_apply_build_speed() must be called once, at the end of the top-level CMakeLists.txt, after
# every target exists: it gives each C++ target of this tree its precompiled headers.
include_guard(GLOBAL)

set(VC_CCACHE AUTO CACHE STRING "Compile through ccache: AUTO (when installed), ON or OFF")
set_property(CACHE VC_CCACHE PROPERTY STRINGS AUTO ON OFF)
option(VC_PCH "Precompile the heavy third-party headers (json, spdlog, GoogleTest)" ON)
option(VC_UNITY_BUILD "Compile C++ files in batches (CMake's unity build)" ON)
# Read when each target is created: this file is included before any target exists.
set(CMAKE_UNITY_BUILD ${VC_UNITY_BUILD})
set(VC_UNITY_BATCH_SIZE 16 CACHE STRING "C++ files a unity batch holds at most")
set(CMAKE_UNITY_BUILD_BATCH_SIZE ${VC_UNITY_BATCH_SIZE})

set(CMAKE_C_FLAGS_RELEASE "-O2 -DNDEBUG")
set(CMAKE_CXX_FLAGS_RELEASE "-O2 -DNDEBUG")

if(NOT VC_CCACHE STREQUAL "OFF")
  find_program(VC_CCACHE_PROGRAM ccache)
  if(VC_CCACHE_PROGRAM)
    # pch_defines,time_macros: what ccache needs to cache files compiled with a precompiled
    # header; include_file_*: the .gch is always newer than the compile that uses it.
    # base_dir + hash_dir=false: objects from another clone of the tree are hits, and
    # -ffile-prefix-map (below) keeps those objects free of the other clone's path.
    set(vc_ccache_launcher env
        "CCACHE_BASEDIR=${PROJECT_SOURCE_DIR}" CCACHE_NOHASHDIR=1
        "CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime"
        "${VC_CCACHE_PROGRAM}")
    set(CMAKE_C_COMPILER_LAUNCHER ${vc_ccache_launcher})
    set(CMAKE_CXX_COMPILER_LAUNCHER ${vc_ccache_launcher})
    message(STATUS "Compiling through ccache (${VC_CCACHE_PROGRAM}); VC_CCACHE=OFF to stop")
  elseif(VC_CCACHE STREQUAL "ON")
    message(FATAL_ERROR "VC_CCACHE=ON but ccache is not installed (apt-get install ccache)")
  endif()
endif()
# Debug information and __FILE__ name the files relative to the source root, whichever clone
# compiled them, so a cached object is right for every clone.
add_compile_options("-ffile-prefix-map=${PROJECT_SOURCE_DIR}/=")
if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  # Clang stamps its precompiled headers with the time, which defeats ccache.
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:SHELL:-Xclang -fno-pch-timestamp>")
endif()

# The headers each kind of target precompiles. Every target that gets a set already includes
# those headers; a set only saves parsing them again.
set(VC_PCH_STANDARD <string> <string_view> <vector> <map> <memory> <functional> <optional>
    <utility> <cstdint>)
set(VC_PCH_JSON ${VC_PCH_STANDARD} <nlohmann/json.hpp>)
set(VC_PCH_HOST ${VC_PCH_JSON} <spdlog/spdlog.h> <uv.h>)
set(VC_PCH_HOST_TESTS ${VC_PCH_HOST} <gtest/gtest.h> <gmock/gmock.h>)
set(VC_PCH_JSON_TESTS ${VC_PCH_JSON} <gtest/gtest.h> <gmock/gmock.h>)
# A target with fewer C++ files than this compiles its headers no faster with a PCH (making the
# PCH costs about as much as one file).
set(VC_PCH_MIN_SOURCES 3)

# Collects every build-system target at and below DIRECTORY into OUT.
function(vc_collect_targets directory out)
  get_property(targets DIRECTORY "${directory}" PROPERTY BUILDSYSTEM_TARGETS)
  get_property(subdirectories DIRECTORY "${directory}" PROPERTY SUBDIRECTORIES)
  foreach(subdirectory IN LISTS subdirectories)
    vc_collect_targets("${subdirectory}" more)
    list(APPEND targets ${more})
  endforeach()
  set(${out} ${targets} PARENT_SCOPE)
endfunction()

# The header set for TARGET (empty: none), from where it lives and what it links.
function(vc_pch_set_for target out)
  set(${out} "" PARENT_SCOPE)
  get_target_property(type ${target} TYPE)
  if(NOT type MATCHES "^(STATIC_LIBRARY|SHARED_LIBRARY|MODULE_LIBRARY|EXECUTABLE)$")
    return()
  endif()
  get_target_property(sources ${target} SOURCES)
  list(FILTER sources INCLUDE REGEX "\\.(cpp|cc)$")
  list(LENGTH sources count)
  if(count LESS VC_PCH_MIN_SOURCES)
    return()
  endif()
  get_target_property(directory ${target} SOURCE_DIR)
  file(RELATIVE_PATH where "${PROJECT_SOURCE_DIR}" "${directory}")
  get_target_property(links ${target} LINK_LIBRARIES)
  set(uses_gtest FALSE)
  if(links MATCHES "GTest::")
    set(uses_gtest TRUE)
  endif()
  if(where MATCHES "^host(/|$)")
    set(${out} "${VC_PCH_HOST}" PARENT_SCOPE)
  elseif(uses_gtest AND links MATCHES "vc_host_")
    # spdlog only where the host (which links it) is linked: its inline code needs fmt's library.
    set(${out} "${VC_PCH_HOST_TESTS}" PARENT_SCOPE)
  elseif(uses_gtest AND where MATCHES "^(tests|plugins|sdk)/")
    set(${out} "${VC_PCH_JSON_TESTS}" PARENT_SCOPE)
  elseif(where MATCHES "^(plugins|sdk)/")
    set(${out} "${VC_PCH_JSON}" PARENT_SCOPE)
  endif()
endfunction()

function(vc_apply_build_speed)
  if(NOT VC_PCH)
    return()
  endif()
  vc_collect_targets("${PROJECT_SOURCE_DIR}" targets)
  set(host_room_donor "")
  get_property(host_rooms GLOBAL PROPERTY VC_HOST_ROOM_TARGETS)
  foreach(target IN LISTS targets)
    vc_pch_set_for(${target} headers)
    if(NOT headers)
      continue()
    endif()
    # The host's rooms share one flag set, so they share one precompiled header.
    if(target IN_LIST host_rooms AND host_room_donor)
      target_precompile_headers(${target} REUSE_FROM ${host_room_donor})
      continue()
    endif()
    list(TRANSFORM headers PREPEND "$<$<COMPILE_LANGUAGE:CXX>:")
    list(TRANSFORM headers APPEND ">")
    target_precompile_headers(${target} PRIVATE ${headers})
    if(target IN_LIST host_rooms)
      set(host_room_donor ${target})
    endif()
  endforeach()
endfunction()
