/* vc_status.h — status codes returned by ABI functions and passed to vc_op.complete().
 *
 * 0 is success, > 0 success with a note, < 0 an error. Ranges:
 *   -1 .. -999       SDK core codes (below)
 *   -1000 .. -1999   reserved for SDK extensions
 *   <= -10000        plugin-private codes
 * A consumer treats an unknown negative code as VC_E_FAILED and an unknown positive one as VC_OK.
 */
#ifndef VC_BACKEND_1_STATUS_H
#define VC_BACKEND_1_STATUS_H

#include <stdint.h>

typedef int32_t vc_status;

#define VC_OK 0
/* emit(): the host's output limit was reached; stop producing output for this op. */
#define VC_NOTE_TRUNCATED 1

#define VC_E_FAILED (-1)           /* generic failure; the message says why */
#define VC_E_INVALID_ARGUMENT (-2) /* the request document is malformed or out of range */
#define VC_E_UNSUPPORTED (-3)      /* operation or option not implemented by this backend */
#define VC_E_NOT_FOUND (-4)        /* no such computer (attach) or image */
#define VC_E_ALREADY_EXISTS (-5)   /* the name is taken, e.g. by a container we do not own */
#define VC_E_CANCELLED (-6)        /* the host cancelled the op before it finished */
#define VC_E_TIMEOUT (-7)          /* an engine call (not the user's command) timed out */
#define VC_E_BUSY (-8)             /* a conflicting operation is in progress */
#define VC_E_UNAVAILABLE (-9)      /* the engine or daemon cannot be reached */
#define VC_E_PERMISSION (-10)      /* the engine refused for lack of permission */
#define VC_E_NO_MEMORY (-11)
#define VC_E_INCOMPATIBLE (-12)    /* engine or host version not supported */
#define VC_E_BACKPRESSURE (-13)    /* emit(): host buffer above high-water mark; retry later */
#define VC_E_COMPUTER_DIED (-14)   /* the computer stopped unexpectedly during the op */
#define VC_E_COMPUTER_STOPPED (-15) /* the computer was stopped on purpose; op refused */

#define VC_E_EXTENSION_BASE (-1000)
#define VC_E_PLUGIN_BASE (-10000)

#endif /* VC_BACKEND_1_STATUS_H */
