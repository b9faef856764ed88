/* macro_use.c — the ABI's macros expanded, not only defined. Compiled by the header hygiene
 * targets as C and, through macro_use.cpp, as C++ with -Wold-style-cast: a macro that only
 * compiles cleanly in one of the languages fails the build. */
#include <vc-backend-1/vc_sdk.h>

VC_EXTERN_C int vc_abi_macro_use(const vc_host_services *services, const vc_op *op);

VC_EXTERN_C int vc_abi_macro_use(const vc_host_services *services, const vc_op *op) {
  int found = 0;
  if (VC_HAS_FIELD(services, vc_host_services, state_dir)) found += 1;
  if (VC_HAS_FIELD(op, vc_op, is_cancelled)) found += 2;
  return found;
}
