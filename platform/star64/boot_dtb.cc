#include "platform/star64/boot_dtb.h"

namespace starling::board {
namespace {

constinit unsigned long saved_dtb = 0;

}  // namespace

void set_boot_dtb(unsigned long dtb) {
  saved_dtb = dtb;
}

unsigned long boot_dtb() {
  return saved_dtb;
}

}  // namespace starling::board
