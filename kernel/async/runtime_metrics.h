#ifndef STARLING_KERNEL_ASYNC_RUNTIME_METRICS_H_
#define STARLING_KERNEL_ASYNC_RUNTIME_METRICS_H_

#include "kernel/async/executor.h"
#include "kernel/async/frame_allocator.h"
#include "kernel/lib/result.h"
#include "kernel/metrics/registry.h"

// The coroutine runtime's metrics: the executor's ready queue and its idle
// and total cycles (and retired instructions: busy = instructions - idle
// cycles under QEMU -icount, the benchmark's cost figure), uptime, the stall
// detector's threshold, stalls and reports (stall_detector.h), and the
// frame arena's use, peak and failures. `frames` may be null (an image
// without a frame arena). The executor and the arena must outlive the
// registry's readers (both live as long as the image).
namespace starling::async {

Result<void> register_runtime_metrics(metrics::Registry& registry, const Executor& executor,
                                      const FrameAllocator* frames);

}  // namespace starling::async

#endif  // STARLING_KERNEL_ASYNC_RUNTIME_METRICS_H_
