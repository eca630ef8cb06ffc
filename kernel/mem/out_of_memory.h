#ifndef STARLING_KERNEL_MEM_OUT_OF_MEMORY_H_
#define STARLING_KERNEL_MEM_OUT_OF_MEMORY_H_

#include <cstddef>

namespace starling::mem {

// Called when a plain `operator new` (not the nothrow kind) cannot allocate:
// it has no legal way to return null and exceptions are off, so the kernel
// stops here. Declared, not defined: the kernel defines it (with panic()),
// and an image that links the heap glue without it fails to link, loudly.
[[noreturn]] void out_of_memory(std::size_t requested_bytes);

}  // namespace starling::mem

#endif  // STARLING_KERNEL_MEM_OUT_OF_MEMORY_H_
