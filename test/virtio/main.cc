// virtio-net end to end without a network stack (modern or legacy
// virtio-mmio, whichever QEMU offers): probe the NIC, print its
// MAC and link, send a hand-built ARP request for QEMU user networking's
// gateway (10.0.2.2) from 10.0.2.15, and wait (bounded) for slirp's reply.
// Proves TX, RX and the device interrupt. Exit code 0 on a reply.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "drivers/irq/irq.h"
#include "kernel/async/executor.h"
#include "kernel/async/scope.h"
#include "kernel/async/sleep.h"
#include "kernel/async/task.h"
#include "kernel/async/timeout.h"
#include "kernel/boot/app.h"
#include "kernel/boot/memory.h"
#include "kernel/console/console.h"
#include "kernel/hal/nic.h"
#include "kernel/text/writer.h"
#include "platform/qemu_virt/nic.h"

namespace starling {
namespace {

using console::print;

constexpr std::array<std::uint8_t, 4> kOurIp = {10, 0, 2, 15};
constexpr std::array<std::uint8_t, 4> kGatewayIp = {10, 0, 2, 2};
constexpr std::uint16_t kEtherTypeArp = 0x0806;
constexpr std::uint64_t kReplyTimeoutNs = 3000 * async::kMillisecond;

void print_byte_hex(std::uint8_t b) {
  const char s[2] = {text::hex_digit(b >> 4), text::hex_digit(b)};
  print(std::string_view(s, 2));
}

void print_mac(const hal::MacAddress& mac) {
  char text[17];
  print(std::string_view(text, hal::format_mac(mac, text)));
}

void print_ip(const std::uint8_t* ip) {
  for (int i = 0; i < 4; ++i) {
    if (i != 0) print(".");
    console::print_dec(ip[i]);
  }
}

void print_stat(const char* name, std::uint64_t value) {
  print(" ");
  print(name);
  print(" ");
  console::print_dec(static_cast<std::int64_t>(value));
}

// Ethernet (14) + ARP for IPv4 over Ethernet (28), padded to the 60-byte
// minimum.
std::array<std::byte, 60> arp_request(const hal::MacAddress& mac) {
  std::array<std::uint8_t, 60> f{};
  for (int i = 0; i < 6; ++i) f[i] = 0xff;  // broadcast
  for (int i = 0; i < 6; ++i) f[6 + i] = mac.bytes[i];
  f[12] = kEtherTypeArp >> 8;
  f[13] = kEtherTypeArp & 0xff;
  f[14] = 0x00, f[15] = 0x01;  // htype Ethernet
  f[16] = 0x08, f[17] = 0x00;  // ptype IPv4
  f[18] = 6, f[19] = 4;        // hlen, plen
  f[20] = 0x00, f[21] = 0x01;  // request
  for (int i = 0; i < 6; ++i) f[22 + i] = mac.bytes[i];
  for (int i = 0; i < 4; ++i) f[28 + i] = kOurIp[i];
  // target hardware address 0 (32..37)
  for (int i = 0; i < 4; ++i) f[38 + i] = kGatewayIp[i];
  std::array<std::byte, 60> out{};
  for (std::size_t i = 0; i < f.size(); ++i) out[i] = static_cast<std::byte>(f[i]);
  return out;
}

bool is_arp_reply_from_gateway(std::span<const std::byte> frame, std::uint8_t* sender_mac) {
  if (frame.size() < 42) return false;
  auto at = [&](std::size_t i) { return static_cast<std::uint8_t>(frame[i]); };
  if (at(12) != (kEtherTypeArp >> 8) || at(13) != (kEtherTypeArp & 0xff)) return false;
  if (at(20) != 0 || at(21) != 2) return false;  // reply
  for (int i = 0; i < 4; ++i) {
    if (at(28 + i) != kGatewayIp[i] || at(38 + i) != kOurIp[i]) return false;
  }
  for (int i = 0; i < 6; ++i) sender_mac[i] = at(22 + i);
  return true;
}

async::Task<hal::MacAddress> await_arp_reply(board::Nic& nic) {
  std::array<hal::RxFrame, 8> batch;
  for (;;) {
    const std::size_t n = nic.receive(batch);
    hal::MacAddress found;
    bool got = false;
    for (std::size_t i = 0; i < n; ++i) {
      if (!got) got = is_arp_reply_from_gateway(batch[i].data, found.bytes.data());
      (void)nic.release(batch[i].handle);
    }
    if (got) co_return found;
    if (auto ok = co_await nic.wait_for_work(); !ok.ok()) co_return Unexpected(ok.error());
  }
}

// Round two: the receiver is already asleep (device interrupts armed) when
// the request goes out, so the reply can only reach it through the
// virtio-mmio interrupt -> PLIC -> InterruptSource path.
async::Task<void> receive_after_wakeup(board::Nic& nic, hal::MacAddress* out, bool* got) {
  auto reply = co_await async::with_timeout(await_arp_reply(nic), kReplyTimeoutNs);
  if (reply.ok()) {
    *out = *reply;
    *got = true;
  }
  co_return {};
}

async::Task<void> send_later(board::Nic& nic, std::span<const std::byte> frame) {
  co_await async::sleep_for(20 * async::kMillisecond);
  const std::span<const std::byte> frames[] = {frame};
  auto sent = nic.transmit(frames);
  if (!sent.ok()) co_return Unexpected(sent.error());
  co_return {};
}

void print_stats(const hal::NicStats& s) {
  print("virtio: stats");
  print_stat("rx_frames", s.rx_frames);
  print_stat("rx_bytes", s.rx_bytes);
  print_stat("rx_drops", s.rx_drops);
  print_stat("rx_errors", s.rx_errors);
  print_stat("tx_frames", s.tx_frames);
  print_stat("tx_bytes", s.tx_bytes);
  print_stat("tx_drops", s.tx_drops);
  print_stat("tx_errors", s.tx_errors);
  print_stat("tx_busy", s.tx_busy);
  print_stat("interrupts", s.interrupts);
  print("\n");
}

async::Task<int> run() {
  auto probed = board::nic(boot::page_allocator());
  if (!probed.ok()) {
    print("virtio: FAIL no NIC: ");
    print(error_name(probed.error()));
    print("\n");
    co_return 2;
  }
  board::Nic& nic = **probed;
  print("virtio: net device in slot ");
  console::print_dec(board::nic_slot());
  print(nic.legacy() ? " (legacy virtio-mmio, version 1)" : " (modern virtio-mmio, version 2)");
  print(", queues rx ");
  console::print_dec(nic.rx_queue_size());
  print(" tx ");
  console::print_dec(nic.tx_queue_size());
  print(", features 0x");
  print_byte_hex(static_cast<std::uint8_t>(nic.features() >> 32));
  print("_");
  for (int shift = 24; shift >= 0; shift -= 8)
    print_byte_hex(static_cast<std::uint8_t>(nic.features() >> shift));
  print("\nvirtio: mac ");
  print_mac(nic.mac());
  print(nic.link() == hal::LinkState::kUp ? ", link up\n" : ", link down\n");

  const auto request = arp_request(nic.mac());
  const std::span<const std::byte> frames[] = {request};
  auto sent = nic.transmit(frames);
  if (!sent.ok() || *sent != 1) {
    print("virtio: FAIL transmit\n");
    co_return 3;
  }
  print("virtio: ARP request for 10.0.2.2 sent\n");

  auto reply = co_await async::with_timeout(await_arp_reply(nic), kReplyTimeoutNs);
  if (!reply.ok()) {
    print("virtio: FAIL no ARP reply: ");
    print(error_name(reply.error()));
    print("\n");
    print_stats(nic.stats());
    co_return 4;
  }
  print("virtio: ARP reply from ");
  print_ip(kGatewayIp.data());
  print(" at ");
  print_mac(*reply);
  print("\n");

  const std::uint64_t interrupts_before = nic.stats().interrupts;
  const std::uint32_t irq =
      board::kVirtioMmioFirstIrq + static_cast<std::uint32_t>(board::nic_slot());
  const std::uint64_t delivered_before = irq::delivered_count(irq);
  hal::MacAddress second;
  bool got_second = false;
  async::Scope scope;
  (void)scope.spawn(receive_after_wakeup(nic, &second, &got_second));
  (void)scope.spawn(send_later(nic, request));
  auto joined = co_await scope.join();
  const std::uint64_t woken = nic.stats().interrupts - interrupts_before;
  const std::uint64_t delivered = irq::delivered_count(irq) - delivered_before;
  if (!joined.ok() || !got_second || woken == 0 || delivered == 0) {
    print("virtio: FAIL no reply through the interrupt path\n");
    print_stats(nic.stats());
    co_return 5;
  }
  print("virtio: ARP reply after an interrupt wake-up at ");
  print_mac(second);
  print(" (PLIC source ");
  console::print_dec(irq);
  print(", delivered ");
  console::print_dec(static_cast<std::int64_t>(delivered));
  print(")\n");
  print_stats(nic.stats());
  co_return 0;
}

}  // namespace
}  // namespace starling

// The kernel has routed interrupts through the PLIC before this runs.
int starling_app_main(const starling::BootInfo&) {
  starling::async::Executor executor;
  auto code = executor.block_on(starling::run());
  return code.ok() ? *code : 1;
}
