#include "kernel/mem/dma_pool.h"

namespace starling::mem {

Result<void> DmaPool::init(DmaRegion region, Shape shape, std::span<std::uint32_t> metadata) {
  if (stride_ != 0) return Unexpected(Error::kInvalidArgument);  // once only
  if (shape.buffer_size == 0 || shape.count == 0 || shape.count > UINT32_MAX ||
      !is_power_of_two(shape.alignment) || region.cpu == nullptr ||
      metadata.size() < metadata_words(shape.count)) {
    return Unexpected(Error::kInvalidArgument);
  }
  std::uint64_t stride = 0;
  std::uint64_t first = 0;
  if (!align_up(shape.buffer_size, shape.alignment, &stride) ||
      !align_up(region.phys, shape.alignment, &first)) {
    return Unexpected(Error::kNoMemory);
  }
  // Overflow-free form of: (first - phys) + stride * count <= size.
  const std::uint64_t lead = first - region.phys;
  if (lead > region.size || stride > (region.size - lead) / shape.count) {
    return Unexpected(Error::kNoMemory);
  }

  cpu_base_ = region.cpu + lead;
  phys_base_ = first;
  stride_ = static_cast<std::size_t>(stride);
  shape_ = shape;
  free_stack_ = metadata.first(shape.count);
  in_use_bits_ = metadata.subspan(shape.count, (shape.count + 31) / 32);
  // Lowest index on top: buffers go out in address order at first.
  for (std::size_t i = 0; i < shape.count; ++i) {
    free_stack_[i] = static_cast<std::uint32_t>(shape.count - 1 - i);
  }
  for (std::uint32_t& word : in_use_bits_) word = 0;
  free_count_ = shape.count;
  stats_ = DmaPoolStats{};
  stats_.capacity = shape.count;
  return {};
}

Result<void> DmaPool::init(PageAllocator& pages, Shape shape, std::span<std::uint32_t> metadata) {
  if (shape.count == 0 || !is_power_of_two(shape.alignment) || shape.buffer_size == 0) {
    return Unexpected(Error::kInvalidArgument);
  }
  std::uint64_t stride = 0;
  if (!align_up(shape.buffer_size, shape.alignment, &stride) ||
      stride > (std::uint64_t{1} << 40) / shape.count) {
    return Unexpected(Error::kNoMemory);
  }
  const std::uint64_t bytes = stride * shape.count;
  const std::size_t count = static_cast<std::size_t>((bytes + kPageSize - 1) / kPageSize);
  Result<PhysAddr> phys = pages.allocate(count, shape.alignment);
  if (!phys) return Unexpected(phys.error());
  Result<void> done = init(DmaRegion{to_pointer(*phys), *phys, count * kPageSize}, shape, metadata);
  if (!done) (void)pages.free(*phys);
  return done;
}

DmaBuffer DmaPool::buffer(std::uint32_t index) const {
  return DmaBuffer(cpu_base_ + std::size_t{index} * stride_,
                   phys_base_ + std::uint64_t{index} * stride_, shape_.buffer_size, index);
}

bool DmaPool::in_use(std::uint32_t index) const {
  return (in_use_bits_[index / 32] >> (index % 32)) & 1;
}

void DmaPool::mark(std::uint32_t index, bool used) {
  const std::uint32_t bit = std::uint32_t{1} << (index % 32);
  if (used) {
    in_use_bits_[index / 32] |= bit;
  } else {
    in_use_bits_[index / 32] &= ~bit;
  }
}

Result<DmaBuffer> DmaPool::allocate() {
  if (free_count_ == 0) {
    ++stats_.failed_allocations;
    return Unexpected(Error::kNoMemory);
  }
  const std::uint32_t index = free_stack_[--free_count_];
  mark(index, true);
  ++stats_.in_use;
  if (stats_.in_use > stats_.high_water) stats_.high_water = stats_.in_use;
  return buffer(index);
}

std::optional<DmaBuffer> DmaPool::from_phys(PhysAddr phys) const {
  if (stride_ == 0 || phys < phys_base_) return std::nullopt;
  const std::uint64_t offset = phys - phys_base_;
  if (offset % stride_ != 0 || offset / stride_ >= shape_.count) return std::nullopt;
  return buffer(static_cast<std::uint32_t>(offset / stride_));
}

std::optional<DmaBuffer> DmaPool::from_cpu(const void* cpu) const {
  if (stride_ == 0) return std::nullopt;
  // Compared as integers: the pointer may belong to another object entirely.
  const auto address = reinterpret_cast<std::uintptr_t>(cpu);
  const auto base = reinterpret_cast<std::uintptr_t>(cpu_base_);
  if (address < base) return std::nullopt;
  const std::uintptr_t offset = address - base;
  if (offset % stride_ != 0 || offset / stride_ >= shape_.count) return std::nullopt;
  return buffer(static_cast<std::uint32_t>(offset / stride_));
}

Result<void> DmaPool::free(const DmaBuffer& returned) {
  // Trust nothing in `returned` but its address: it must be one of ours,
  // and its CPU and device views must agree.
  const std::optional<DmaBuffer> ours = from_phys(returned.phys());
  if (!ours || ours->cpu() != returned.cpu() || !in_use(ours->index())) {
    ++stats_.refused_frees;
    return Unexpected(Error::kInvalidArgument);
  }
  mark(ours->index(), false);
  free_stack_[free_count_++] = ours->index();
  --stats_.in_use;
  return {};
}

}  // namespace starling::mem
