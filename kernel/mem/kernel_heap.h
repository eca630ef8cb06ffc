#ifndef STARLING_KERNEL_MEM_KERNEL_HEAP_H_
#define STARLING_KERNEL_MEM_KERNEL_HEAP_H_

#include "kernel/mem/heap.h"

namespace starling::mem {

// The Heap behind malloc/free and operator new/delete in the riscv64 kernel
// (heap_glue.cc). It starts empty: boot code gives it memory with
// kernel_heap().add_region(...) before anything allocates; until then every
// allocation fails (and plain operator new calls out_of_memory()).
Heap& kernel_heap();

}  // namespace starling::mem

#endif  // STARLING_KERNEL_MEM_KERNEL_HEAP_H_
