#include "drivers/dwmac/model/dma_region.h"

#include <sys/mman.h>
#include <unistd.h>

namespace starling::model {
namespace {

constexpr std::uint64_t kFirstCandidate = 0x2000'0000;
constexpr std::uint64_t kStep = 0x1000'0000;     // 256 MiB
constexpr std::uint64_t kLimit = 0x1'0000'0000;  // descriptor address fields are 32-bit

}  // namespace

std::unique_ptr<DmaRegion> DmaRegion::create(std::size_t bytes) {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  if (bytes == 0 || bytes > kLimit - kFirstCandidate) return nullptr;
  const std::size_t size = (bytes + page - 1) / page * page;
  for (std::uint64_t candidate = kFirstCandidate; candidate + size <= kLimit; candidate += kStep) {
    void* want = reinterpret_cast<void*>(static_cast<std::uintptr_t>(candidate));
    void* got = mmap(want, size, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (got == MAP_FAILED) continue;
    // Kernels before 4.17 treat the flag as a hint and may map elsewhere.
    if (got != want) {
      munmap(got, size);
      continue;
    }
    return std::unique_ptr<DmaRegion>(new DmaRegion(candidate, size));
  }
  return nullptr;
}

DmaRegion::~DmaRegion() {
  munmap(data(), size_);
}

bool DmaRegion::contains(std::uint64_t address, std::size_t bytes) const {
  if (address < base_) return false;
  const std::uint64_t offset = address - base_;
  return offset <= size_ && bytes <= size_ - offset;
}

}  // namespace starling::model
