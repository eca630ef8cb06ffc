#ifndef STARLING_NET_PORT_LWIP_PRELUDE_H_
#define STARLING_NET_PORT_LWIP_PRELUDE_H_

// Include first, before any lwIP header, in C++ code that uses lwIP.
//
// lwip/arch.h typedefs ssize_t as int unless <limits.h> defines SSIZE_MAX.
// picolibc's <limits.h> does not, but the C++ headers pull in its
// <sys/types.h>, whose ssize_t is long: a redefinition. Declare the C
// library's ssize_t first and tell arch.h it exists. (lwIP's own C sources
// include no <sys/types.h> and keep arch.h's typedef; nothing Starling calls
// passes an ssize_t across.)
#include <limits.h>
#include <sys/types.h>

#ifndef SSIZE_MAX
#define SSIZE_MAX LONG_MAX
#endif
#ifndef LWIP_NO_UNISTD_H
#define LWIP_NO_UNISTD_H 1
#endif

#endif  // STARLING_NET_PORT_LWIP_PRELUDE_H_
