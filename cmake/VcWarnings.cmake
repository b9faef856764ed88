# vc_target_warnings(<target>) — the project's warning set; errors when VC_WARNINGS_AS_ERRORS.
set(VC_WARNING_FLAGS
  -Wall -Wextra -Wpedantic -Wshadow -Wcast-align -Wunused -Wformat=2
  -Wimplicit-fallthrough -Wnull-dereference -Wdouble-promotion -Wmisleading-indentation)
set(VC_CXX_WARNING_FLAGS -Wnon-virtual-dtor -Woverloaded-virtual -Wold-style-cast)

function(vc_target_warnings target)
  target_compile_options(${target} PRIVATE
    ${VC_WARNING_FLAGS}
    $<$<COMPILE_LANGUAGE:CXX>:${VC_CXX_WARNING_FLAGS}>
    $<$<BOOL:${VC_WARNINGS_AS_ERRORS}>:-Werror>)
endfunction()
