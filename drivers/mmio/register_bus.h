#ifndef STARLING_DRIVERS_MMIO_REGISTER_BUS_H_
#define STARLING_DRIVERS_MMIO_REGISTER_BUS_H_

#include <cstdint>

// 32-bit device registers at a base address, or a device model standing in
// for them in host tests. A model is what makes register side effects
// testable (a write-1-to-clear status, a self-clearing reset bit, a tail
// pointer write that starts DMA): plain memory cannot have them.
//
// On a board `model` is null and every access is one volatile 32-bit load or
// store: the branch is predicted and costs nothing next to the bus access.
namespace starling::mmio {

class RegisterBus {
 public:
  virtual std::uint32_t read32(std::uint32_t offset) = 0;
  virtual void write32(std::uint32_t offset, std::uint32_t value) = 0;

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
