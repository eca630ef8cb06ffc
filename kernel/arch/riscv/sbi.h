#ifndef STARLING_KERNEL_ARCH_RISCV_SBI_H_
#define STARLING_KERNEL_ARCH_RISCV_SBI_H_

#include <cstdint>

// Calls into the SBI firmware (OpenSBI) below us. RISC-V SBI spec v1.0:
// a7 = extension id, a6 = function id, a0..a5 = arguments; the firmware
// returns an error code in a0 and a value in a1.
namespace starling::sbi {

enum class Extension : std::uint64_t {
  kBase = 0x10,
  kTime = 0x54494D45,         // "TIME"
  kSystemReset = 0x53525354,  // "SRST"
};

// SBI error codes (spec §3.2); 0 is success.
enum class Error : std::int64_t {
  kSuccess = 0,
  kFailed = -1,
  kNotSupported = -2,
  kInvalidParam = -3,
  kDenied = -4,
  kInvalidAddress = -5,
  kAlreadyAvailable = -6,
};

struct Result {
  Error error;
  std::int64_t value;
};

Result ecall(Extension extension, std::uint64_t function, std::uint64_t arg0 = 0,
             std::uint64_t arg1 = 0, std::uint64_t arg2 = 0, std::uint64_t arg3 = 0,
             std::uint64_t arg4 = 0, std::uint64_t arg5 = 0);

// Base extension, sbi_probe_extension (FID 3): true if `extension` is implemented.
bool probe_extension(Extension extension);

enum class ResetType : std::uint32_t {
  kShutdown = 0,
  kColdReboot = 1,
  kWarmReboot = 2,
};

enum class ResetReason : std::uint32_t {
  kNone = 0,
  kSystemFailure = 1,
};

// SRST sbi_system_reset (FID 0). Returns only if the firmware refused or lacks
// SRST; the result says why.
Result system_reset(ResetType type, ResetReason reason);

// TIME sbi_set_timer (FID 0): the next S-mode timer interrupt fires once the
// `time` CSR reaches `stime_value`; the call also clears a pending one.
// UINT64_MAX means "never".
Result set_timer(std::uint64_t stime_value);

// Powers the machine off through SRST, if the firmware implements it. Returns
// only if it could not (no SRST, or the firmware refused).
void shutdown(ResetReason reason);

}  // namespace starling::sbi

#endif  // STARLING_KERNEL_ARCH_RISCV_SBI_H_
