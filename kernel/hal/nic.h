#ifndef STARLING_KERNEL_HAL_NIC_H_
#define STARLING_KERNEL_HAL_NIC_H_

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>

#include "kernel/lib/result.h"
#include "kernel/text/writer.h"

// A network interface as the network stack sees it: batches of Ethernet
// frames in and out, the MAC address, the link, counters, and a way to sleep
// until there is work.
//
// Hot path = direct calls on the concrete driver the board picks (virtio::Net
// on QEMU, a DWMAC driver on the Star64): no virtual dispatch per frame. The
// `hal::Nic` concept below is the contract each driver is checked against at
// compile time; the board exposes its driver's concrete type.
//
// RX is zero-copy. receive() hands out frames that sit in the driver's own
// DMA buffers (RxFrame: payload span + handle). The stack keeps them as long
// as it likes (an lwIP custom pbuf wraps one) and gives each back with
// release(handle), which re-posts the buffer to the device. A buffer never
// given back is a buffer the device can no longer fill: the driver counts
// frames it had to drop for want of posted buffers.
//
// TX copies once: transmit() copies each frame into a driver DMA buffer and
// hands it to the device. transmit_gather() does the same for one frame
// given as fragments (an lwIP pbuf chain: headers in one pbuf, the payload
// in the caller's own memory), copying each fragment straight into the DMA
// buffer behind the driver's header: no gather into a scratch frame first.
// Both copy synchronously: once they return, the caller's memory is free
// again (what lets a UDP send point a PBUF_REF at the application's span).
// When the device ring is full transmit() accepts fewer frames than offered
// (possibly none), transmit_gather() returns kBusy having written nothing,
// and the caller waits (wait_for_work()) for room: backpressure is a value,
// never a silent drop.
//
// TX without a copy: transmit_in_place() sends received frames from the
// RX buffers they arrived in (rewritten in place: a reflector swaps MACs, a
// UDP echo writes its headers in front of the payload it got). The stack
// keeps its handle and releases it as usual; a buffer still being sent when
// it is released goes back to the device when the send completes, not
// before, so the device never fills a buffer it is still reading. Bounded:
// a driver lends at most kMaxRxLoans buffers to its TX ring at once and
// copies past that, so a full TX ring cannot take the RX ring's buffers.
//
// No call allocates from the heap; errors are Result values.
namespace starling::hal {

struct MacAddress {
  std::array<std::uint8_t, 6> bytes{};
  friend bool operator==(const MacAddress&, const MacAddress&) = default;
};

// "6c:cf:39:00:75:5b" into `out` (at least 17 bytes); the length written.
inline std::size_t format_mac(const MacAddress& mac, char* out) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < mac.bytes.size(); ++i) {
    if (i != 0) out[n++] = ':';
    out[n++] = text::hex_digit(mac.bytes[i] >> 4);
    out[n++] = text::hex_digit(mac.bytes[i]);
  }
  return n;
}

enum class LinkState : std::uint8_t { kDown, kUp };

// Counters since the driver started. "errors" are things the device did
// wrong (a used-ring id not outstanding, a length beyond the buffer): counted,
// the buffer re-posted, the value never trusted.
struct NicStats {
  std::uint64_t rx_frames = 0;
  std::uint64_t rx_bytes = 0;   // Ethernet bytes, headers included, no FCS
  std::uint64_t rx_drops = 0;   // frames given up (too short, no buffer)
  std::uint64_t rx_errors = 0;  // device misbehaviour on the RX queue
  std::uint64_t tx_frames = 0;
  std::uint64_t tx_bytes = 0;
  std::uint64_t tx_drops = 0;            // frames lost after acceptance (device reset)
  std::uint64_t tx_errors = 0;           // device misbehaviour on the TX queue
  std::uint64_t tx_busy = 0;             // transmit() calls that found the ring full
  std::uint64_t tx_in_place = 0;         // frames sent from their RX buffer (no copy)
  std::uint64_t tx_in_place_copied = 0;  // ... asked for, but copied (loan limit, already sending)
  std::uint64_t interrupts = 0;
  std::uint64_t config_changes = 0;
  std::uint64_t resets = 0;               // device asked for a reset and got one
  std::uint64_t config_unsettled = 0;     // config reads given up: the device kept changing it
  std::uint64_t rx_filter_updates = 0;    // the NIC's multicast filter programmed
  std::uint64_t rx_filter_fallbacks = 0;  // ... left passing all multicast instead (too many
                                          // groups, the device refused or never answered)
  // Self-tests of the data path the driver ran (a DWMAC's loopback frame
  // at first power-on), by outcome. A driver without one leaves both 0.
  std::uint64_t selftests_passed = 0;
  std::uint64_t selftests_failed = 0;
};

// Which driver buffer a received frame lives in; give it back with release().
using RxHandle = std::uint32_t;

// A received frame: `data` is the Ethernet frame (destination MAC first),
// inside the driver's buffer, valid until release(handle).
// `checksum_verified`: the device vouches for this frame's TCP/UDP checksum
// (virtio-net DATA_VALID, or NEEDS_CSUM from a host stack that never put
// it on a wire), so the stack need not check it again; false means nothing
// was vouched for and the stack checks it in software.
struct RxFrame {
  std::span<std::byte> data;
  RxHandle handle = 0;
  bool checksum_verified = false;
};

