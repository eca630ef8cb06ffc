#ifndef STARLING_NET_PORT_LWIP_PRELUDE_H_
#define STARLING_NET_PORT_LWIP_PRELUDE_H_

// Kept for code that includes it first: the ssize_t fix it used to carry
// now lives in lwIP's port header (net/lwip/arch/cc.h), which every lwIP
// header includes, so include order no longer matters.
#include "arch/cc.h"

#endif  // STARLING_NET_PORT_LWIP_PRELUDE_H_
