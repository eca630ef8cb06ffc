#ifndef STARLING_KERNEL_CONSOLE_REPORT_LIMIT_H_
#define STARLING_KERNEL_CONSOLE_REPORT_LIMIT_H_

#include <cstdint>

// Rate-limiting console reports of an event a device or a peer can repeat
// at will (a fatal bus error, DEVICE_NEEDS_RESET): a storm must not turn the
// UART (~11 KB/s at 115200 baud) into the bottleneck. The first few are
// told, then one in 1024; the caller counts every one.
namespace starling::console {

inline constexpr std::uint64_t kReportFirst = 8;
inline constexpr std::uint64_t kReportEvery = 1024;

// `nth`: the event's count including this one (1 for the first).
constexpr bool worth_reporting(std::uint64_t nth) {
  return nth <= kReportFirst || nth % kReportEvery == 0;
}

}  // namespace starling::console

#endif  // STARLING_KERNEL_CONSOLE_REPORT_LIMIT_H_
