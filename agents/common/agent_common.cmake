# agent_common.cmake — the pieces both in-computer agents share (the clock, the log line),
# written once and compiled into each agent with that agent's own flags: the exec agent is
# linked statically on the host, the desktop agent is compiled inside the desktop image. So
# this is a list of sources, not a library of its own.
#
#   include(<path>/agents/common/agent_common.cmake)
#   vc_agent_common_sources(<agent target>)
#
# Both agents' code reaches these headers as "vc_agent_common/<name>.h", namespace
# vc::agent_common. Each agent defines vc::agent_common::kProgramName (log_line.h).
include_guard(GLOBAL)

set(VC_AGENT_COMMON_DIR "${CMAKE_CURRENT_LIST_DIR}")

function(vc_agent_common_sources target)
  target_sources(${target} PRIVATE "${VC_AGENT_COMMON_DIR}/src/log_line.cpp")
  target_include_directories(${target} PRIVATE "${VC_AGENT_COMMON_DIR}/include")
endfunction()
