// reflector: the raw layer-2 reflector that bench/echo measures the echo app
// against (docs/benchmarks.md: "the platform's limit"). It takes
// a batch of frames from the board's NIC, swaps each frame's source and
// destination MAC in place, transmits the batch from the buffers it arrived
// in (no copy: transmit_in_place) and releases them (each goes back to the
// RX ring once sent): the least work any echo server on this NIC can do. No lwIP, no ARP: the peer
// needs a static neighbour entry for whatever IP it addresses.
//
// Counters: an Ethernet frame of type kStatsEtherType whose payload starts
// with "STARLING-STATS" is answered (not reflected) by a frame of the same
// type, addressed back to its sender, whose payload is one text line
// "STARLING-STATS reflected=.. tx_dropped=.. instret=.. cycles=.. ...\n".
// The benchmark queries it before and after its measured interval; deltas
// give instructions per reflected frame.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "kernel/async/executor.h"
#include "kernel/async/task.h"
#include "kernel/boot/app.h"
#include "kernel/boot/memory.h"
#include "kernel/console/console.h"
#include "kernel/hal/clock.h"
#include "platform/nic.h"

namespace starling {
namespace {

using console::print;

constexpr std::size_t kBatch = 32;
constexpr std::size_t kMacBytes = 6;
constexpr std::size_t kEthHeaderBytes = 14;
// IEEE 802 "local experimental" EtherType 1: never a real protocol.
constexpr std::uint16_t kStatsEtherType = 0x88B5;
constexpr std::string_view kStatsQuery = "STARLING-STATS";
// A full TX ring: wait for room this many times, then drop the rest (counted).
constexpr int kTransmitRetries = 64;

struct Counters {
  std::uint64_t reflected = 0;
  std::uint64_t tx_dropped = 0;  // the ring stayed full through every retry
  std::uint64_t runts = 0;       // shorter than an Ethernet header
  std::uint64_t stats_queries = 0;
};

std::uint16_t ether_type(std::span<const std::byte> frame) {
  return static_cast<std::uint16_t>((std::to_integer<unsigned>(frame[12]) << 8) |
                                    std::to_integer<unsigned>(frame[13]));
}

void swap_macs(std::span<std::byte> frame) {
  for (std::size_t i = 0; i < kMacBytes; ++i) {
    const std::byte t = frame[i];
    frame[i] = frame[kMacBytes + i];
    frame[kMacBytes + i] = t;
  }
}

bool is_stats_query(std::span<const std::byte> frame) {
  if (frame.size() < kEthHeaderBytes + kStatsQuery.size()) return false;
  if (ether_type(frame) != kStatsEtherType) return false;
  for (std::size_t i = 0; i < kStatsQuery.size(); ++i) {
    if (static_cast<char>(frame[kEthHeaderBytes + i]) != kStatsQuery[i]) return false;
  }
  return true;
}

// Appends " key=value"; returns the new length (unchanged if it does not fit).
std::size_t append_stat(std::span<std::byte> out, std::size_t used, std::string_view key,
                        std::uint64_t value) {
  char digits[24];
  std::size_t n = 0;
  do {
    digits[n++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0);
  if (used + 2 + key.size() + n >= out.size()) return used;
  out[used++] = std::byte{' '};
  for (char c : key) out[used++] = static_cast<std::byte>(c);
  out[used++] = std::byte{'='};
  while (n != 0) out[used++] = static_cast<std::byte>(digits[--n]);
  return used;
}

// The answer to a stats query, built in `out` (a whole frame); its length.
std::size_t stats_frame(std::span<const std::byte> query, const board::Nic& nic,
                        const Counters& counters, std::span<std::byte> out) {
  // Destination = the query's source, source = the query's destination.
  for (std::size_t i = 0; i < kMacBytes; ++i) {
    out[i] = query[kMacBytes + i];
    out[kMacBytes + i] = query[i];
  }
  out[12] = std::byte{kStatsEtherType >> 8};
  out[13] = std::byte{kStatsEtherType & 0xFF};
  std::size_t used = kEthHeaderBytes;
  for (char c : kStatsQuery) out[used++] = static_cast<std::byte>(c);
  const auto& s = nic.stats();
  const auto& executor = async::Executor::current();
  used = append_stat(out, used, "reflected", counters.reflected);
  used = append_stat(out, used, "tx_dropped", counters.tx_dropped);
  used = append_stat(out, used, "runts", counters.runts);
  used = append_stat(out, used, "stats_queries", counters.stats_queries);
  used = append_stat(out, used, "nic_rx_frames", s.rx_frames);
  used = append_stat(out, used, "nic_rx_drops", s.rx_drops);
  used = append_stat(out, used, "nic_tx_frames", s.tx_frames);
  used = append_stat(out, used, "nic_tx_busy", s.tx_busy);
  used = append_stat(out, used, "nic_interrupts", s.interrupts);
  used = append_stat(out, used, "nic_tx_in_place", s.tx_in_place);
  used = append_stat(out, used, "nic_tx_in_place_copied", s.tx_in_place_copied);
  used = append_stat(out, used, "idle_cycles", executor.idle_cycles());
  used = append_stat(out, used, "total_cycles", executor.total_cycles());
  used = append_stat(out, used, "uptime_ns", hal::now_ns());
  used = append_stat(out, used, "cycles", hal::cycles());
  used = append_stat(out, used, "instret", hal::instructions());
  if (used < out.size()) out[used++] = std::byte{'\n'};
  return used;
}

// Sends frames[0..n) from their own buffers; a full ring waits for room, a
// bounded number of times.
async::Task<void> transmit_all(board::Nic& nic, std::span<const hal::RxFrame> frames,
                               Counters& counters) {
  std::size_t sent = 0;
  for (int attempt = 0; sent < frames.size() && attempt < kTransmitRetries; ++attempt) {
    auto accepted = nic.transmit_in_place(frames.subspan(sent));
    if (accepted.ok()) {
      sent += *accepted;
      if (sent == frames.size()) break;
    } else if (accepted.error() != Error::kBusy) {
      ++sent;  // a frame the driver refuses (too long): skip it, counted below
      ++counters.tx_dropped;
      continue;
    }
    auto woke = co_await nic.wait_for_work();
    if (!woke.ok()) co_return woke;
  }
  counters.reflected += sent;
  counters.tx_dropped += frames.size() - sent;
  co_return Result<void>{};
}

async::Task<int> reflect(const BootInfo&) {
  auto opened = board::nic(boot::page_allocator());
  if (!opened.ok()) {
    print("reflector: FAIL no NIC: ");
    print(error_name(opened.error()));
    print("\n");
    co_return 2;
  }
  board::Nic& nic = **opened;
  Counters counters;
  std::array<hal::RxFrame, kBatch> batch;
  std::array<hal::RxFrame, kBatch> out;
  std::array<hal::RxHandle, kBatch> handles;
  std::array<std::byte, hal::kMaxFrameBytes> stats_buffer;
  print("reflector: ready\n");
  for (;;) {
    const std::size_t n = nic.receive(batch);
    if (n == 0) {
      auto woke = co_await nic.wait_for_work();
      if (!woke.ok()) {
        print("reflector: FAIL wait: ");
        print(error_name(woke.error()));
        print("\n");
        co_return 3;
      }
      continue;
    }
    std::size_t count = 0;
    for (std::size_t i = 0; i < n; ++i) {
      handles[i] = batch[i].handle;
      const std::span<std::byte> frame = batch[i].data;
      if (frame.size() < kEthHeaderBytes) {
        ++counters.runts;
        continue;
      }
      if (is_stats_query(frame)) {
        ++counters.stats_queries;
        const std::size_t len = stats_frame(frame, nic, counters, stats_buffer);
        const std::span<const std::byte> reply(stats_buffer.data(), len);
        // Sent on its own so it is not counted as a reflected frame.
        (void)nic.transmit(std::span(&reply, 1));
        continue;
      }
      swap_macs(frame);
      out[count++] = batch[i];
    }
    // The usual case, a ring with room for the batch, without a coroutine
    // (transmit_all's frame cost ~200 instructions per batch); the rest,
    // if any, waits for room.
    const std::span<const hal::RxFrame> frames(out.data(), count);
    std::size_t accepted = 0;
    if (count != 0) {
      if (auto first = nic.transmit_in_place(frames); first.ok()) accepted = *first;
    }
    counters.reflected += accepted;
    Result<void> sent;
    if (accepted < count) sent = co_await transmit_all(nic, frames.subspan(accepted), counters);
    // Released while still being sent: each goes back to the RX ring when
    // its transmission completes (the driver keeps it until then).
    (void)nic.release(std::span<const hal::RxHandle>(handles.data(), n));
    if (!sent.ok()) {
      print("reflector: FAIL transmit: ");
      print(error_name(sent.error()));
      print("\n");
      co_return 4;
    }
  }
}

}  // namespace
}  // namespace starling

int starling_app_main(const starling::BootInfo& boot) {
  starling::async::Executor executor;
  auto code = executor.block_on(starling::reflect(boot));
  return code.ok() ? *code : 1;
}
