/* missing_library.c — a library the missing-dependency plugin links against. The test loads the
 * plugin without it on the library path, so dlopen must fail and name this library. */
__attribute__((visibility("default"))) int vc_test_gone_function(void) { return 0; }
