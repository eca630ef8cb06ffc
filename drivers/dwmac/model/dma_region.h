#ifndef STARLING_DRIVERS_DWMAC_MODEL_DMA_REGION_H_
#define STARLING_DRIVERS_DWMAC_MODEL_DMA_REGION_H_

#include <cstddef>
#include <cstdint>
#include <memory>

// Host memory that a device model can reach by "bus address", for host tests.
//
// The DWMAC descriptors hold 32-bit buffer and ring addresses (docs/hardware/dwmac.md §5;
// the upper bits go elsewhere), so the memory sits at a numeric address below
// 4 GiB and device address == host address: the driver under test writes host
// pointers into descriptors exactly as it writes physical addresses on a board.
namespace starling::model {

class DmaRegion {
 public:
  // Maps `bytes` (rounded up to pages) at the first free candidate address
  // from 0x2000'0000 up in 256 MiB steps, never replacing an existing mapping
  // (MAP_FIXED_NOREPLACE). ASan's shadow leaves these addresses to the
  // program. nullptr if no candidate below 4 GiB is free.
  static std::unique_ptr<DmaRegion> create(std::size_t bytes);

  DmaRegion(const DmaRegion&) = delete;
  DmaRegion& operator=(const DmaRegion&) = delete;
  ~DmaRegion();

  std::uint64_t base() const { return base_; }
  std::size_t size() const { return size_; }
  std::byte* data() { return reinterpret_cast<std::byte*>(static_cast<std::uintptr_t>(base_)); }

  // True if [address, address + bytes) lies inside the region (no overflow).
  bool contains(std::uint64_t address, std::size_t bytes) const;

 private:
  DmaRegion(std::uint64_t base, std::size_t size) : base_(base), size_(size) {}

  std::uint64_t base_;
  std::size_t size_;
};

}  // namespace starling::model

#endif  // STARLING_DRIVERS_DWMAC_MODEL_DMA_REGION_H_
