# check_plugin_exports.cmake — a shipped plugin must export exactly vc_plugin_entry_v1 and must
# not need a newer C or C++ runtime than the Debian 12 baseline (GLIBC 2.36, GLIBCXX 3.4.30),
# or it would fail to load on the oldest supported system.
#
#   cmake -DNM=<nm> -DOBJDUMP=<objdump> -DPLUGIN=<file.so> -P check_plugin_exports.cmake
#   cmake -DNM=<nm> -DOBJDUMP=<objdump> -DPLUGIN_DIR=<dir> -P check_plugin_exports.cmake
# With PLUGIN_DIR every vc-backend-*.so in it is checked.
cmake_minimum_required(VERSION 3.20)

set(max_glibc "2.36")
set(max_glibcxx "3.4.30")

if(DEFINED PLUGIN_DIR)
  file(GLOB plugins "${PLUGIN_DIR}/vc-backend-*.so")
  if(NOT plugins)
    message(FATAL_ERROR "no vc-backend-*.so in ${PLUGIN_DIR}")
  endif()
elseif(DEFINED PLUGIN)
  set(plugins "${PLUGIN}")
else()
  message(FATAL_ERROR "pass -DPLUGIN=<file> or -DPLUGIN_DIR=<dir>")
endif()

set(failures "")
foreach(plugin IN LISTS plugins)
  if(NOT EXISTS "${plugin}")
    message(FATAL_ERROR "${plugin} does not exist")
  endif()

  execute_process(COMMAND "${NM}" -D --defined-only "${plugin}"
                  OUTPUT_VARIABLE nm_out RESULT_VARIABLE nm_rc ERROR_VARIABLE nm_err)
  if(NOT nm_rc EQUAL 0)
    message(FATAL_ERROR "${NM} failed on ${plugin}: ${nm_err}")
  endif()
  string(REGEX MATCHALL "[^\n]+" lines "${nm_out}")
  set(exported "")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^.* " "" symbol "${line}")
    list(APPEND exported "${symbol}")
  endforeach()
  list(REMOVE_DUPLICATES exported)
  if(NOT exported STREQUAL "vc_plugin_entry_v1")
    string(APPEND failures "${plugin} exports [${exported}], expected only vc_plugin_entry_v1\n")
  endif()

  execute_process(COMMAND "${OBJDUMP}" -T "${plugin}"
                  OUTPUT_VARIABLE dump_out RESULT_VARIABLE dump_rc ERROR_VARIABLE dump_err)
  if(NOT dump_rc EQUAL 0)
    message(FATAL_ERROR "${OBJDUMP} failed on ${plugin}: ${dump_err}")
  endif()
  foreach(runtime IN ITEMS GLIBC GLIBCXX)
    string(REGEX MATCHALL "${runtime}_[0-9]+(\\.[0-9]+)*" versions "${dump_out}")
    list(REMOVE_DUPLICATES versions)
    string(TOLOWER "max_${runtime}" limit_var)
    foreach(version IN LISTS versions)
      string(REPLACE "${runtime}_" "" number "${version}")
      if(number VERSION_GREATER ${${limit_var}})
        string(APPEND failures "${plugin} needs ${version}, newer than the baseline ${${limit_var}}\n")
      endif()
    endforeach()
  endforeach()
  message(STATUS "checked ${plugin}")
endforeach()

if(failures)
  message(FATAL_ERROR "${failures}")
endif()
