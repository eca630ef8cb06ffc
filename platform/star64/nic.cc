#include "platform/star64/nic.h"

#include <cstddef>
#include <optional>

#include "kernel/fdt/device_tree.h"
#include "kernel/mem/address.h"
#include "platform/star64/boot_dtb.h"
#include "platform/star64/gmac0.h"

namespace starling::board {
namespace {

constinit bool started = false;
constinit Error start_error = Error::kNotFound;
constinit bool start_ok = false;

}  // namespace

Result<Nic*> nic(mem::PageAllocator& pages) {
  static dwmac::Dwmac gmac;
  if (started) {
    if (!start_ok) return Unexpected(start_error);
    return &gmac;
  }
  started = true;
  std::optional<fdt::DeviceTree> tree;
  if (const unsigned long dtb = boot_dtb(); dtb != 0) {
    if (auto opened = fdt::DeviceTree::open(mem::to_pointer(dtb), fdt::kMaxFirmwareTreeBytes);
        opened.ok()) {
      tree = *opened;
    }
  }
  Gmac0Setup setup;
  setup.tree = tree ? &*tree : nullptr;
  if (auto ok = start_gmac0(gmac, setup, pages); !ok.ok()) {
    start_error = ok.error();
    return Unexpected(ok.error());
  }
  start_ok = true;
  return &gmac;
}

}  // namespace starling::board
