#ifndef STARLING_DRIVERS_MMIO_REGISTER_BUS_H_
#define STARLING_DRIVERS_MMIO_REGISTER_BUS_H_

#include <cstdint>

// Device registers at a base address, or a device model standing in for
// them in host tests: the one way every driver and board touches a device. A model is what makes
// register side effects testable (a write-1-to-clear status, a self-clearing reset bit, a tail
// pointer write that starts DMA): plain memory cannot have them.
//
// On a board `model` is null and every access is one volatile 32-bit load or
// store: the branch is predicted and costs nothing next to the bus access.
namespace starling::mmio {

class RegisterBus {
 public:
  virtual std::uint32_t read32(std::uint32_t offset) = 0;
  virtual void write32(std::uint32_t offset, std::uint32_t value) = 0;
  // Narrow accesses (a UART's byte registers, virtio's config space). A
  // model that does not override them answers from the 32-bit word that
  // holds the bytes (little-endian lanes) and writes a byte as a 32-bit
  // store of it: enough for models whose registers are all 32 bits wide.
  virtual std::uint32_t read16(std::uint32_t offset) {
    return (read32(offset & ~3u) >> (8 * (offset & 3u))) & 0xFFFFu;
  }
  virtual std::uint32_t read8(std::uint32_t offset) {
    return (read32(offset & ~3u) >> (8 * (offset & 3u))) & 0xFFu;
  }
  virtual void write8(std::uint32_t offset, std::uint32_t value) { write32(offset, value & 0xFFu); }

 protected:
  ~RegisterBus() = default;
};

class Registers {
 public:
  constexpr Registers() = default;
  constexpr explicit Registers(std::uintptr_t base, RegisterBus* model = nullptr)
      : base_(base), model_(model) {}

  std::uintptr_t base() const { return base_; }
  RegisterBus* model() const { return model_; }

  std::uint32_t read(std::uint32_t offset) const {
    if (model_ != nullptr) [[unlikely]]
      return model_->read32(offset);
    return *reinterpret_cast<volatile const std::uint32_t*>(base_ + offset);
  }

  void write(std::uint32_t offset, std::uint32_t value) const {
    if (model_ != nullptr) [[unlikely]] {
      model_->write32(offset, value);
      return;
    }
    *reinterpret_cast<volatile std::uint32_t*>(base_ + offset) = value;
  }

  // Device registers narrower than 32 bits, at their natural width.
  std::uint16_t read16(std::uint32_t offset) const {
    if (model_ != nullptr) [[unlikely]]
      return static_cast<std::uint16_t>(model_->read16(offset));
    return *reinterpret_cast<volatile const std::uint16_t*>(base_ + offset);
  }
  std::uint8_t read8(std::uint32_t offset) const {
    if (model_ != nullptr) [[unlikely]]
      return static_cast<std::uint8_t>(model_->read8(offset));
    return *reinterpret_cast<volatile const std::uint8_t*>(base_ + offset);
  }
  void write8(std::uint32_t offset, std::uint8_t value) const {
    if (model_ != nullptr) [[unlikely]] {
      model_->write8(offset, value);
      return;
    }
    *reinterpret_cast<volatile std::uint8_t*>(base_ + offset) = value;
  }

  // Read-modify-write: sets `set`, then clears `clear`. Not for
  // write-1-to-clear registers (it would clear every pending bit).
  void update(std::uint32_t offset, std::uint32_t clear, std::uint32_t set) const {
    write(offset, (read(offset) & ~clear) | set);
  }

 private:
  std::uintptr_t base_ = 0;
  RegisterBus* model_ = nullptr;
};

}  // namespace starling::mmio

#endif  // STARLING_DRIVERS_MMIO_REGISTER_BUS_H_
