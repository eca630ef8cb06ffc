/* sys_now() for lwIP's NO_SYS fuzz harness (upstream links lwip-contrib's
 * unix sys_arch.c for it): the host's monotonic clock in milliseconds, plus
 * the harness's sys_now_offset (test/fuzz/lwipopts.h defines
 * LWIP_FUZZ_SYS_NOW: fuzz3's inputs carry delays that move the clock). */
#include <time.h>

#include "lwip/sys.h"

extern u32_t sys_now_offset;

u32_t sys_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (u32_t)(ts.tv_sec * 1000 + ts.tv_nsec / 1000000) + sys_now_offset;
}
