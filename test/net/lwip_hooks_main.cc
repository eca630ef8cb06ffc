// lwIP's platform hooks in the kernel: LWIP_PLATFORM_DIAG prints on the
// console (printf subset), LWIP_RAND varies, and a failed LWIP_ASSERT ends
// in the kernel's panic with lwIP's message, file and line (exit 101).
#include "kernel/boot/app.h"
#include "kernel/console/console.h"
#include "lwip/debug.h"
#include "lwip/opt.h"

int starling_app_main(const starling::BootInfo&) {
  LWIP_PLATFORM_DIAG(
      ("lwip diag: %d %u %s 0x%x %c %ld %%\n", -42, 7u, "text", 0xbeefu, 'Z', 123456789012L));
  const u32_t a = LWIP_RAND();
  const u32_t b = LWIP_RAND();
  starling::console::print(a != b ? "lwip rand: varies\n" : "lwip rand: FAIL constant\n");
  LWIP_ASSERT("starling hook test: deliberate assertion", a == b && a != b);
  starling::console::print("lwip assert: FAIL returned\n");
  return 0;
}