// Checksums a NIC computes itself on transmit (the stack leaves them out:
// lwIP's per-netif checksum control). A NIC that fills in a checksum the
// stack has already computed (a DWMAC inserting over software sums) says
// so here only if it computes it whole, pseudo-header included.
struct TxChecksumOffload {
  bool ipv4_header = false;
  bool udp = false;  // over IPv4
  bool tcp = false;  // over IPv4
  bool icmp = false;
  friend bool operator==(const TxChecksumOffload&, const TxChecksumOffload&) = default;
};

// Largest Ethernet frame (no FCS, one VLAN tag) every driver accepts.
inline constexpr std::size_t kMaxFrameBytes = 1518;

// RX buffers a driver lends its TX ring at once (transmit_in_place); a
// frame past the limit is copied instead (tx_in_place_copied).
inline constexpr std::size_t kMaxRxLoans = 32;

// True if `frame` lies wholly inside `buffer`, starting at least `headroom`
// bytes in (room a driver writes its own header into, e.g. virtio-net's):
// the check before a frame is sent in place from the RX buffer it names.
inline bool frame_inside_buffer(std::span<const std::byte> buffer, std::span<const std::byte> frame,
                                std::size_t headroom = 0) {
  const auto start = reinterpret_cast<std::uintptr_t>(buffer.data());
  const auto at = reinterpret_cast<std::uintptr_t>(frame.data());
  return at >= start + headroom && at - start + frame.size() <= buffer.size();
}

// One piece of a frame for transmit_gather(): the frame is the fragments'
// bytes back to back. Empty fragments are allowed (and contribute nothing).
using TxFragment = std::span<const std::byte>;

// What every NIC driver provides. `wait_for_work()` returns an awaitable
// (typically async::Task<void>) that completes when received frames, room in
// the TX ring or a link change may be waiting; it may complete spuriously.
// What a device may or may not do (send from RX buffers, compute checksums,
// filter multicast) is a capability below: a driver declares one by having
// the operation, and the stack asks with the concept (if constexpr), doing
// the work itself for a NIC without it.
template <typename N>
concept Nic =
    requires(N& nic, const N& cnic, std::span<RxFrame> rx, RxHandle handle,
             std::span<const RxHandle> handles, std::span<const std::span<const std::byte>> tx,
             std::span<const TxFragment> fragments) {
      // Up to rx.size() received frames, fills rx front to back; never waits.
      { nic.receive(rx) } -> std::same_as<std::size_t>;
      // Gives buffers back to the device. kInvalidArgument (counted as nothing
      // else) for a handle that is not out with the stack.
      { nic.release(handle) } -> std::same_as<Result<void>>;
      { nic.release(handles) } -> std::same_as<Result<void>>;
      // Copies frames (each <= kMaxFrameBytes) into the TX ring in order; how
      // many were accepted, kBusy if none fit, kInvalidArgument for a frame too
      // long or empty (no frame from it on is sent).
      { nic.transmit(tx) } -> std::same_as<Result<std::size_t>>;
      // One frame from `fragments`, each copied once, straight into a TX DMA
      // buffer. kBusy (counted in tx_busy) if the ring is full: nothing
      // written, nothing posted; kInvalidArgument if the fragments total 0 or
      // more than kMaxFrameBytes bytes.
      { nic.transmit_gather(fragments) } -> std::same_as<Result<void>>;
      { cnic.mac() } -> std::same_as<MacAddress>;
      { cnic.link() } -> std::same_as<LinkState>;
      { cnic.stats() } -> std::same_as<const NicStats&>;
      nic.wait_for_work();
    };

// Capability: sends received frames from their own buffers, in order: each
// frame's `data` (1..kMaxFrameBytes bytes, inside the buffer of its
// `handle`, which the stack holds) goes out without a copy, or copied when
// the driver cannot send it from there (counted). How many were accepted,
// kBusy if none (the ring is full), kInvalidArgument for a handle not held
// or a frame outside its buffer (no frame from it on is sent). The stack
// keeps each handle; it must not write the frame again until it has
// released it. Without it the netif sends such a reply with
// transmit_gather (one copy).
template <typename N>
concept NicSendsInPlace = Nic<N> && requires(N& nic, std::span<const RxFrame> in_place) {
  { nic.transmit_in_place(in_place) } -> std::same_as<Result<std::size_t>>;
};

// Capability: computes transmit checksums. enable_tx_checksum_offload()
// turns on those the NIC can compute and says which; from then on the stack
// leaves them out of every frame it sends. Until called, nothing a sender
// gives depends on the NIC: virtio-net sends frames exactly as given (a raw
// sender such as apps/reflector never calls it), a DWMAC still re-inserts
// every checksum over what the fields hold (CIC = 11 on every frame), as it
// always has. Without it lwIP computes every checksum.
template <typename N>
concept NicOffloadsTxChecksums = Nic<N> && requires(N& nic) {
  { nic.enable_tx_checksum_offload() } -> std::same_as<TxChecksumOffload>;
};

// Capability: a multicast filter. set_multicast_groups() gives the Ethernet
// group addresses the stack has joined (IPv6's all-nodes and
// solicited-node groups), replacing the last set; the NIC then receives
// those groups (and broadcast) and may drop other group frames. Until
// called, and without the capability, a NIC receives every multicast
// frame, and the netif's own filter drops what was not joined.
template <typename N>
concept NicFiltersMulticast = Nic<N> && requires(N& nic, std::span<const MacAddress> groups) {
  { nic.set_multicast_groups(groups) } -> std::same_as<void>;
};

}  // namespace starling::hal

#endif  // STARLING_KERNEL_HAL_NIC_H_
