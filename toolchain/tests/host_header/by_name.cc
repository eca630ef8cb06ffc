// A host (Linux UAPI) header: must never reach a riscv64 kernel build.
#include <linux/types.h>

__u32 host_type_leaked = 0;
