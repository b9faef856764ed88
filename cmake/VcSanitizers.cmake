# VC_SANITIZE: AddressSanitizer + UndefinedBehaviorSanitizer for everything built in this tree,
# plugins included. UBSan findings abort, so a test run cannot pass over them.
if(VC_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()

# VC_TSAN: ThreadSanitizer instead (it cannot be combined with AddressSanitizer). For the
# suites where threads meet: the plugin loader and completion pump, the engine client, the HTTP
# transport with many sessions (scripts/tsan.sh builds and runs that subset).
if(VC_TSAN)
  if(VC_SANITIZE)
    message(FATAL_ERROR "VC_TSAN and VC_SANITIZE cannot be combined")
  endif()
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
endif()
