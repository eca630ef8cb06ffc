#ifndef STARLING_KERNEL_MEM_PAGE_METRICS_H_
#define STARLING_KERNEL_MEM_PAGE_METRICS_H_

#include "kernel/lib/result.h"
#include "kernel/mem/page_allocator.h"
#include "kernel/metrics/registry.h"

// The page allocator's metrics: pages managed, free, the peak in use
// (DMA rings and buffers, the heaps and the frame arena all come from it),
// refused allocations and refused frees. `pages` lives as long as the image.
namespace starling::mem {

Result<void> register_page_metrics(metrics::Registry& registry, const PageAllocator& pages);

}  // namespace starling::mem

#endif  // STARLING_KERNEL_MEM_PAGE_METRICS_H_
