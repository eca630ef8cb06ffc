#include "kernel/async/task.h"

namespace starling::async::detail {

// Not inline, and not in a header: see the declaration.
[[gnu::noinline]] void destroy_frame(std::coroutine_handle<> frame) noexcept {
  frame.destroy();
}

}  // namespace starling::async::detail
