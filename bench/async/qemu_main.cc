// Instructions per runtime operation in QEMU, from the guest's own instret
// counter (figures, not pass/fail). Under -icount (BUILD.bazel passes it)
// QEMU counts retired guest instructions exactly, so these are as repeatable
// as callgrind's on the host; without it, TCG's instret is the host's clock.
//   bazel run //bench/async:qemu

#include <cstdint>

#include "bench/async/workloads.h"
#include "kernel/arch/riscv/csr.h"
#include "kernel/boot/app.h"
#include "kernel/console/console.h"

namespace starling::bench {
namespace {

constexpr long kOperations = 100'000;

std::uint64_t instructions(Workload workload, long n) {
  const std::uint64_t before = riscv::csr_read<riscv::Csr::kInstret>();
  const int failed = run_workload(workload, n);
  const std::uint64_t after = riscv::csr_read<riscv::Csr::kInstret>();
  return failed != 0 ? 0 : after - before;
}

bool report(const char* what, Workload workload) {
  const std::uint64_t with_n = instructions(workload, kOperations);
  const std::uint64_t baseline = instructions(workload, 0);
  if (with_n == 0 || baseline == 0 || with_n < baseline) {
    console::print("bench: FAIL: ");
    console::print(what);
    console::print(" did not run\n");
    return false;
  }
  // Tenths of an instruction, without floating point.
  const std::uint64_t tenths = (with_n - baseline) * 10 / kOperations;
  console::print("bench: ");
  console::print(what);
  console::print(": ");
  console::print_dec(static_cast<std::int64_t>(tenths / 10));
  console::print(".");
  console::print_dec(static_cast<std::int64_t>(tenths % 10));
  console::print(" instructions (instret, ");
  console::print_dec(kOperations);
  console::print(" operations)\n");
  return true;
}

}  // namespace
}  // namespace starling::bench

int starling_app_main(const starling::BootInfo& /*boot*/) {
  using starling::bench::Workload;
  bool ok = starling::bench::report("co_await yield() round trip", Workload::kYield);
  ok = starling::bench::report("task call (co_await child)", Workload::kCall) && ok;
  ok = starling::bench::report("task spawn", Workload::kSpawn) && ok;
  return ok ? 0 : 1;
}
