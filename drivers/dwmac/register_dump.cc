// What a person at a first power-on needs to see when the port does not
// work (docs/star64.md, "First power-on"): the DMA set-up read back from
// the registers after init (BoardParams::debug), and a transmitter that
// stopped, found at the link poll and reported once with the DMA's state.
// The clocks, resets and the PHY-interface mode before and after the board
// wrote them are the board's to print (platform/star64/gmac0.cc).

#include "drivers/dwmac/dwmac.h"
#include "kernel/console/console.h"
#include "kernel/console/report_limit.h"

namespace starling::dwmac {
namespace {

using namespace reg;

struct Named {
  const char* name;
  std::uint32_t offset;
};

// One console line: "dwmac: <title>: NAME 0x... NAME 0x... ...".
void print_registers(const mmio::Registers& regs, const char* title,
                     std::initializer_list<Named> registers) {
  console::print("dwmac: ");
  console::print(title);
  console::print(":");
  for (const Named& r : registers) {
    console::print(" ");
    console::print(r.name);
    console::print(" ");
    console::print_hex(regs.read(r.offset));
  }
  console::print("\n");
}

}  // namespace

void Dwmac::dump_dma_setup() const {
  print_registers(regs_, "debug: DMA read back",
                  {{"DMA_MODE", kDmaMode},
                   {"DMA_SYSBUS_MODE", kDmaSysbusMode},
                   {"DMA_CH0_CONTROL", kDmaCh0Control},
                   {"DMA_CH0_TX_CONTROL", kDmaCh0TxControl},
                   {"DMA_CH0_RX_CONTROL", kDmaCh0RxControl}});
  print_registers(regs_, "debug: rings and MTL read back",
                  {{"TXDESC_LIST", kDmaCh0TxDescListAddress},
                   {"RXDESC_LIST", kDmaCh0RxDescListAddress},
                   {"TX_RING_LEN", kDmaCh0TxDescRingLength},
                   {"RX_RING_LEN", kDmaCh0RxDescRingLength},
                   {"MTL_TXQ0_OPERATION_MODE", kMtlTxq0OperationMode},
                   {"MTL_RXQ0_OPERATION_MODE", kMtlRxq0OperationMode}});
  print_registers(regs_, "debug: MAC read back",
                  {{"MAC_CONFIGURATION", kMacConfiguration},
                   {"MAC_PACKET_FILTER", kMacPacketFilter},
                   {"MAC_RXQ_CTRL0", kMacRxqCtrl0},
                   {"MAC_VERSION", kMacVersion},
                   {"MAC_HW_FEATURE0", kMacHwFeature0},
                   {"MAC_HW_FEATURE1", kMacHwFeature1}});
}

void Dwmac::dump_tx_state() const {
  print_registers(regs_, "debug: TX state",
                  {{"DMA_CH0_STATUS", kDmaCh0Status},
                   {"DMA_DEBUG_STATUS0", kDmaDebugStatus0},
                   {"DMA_CH0_TX_CONTROL", kDmaCh0TxControl},
                   {"CURRENT_TXDESC", kDmaCh0CurrentTxDesc},
                   {"CURRENT_TXBUFFER", kDmaCh0CurrentTxBuffer},
                   {"MTL_TXQ0_DEBUG", kMtlTxq0Debug},
                   {"MAC_DEBUG", kMacDebug},
                   {"MAC_CONFIGURATION", kMacConfiguration}});
  console::print("dwmac: debug: TX ring: next to clean ");
  console::print_dec(tx_clean_ % kTxRingSize);
  console::print(", next to fill ");
  console::print_dec(tx_head_ % kTxRingSize);
  console::print(", TDES3 of the oldest ");
  console::print_hex(tx_ring_[tx_clean_ % kTxRingSize].load(3));
  console::print(" at ");
  console::print_hex(tx_ring_phys_ + (tx_clean_ % kTxRingSize) * sizeof(Descriptor));
  console::print("\n");
}

// Linux's netdev watchdog calls a queue stopped for 5 s a TX timeout; here
// the link poll (every 0.5 s) looks: frames in flight at two polls in a row
// with none completed between them. Only while the link is up: with it
// down the transmitter is off (stop_mac()) and frames wait on purpose.
void Dwmac::check_tx_progress() {
  reclaim_tx();  // what completed while the driver slept counts as progress
  const bool in_flight = link_.up && tx_in_flight() != 0;
  if (in_flight && tx_in_flight_at_poll_ && tx_clean_ == tx_clean_at_poll_) {
    ++driver_stats_.tx_timeouts;
    if (console::worth_reporting(driver_stats_.tx_timeouts)) {
      console::print("dwmac: TX timeout: ");
      console::print_dec(tx_in_flight());
      console::print(" frames in flight, none sent for 0.5 s");
      console::print(params_.debug ? "\n" : " (starling.gmac=debug shows the DMA's state)\n");
    }
    if (params_.debug && driver_stats_.tx_timeouts == 1) dump_tx_state();
  }
  tx_in_flight_at_poll_ = in_flight;
  tx_clean_at_poll_ = tx_clean_;
}

}  // namespace starling::dwmac
