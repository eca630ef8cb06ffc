/* sys_now() for lwIP's NO_SYS fuzz harness (upstream links lwip-contrib's
 * unix sys_arch.c for it): the host's monotonic clock in milliseconds. */
#include <time.h>

#include "lwip/sys.h"

u32_t sys_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (u32_t)(ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
}
