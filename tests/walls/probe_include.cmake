# One wall probe (see CMakeLists.txt): preprocess `#include "HEADER"` with the include path in
# INCLUDE_PATHS and check the EXPECTATION, "reachable" or "walled".
file(STRINGS "${INCLUDE_PATHS}" include_paths)
if(NOT include_paths)
  message(FATAL_ERROR "No include path recorded in ${INCLUDE_PATHS}")
endif()
set(include_flags "")
foreach(path IN LISTS include_paths)
  list(APPEND include_flags "-I${path}")
endforeach()

file(MAKE_DIRECTORY "${WORK_DIR}")
set(source "${WORK_DIR}/probe.cpp")
file(WRITE "${source}" "#include \"${HEADER}\"\n")
execute_process(
  COMMAND "${COMPILER}" -std=c++20 -E -o /dev/null ${include_flags} "${source}"
  RESULT_VARIABLE status ERROR_VARIABLE errors OUTPUT_QUIET)

if(EXPECTATION STREQUAL "reachable")
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${HEADER} should be reachable from this room, but:\n${errors}")
  endif()
elseif(EXPECTATION STREQUAL "walled")
  string(FIND "${errors}" "${HEADER}: No such file or directory" walled_at)
  if(status EQUAL 0)
    message(FATAL_ERROR "${HEADER} is reachable from this room: the wall is gone")
  elseif(walled_at EQUAL -1)
    message(FATAL_ERROR
            "Preprocessing failed, but not because ${HEADER} is out of reach:\n${errors}")
  endif()
else()
  message(FATAL_ERROR "EXPECTATION must be reachable or walled, not '${EXPECTATION}'")
endif()
