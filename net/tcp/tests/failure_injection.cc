#include "net/tcp/tests/failure_injection.h"

#include <cstddef>

#include "kernel/async/frame_allocator.h"
#include "lwip/mem.h"
#include "lwip/memp.h"

namespace starling::net::testing {
namespace {

struct Site {
  std::uint64_t calls = 0;
  std::uint64_t fail_at = 0;
  std::uint64_t failures = 0;
};
Site g_sites[kAllocSiteCount];

// True if this call is the one to fail.
bool count_call(AllocSite site) {
  Site& s = g_sites[static_cast<int>(site)];
  ++s.calls;
  if (s.calls != s.fail_at) return false;
  ++s.failures;
  return true;
}

}  // namespace

const char* site_name(AllocSite site) noexcept {
  switch (site) {
    case AllocSite::kMemp:
      return "memp_malloc";
    case AllocSite::kMem:
      return "mem_malloc";
    case AllocSite::kFrame:
      return "FrameAllocator::allocate";
  }
  return "?";
}

void injection_reset() noexcept {
  for (Site& s : g_sites) s = Site{};
}

void injection_fail_call(AllocSite site, std::uint64_t n) noexcept {
  g_sites[static_cast<int>(site)].fail_at = n;
}

std::uint64_t injection_calls(AllocSite site) noexcept {
  return g_sites[static_cast<int>(site)].calls;
}

std::uint64_t injection_failures(AllocSite site) noexcept {
  return g_sites[static_cast<int>(site)].failures;
}

}  // namespace starling::net::testing

using starling::net::testing::AllocSite;
using starling::net::testing::count_call;

// The linker sends every call of X from another object file to __wrap_X and
// makes __real_X the original.
extern "C" {

void* __real_memp_malloc(memp_t type);
void* __wrap_memp_malloc(memp_t type) {
  if (type != MEMP_SYS_TIMEOUT && count_call(AllocSite::kMemp)) return nullptr;
  return __real_memp_malloc(type);
}

void* __real_mem_malloc(mem_size_t size);
void* __wrap_mem_malloc(mem_size_t size) {
  if (count_call(AllocSite::kMem)) return nullptr;
  return __real_mem_malloc(size);
}

// starling::async::FrameAllocator::allocate(std::size_t), a member function:
// `this` is the first argument.
void* __real__ZN8starling5async14FrameAllocator8allocateEm(starling::async::FrameAllocator* self,
                                                           std::size_t bytes);
void* __wrap__ZN8starling5async14FrameAllocator8allocateEm(starling::async::FrameAllocator* self,
                                                           std::size_t bytes) {
  if (count_call(AllocSite::kFrame)) return nullptr;
  return __real__ZN8starling5async14FrameAllocator8allocateEm(self, bytes);
}

}  // extern "C"
