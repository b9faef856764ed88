# vc_target_warnings(<target>) — the project's warning set; errors when VC_WARNINGS_AS_ERRORS.
# No -Wnull-dereference: GCC only checks it in optimised builds (never in the -O0 builds that
# treat warnings as errors), and there GCC 12 reported nothing but false positives inside
# libstdc++'s streambuf and nlohmann::json's swap. Null dereferences are the sanitizers' job
# (UBSan's null check and ASan in every test build).
set(VC_WARNING_FLAGS
  -Wall -Wextra -Wpedantic -Wshadow -Wcast-align -Wunused -Wformat=2
  -Wimplicit-fallthrough -Wdouble-promotion -Wmisleading-indentation)
set(VC_CXX_WARNING_FLAGS -Wnon-virtual-dtor -Woverloaded-virtual -Wold-style-cast)

# GCC 12 at -O2 reports -Warray-bounds inside libstdc++'s std::string copies (its bugs 105545 and
# 106199) where our code only builds and moves strings: off in optimised GCC builds, on in the
# -O0 builds that treat warnings as errors.
set(VC_OPTIMISED_GCC_FLAGS
  "$<$<AND:$<CXX_COMPILER_ID:GNU>,$<NOT:$<CONFIG:Debug>>,$<COMPILE_LANGUAGE:CXX>>:-Wno-array-bounds>")

function(vc_target_warnings target)
  target_compile_options(${target} PRIVATE
    ${VC_WARNING_FLAGS} ${VC_OPTIMISED_GCC_FLAGS}
    $<$<COMPILE_LANGUAGE:CXX>:${VC_CXX_WARNING_FLAGS}>
    $<$<BOOL:${VC_WARNINGS_AS_ERRORS}>:-Werror>)
endfunction()
