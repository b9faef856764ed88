# VC_SANITIZE: AddressSanitizer + UndefinedBehaviorSanitizer for everything built in this tree,
# plugins included. UBSan findings abort, so a test run cannot pass over them.
if(VC_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
