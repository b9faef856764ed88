/* relocatable_object.c — compiled to a .o only: an ELF file that is not a shared object. */
__attribute__((visibility("default"))) int vc_test_relocatable_function(void) { return 1; }
