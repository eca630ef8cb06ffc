#include "drivers/uart/model/dw_apb_uart_model.h"

namespace starling::model {
namespace {

// 16550 registers at 4-byte strides (JH7110: reg-shift 2, reg-io-width 4),
// and the DesignWare USR.
constexpr std::uint32_t kRbrThrDll = 0x00;
constexpr std::uint32_t kIerDlm = 0x04;
constexpr std::uint32_t kIirFcr = 0x08;
constexpr std::uint32_t kLcr = 0x0C;
constexpr std::uint32_t kMcr = 0x10;
constexpr std::uint32_t kLsr = 0x14;
constexpr std::uint32_t kUsr = 0x7C;

constexpr std::uint32_t kLcrDlab = 0x80;
constexpr std::uint32_t kIerErbfi = 0x01;
constexpr std::uint32_t kFcrEnable = 0x01, kFcrClearRx = 0x02;
constexpr std::uint32_t kLsrDr = 0x01, kLsrThre = 0x20, kLsrTemt = 0x40;
// IIR: 3:0 IID (0001 none, 0100 received data, 0111 busy detect), 7:6 FIFOs on.
constexpr std::uint32_t kIidNone = 0x1, kIidRxData = 0x4, kIidBusyDetect = 0x7;
constexpr std::uint32_t kIirFifos = 0xC0;
constexpr std::uint32_t kUsrBusy = 0x01;

}  // namespace

bool DwApbUartModel::interrupt_line() const {
  return busy_detect_ || ((ier_ & kIerErbfi) != 0 && !rx_.empty());
}

std::uint32_t DwApbUartModel::read32(std::uint32_t offset) {
  const bool dlab = (lcr_ & kLcrDlab) != 0;
  switch (offset) {
    case kRbrThrDll: {
      if (dlab) return dll_;
      if (rx_.empty()) return 0;
      const std::uint8_t byte = rx_.front();
      rx_.pop_front();
      return byte;
    }
    case kIerDlm:
      return dlab ? dlm_ : ier_;
    case kIirFcr: {
      ++counters_.iir_reads;
      const std::uint32_t fifos = fifos_ ? kIirFifos : 0;
      if (busy_detect_) return fifos | kIidBusyDetect;
      if ((ier_ & kIerErbfi) != 0 && !rx_.empty()) return fifos | kIidRxData;
      return fifos | kIidNone;
    }
    case kLcr:
      return lcr_;
    case kMcr:
      return mcr_;
    case kLsr:
      return (rx_.empty() ? 0 : kLsrDr) | kLsrThre | kLsrTemt;
    case kUsr:
      ++counters_.usr_reads;
      busy_detect_ = false;  // the only way to clear it
      return busy() ? kUsrBusy : 0;
    default:
      return 0;
  }
}

void DwApbUartModel::write32(std::uint32_t offset, std::uint32_t value) {
  const bool dlab = (lcr_ & kLcrDlab) != 0;
  switch (offset) {
    case kRbrThrDll:
      if (dlab) {
        dll_ = value & 0xFF;
      } else {
        ++counters_.bytes_sent;
      }
      return;
    case kIerDlm:
      (dlab ? dlm_ : ier_) = value & 0xFF;
      return;
    case kIirFcr:
      fifos_ = (value & kFcrEnable) != 0;
      if ((value & kFcrClearRx) != 0) rx_.clear();
      return;
    case kLcr:
      if (busy()) {
        --busy_lcr_writes_;
        ++counters_.lcr_writes_refused;
        busy_detect_ = true;
        return;
      }
      lcr_ = value & 0xFF;
      return;
    case kMcr:
      mcr_ = value & 0xFF;
      return;
    default:
      return;
  }
}

}  // namespace starling::model
