#include "kernel/boot/paging.h"

#include <cstdint>
#include <span>

#include "kernel/arch/riscv/csr.h"
#include "kernel/arch/riscv/trap.h"
#include "kernel/boot/memory.h"
#include "kernel/console/console.h"
#include "kernel/fdt/device_tree.h"
#include "kernel/hal/devices.h"
#include "kernel/mem/address.h"
#include "kernel/mem/range_set.h"

// From the board's linker script (platform/<board>/linker.ld), each on a
// page boundary.
extern "C" char __image_start[];
extern "C" char __text_end[];
extern "C" char __rodata_start[];
extern "C" char __rodata_end[];
extern "C" char __data_start[];
extern "C" char __data_end[];
extern "C" char __stack_guard[];
extern "C" char __stack_bottom[];
extern "C" char __trap_stack_top[];

namespace starling::boot {
namespace {

namespace sv39 = mem::sv39;
using mem::PhysAddr;
using mem::Region;

constexpr std::uint8_t kRX = sv39::kRead | sv39::kExecute;
constexpr std::uint8_t kRW = sv39::kRead | sv39::kWrite;

constinit mem::MemoryLayout layout;

PhysAddr at(const char* symbol) {
  return mem::to_phys(symbol);
}

std::uint64_t* table_page(void* /*context*/) {
  auto page = page_allocator().allocate(1);
  if (!page.ok()) return nullptr;
  return reinterpret_cast<std::uint64_t*>(mem::to_pointer(*page));
}

void print_region(const Region& region) {
  console::print("Starling: map ");
  console::print_hex(region.base);
  console::print("-");
  console::print_hex(region.base + region.size);
  console::print(region.permissions == 0             ? " ---  "
                 : region.permissions == kRX         ? " r-x  "
                 : region.permissions == kRW         ? " rw-  "
                 : region.permissions == sv39::kRead ? " r--  "
                                                     : " ?    ");
  console::print(region.page_size == sv39::k1GiB   ? "1G "
                 : region.page_size == sv39::k2MiB ? "2M "
                 : region.page_size == sv39::k4KiB ? "4K "
                                                   : "   ");
  console::print(region.guard.empty() ? region.name : region.guard);
  console::print("\n");
}

// Maps one region and records it; a guard page (no permissions) is only
// recorded.
Result<void> add(sv39::PageTables& tables, Region region) {
  if (region.permissions != 0) {
    const sv39::Counts before = tables.counts();
    if (auto ok = tables.map(region.base, region.size, region.permissions); !ok.ok()) {
      console::print("Starling: paging: cannot map ");
      console::print(region.name);
      console::print(" at ");
      console::print_hex(region.base);
      console::print(": ");
      console::print(error_name(ok.error()));
      console::print("\n");
      return ok;
    }
    const sv39::Counts& after = tables.counts();
    region.page_size = after.pages_1g != before.pages_1g   ? sv39::k1GiB
                       : after.pages_2m != before.pages_2m ? sv39::k2MiB
                                                           : sv39::k4KiB;
  }
  return layout.add(region);
}

const char* describe(std::uint64_t address, mem::Access access) {
  const mem::FaultCause cause = layout.describe(address, access);
  // One static line: the fault handler prints it before anything else runs.
  static char text[128];
  std::size_t n = 0;
  auto put = [&](std::string_view piece) {
    for (char c : piece) {
      if (n + 1 < sizeof(text)) text[n++] = c;
    }
  };
  put(cause.verb);
  if (!cause.verb.empty()) put(" ");
  put(cause.object);
  text[n] = '\0';
  return text;
}

Result<void> build(sv39::PageTables& tables, unsigned long dtb) {
  const MemoryRegions& memory = memory_regions();
  Result<void> results[] = {
      add(tables,
          Region::mapped(at(__image_start), at(__text_end) - at(__image_start), kRX, ".text")),
      add(tables, Region::mapped(at(__rodata_start), at(__rodata_end) - at(__rodata_start),
                                 sv39::kRead, ".rodata")),
      add(tables, Region::mapped(at(__data_start), at(__data_end) - at(__data_start), kRW,
                                 ".data and .bss")),
      add(tables, Region::guard_page(at(__stack_guard), mem::kPageSize,
                                     "stack overflow: guard page below the stack")),
      add(tables, Region::mapped(at(__stack_bottom), at(__trap_stack_top) - at(__stack_bottom), kRW,
                                 "the stack and the trap stack")),
      add(tables, Region::guard_page(memory.heap_guard.begin, memory.heap_guard.size(),
                                     "heap overflow: guard page past the heap's end")),
      add(tables,
          Region::guard_page(memory.arena_guard_below.begin, memory.arena_guard_below.size(),
                             "guard page below the coroutine frame arena")),
      add(tables,
          Region::guard_page(memory.arena_guard_above.begin, memory.arena_guard_above.size(),
                             "guard page past the coroutine frame arena")),
  };
  for (const auto& r : results) {
    if (!r.ok()) return r;
  }
  // The device tree, read-only: whole pages (it shares none with free memory,
  // which the page allocator rounded inward).
  auto tree = fdt::DeviceTree::open(mem::to_pointer(dtb), fdt::kMaxFirmwareTreeBytes);
  if (!tree.ok()) return Unexpected(tree.error());
  const PhysAddr tree_begin = mem::align_down(dtb, mem::kPageSize);
  PhysAddr tree_end = 0;
  if (!mem::align_up(dtb + tree->bytes().size(), mem::kPageSize, &tree_end)) {
    return Unexpected(Error::kInvalidArgument);
  }
  if (auto ok = add(tables, Region::mapped(tree_begin, tree_end - tree_begin, sv39::kRead,
                                           "the device tree"));
      !ok.ok()) {
    return ok;
  }
  // The initrd (boot files), read-only, whole pages: the page allocator
  // took none of its pages (rounded inward around it).
  if (!memory.initrd.empty()) {
    const PhysAddr begin = mem::align_down(memory.initrd.begin, mem::kPageSize);
    PhysAddr end = 0;
    if (!mem::align_up(memory.initrd.end, mem::kPageSize, &end)) {
      return Unexpected(Error::kInvalidArgument);
    }
    if (auto ok =
            add(tables, Region::mapped(begin, end - begin, sv39::kRead, "the initrd (boot files)"));
        !ok.ok()) {
      return ok;
    }
  }
  // Free memory: the heap and the arena by name, the rest the page
  // allocator's (DMA rings and buffers, table pages), minus the guards.
  mem::RangeSet rest = memory.free;
  for (const mem::PhysRange& taken : {memory.heap, memory.heap_guard, memory.arena,
                                      memory.arena_guard_below, memory.arena_guard_above}) {
    if (auto ok = rest.subtract(taken); !ok.ok()) return ok;
  }
  if (auto ok = add(tables, Region::mapped(memory.heap.begin, memory.heap.size(), kRW, "the heap"));
      !ok.ok()) {
    return ok;
  }
  if (auto ok = add(tables, Region::mapped(memory.arena.begin, memory.arena.size(), kRW,
                                           "the coroutine frame arena"));
      !ok.ok()) {
    return ok;
  }
  for (const mem::PhysRange& range : rest.ranges()) {
    // Whole pages only, as the page allocator took them (rounded inward).
    PhysAddr begin = 0;
    if (!mem::align_up(range.begin, mem::kPageSize, &begin)) continue;
    const PhysAddr end = mem::align_down(range.end, mem::kPageSize);
    if (end <= begin) continue;
    if (auto ok = add(tables, Region::mapped(begin, end - begin, kRW, "page allocator memory"));
        !ok.ok()) {
      return ok;
    }
  }
  for (const board::DeviceRegion& device : board::device_regions()) {
    if (auto ok = add(tables, Region::mapped(device.base, device.size, kRW, device.name));
        !ok.ok()) {
      return ok;
    }
  }
  return {};
}

}  // namespace

Result<PagingSummary> enable_paging(unsigned long dtb) {
  static sv39::PageTables tables({.allocate = &table_page, .context = nullptr});
  if (auto built = build(tables, dtb); !built.ok()) return Unexpected(built.error());
  for (const Region& region : layout.regions()) print_region(region);
  riscv::set_page_fault_describer(&describe);
  // A fence on each side of the satp write, as Linux does (head.S fences
  // before loading the trampoline table because setup_vm() "just wrote
  // these PTEs"; local_flush_tlb_all() after). Before: the page-table walker's
  // implicit reads are not ordered after our stores to the tables by
  // anything else in RVWMO (the privileged spec orders them only through
  // sfence.vma), so a hart could walk a table it has not yet seen written.
  // After: drops any translation cached before. Identity-mapped, so the
  // next instruction's address means the same thing after the write.
  asm volatile("sfence.vma zero, zero" ::: "memory");
  riscv::csr_write<riscv::Csr::kSatp>(tables.satp());
  asm volatile("sfence.vma zero, zero" ::: "memory");
  PagingSummary summary;
  summary.counts = tables.counts();
  summary.table_bytes = summary.counts.tables * mem::kPageSize;
  return summary;
}

const mem::MemoryLayout& memory_layout() {
  return layout;
}

}  // namespace starling::boot
