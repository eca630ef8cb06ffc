#include "kernel/arch/riscv/sbi.h"

namespace starling::sbi {
namespace {

constexpr std::uint64_t kBaseProbeExtension = 3;
constexpr std::uint64_t kSystemResetReset = 0;
constexpr std::uint64_t kTimeSetTimer = 0;

}  // namespace

Result ecall(Extension extension, std::uint64_t function, std::uint64_t arg0, std::uint64_t arg1,
             std::uint64_t arg2, std::uint64_t arg3, std::uint64_t arg4, std::uint64_t arg5) {
  // Register variables are the only way to pin each value to the register the
  // calling convention names.
  register std::uint64_t a0 asm("a0") = arg0;
  register std::uint64_t a1 asm("a1") = arg1;
  register std::uint64_t a2 asm("a2") = arg2;
  register std::uint64_t a3 asm("a3") = arg3;
  register std::uint64_t a4 asm("a4") = arg4;
  register std::uint64_t a5 asm("a5") = arg5;
  register std::uint64_t a6 asm("a6") = function;
  register std::uint64_t a7 asm("a7") = static_cast<std::uint64_t>(extension);
  // "memory": the firmware may read or write memory we pointed it at.
  asm volatile("ecall"
               : "+r"(a0), "+r"(a1)
               : "r"(a2), "r"(a3), "r"(a4), "r"(a5), "r"(a6), "r"(a7)
               : "memory");
  return Result{static_cast<Error>(static_cast<std::int64_t>(a0)), static_cast<std::int64_t>(a1)};
}

bool probe_extension(Extension extension) {
  const Result result =
      ecall(Extension::kBase, kBaseProbeExtension, static_cast<std::uint64_t>(extension));
  // The spec returns 0 for "not available", an extension-specific non-zero value otherwise.
  return result.error == Error::kSuccess && result.value != 0;
}

Result system_reset(ResetType type, ResetReason reason) {
  return ecall(Extension::kSystemReset, kSystemResetReset, static_cast<std::uint64_t>(type),
               static_cast<std::uint64_t>(reason));
}

Result set_timer(std::uint64_t stime_value) {
  return ecall(Extension::kTime, kTimeSetTimer, stime_value);
}

void shutdown(ResetReason reason) {
  if (probe_extension(Extension::kSystemReset)) {
    system_reset(ResetType::kShutdown, reason);
  }
}

}  // namespace starling::sbi
