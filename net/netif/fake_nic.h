#ifndef STARLING_NET_NETIF_FAKE_NIC_H_
#define STARLING_NET_NETIF_FAKE_NIC_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <deque>
#include <span>
#include <vector>

#include "kernel/async/event.h"
#include "kernel/async/task.h"
#include "kernel/hal/nic.h"
#include "kernel/lib/result.h"

// A hal::Nic for host tests: frames injected by the test come out of
// receive() from kBuffers fixed buffers (handles 0..kBuffers-1); release()
// checks the handle is out; transmit() and transmit_gather() record frames
// (or say kBusy). transmit_gather() also records the fragments it was given
// (where they live, how long) and counts the bytes it copies: a test can
// check a frame reached the "DMA buffer" in one copy straight from the
// pbufs (or the application's span), with no staging copy before.
namespace starling::net::testing {

class FakeNic {
 public:
  static constexpr std::size_t kBuffers = 64;
  // Each "DMA buffer": room for a whole frame, as a driver's 2 KiB are.
  static constexpr std::size_t kBufferBytes = 2048;

  // Queues a frame for receive(); false when every buffer is taken (the
  // device would drop it).
  // `checksum_verified`: the frame comes out marked as one whose TCP/UDP
  // checksum the device vouched for (virtio-net DATA_VALID).
  bool inject(std::span<const std::byte> frame, bool checksum_verified = false) {
    for (std::size_t i = 0; i < kBuffers; ++i) {
      if (state_[i] != State::kFree) continue;
      std::memcpy(buffers_[i].data(), frame.data(), frame.size());
      lengths_[i] = frame.size();
      verified_[i] = checksum_verified;
      state_[i] = State::kFilled;
      filled_.push_back(static_cast<hal::RxHandle>(i));
      work_.set();
      return true;
    }
    ++stats_.rx_drops;
    return false;
  }

  std::size_t receive(std::span<hal::RxFrame> out) {
    std::size_t n = 0;
    while (n < out.size() && !filled_.empty()) {
      const hal::RxHandle h = filled_.front();
      filled_.pop_front();
      state_[h] = State::kWithStack;
      out[n++] = hal::RxFrame{.data = std::span(buffers_[h].data(), lengths_[h]),
                              .handle = h,
                              .checksum_verified = verified_[h]};
      ++stats_.rx_frames;
    }
    return n;
  }
  Result<void> release(hal::RxHandle h) {
    if (h >= kBuffers || state_[h] != State::kWithStack) {
      ++bad_releases;
      return Unexpected(Error::kInvalidArgument);
    }
    state_[h] = State::kFree;
    ++releases;
    return {};
  }
  Result<void> release(std::span<const hal::RxHandle> handles) {
    Result<void> r;
    for (auto h : handles) {
      if (auto ok = release(h); !ok.ok()) r = ok;
    }
    return r;
  }
  // As kernel/hal/nic.h says: frames up to the first empty or oversize one
  // are sent; that one first is kInvalidArgument (checked before kBusy, as
  // nic::RingDriver checks before it takes a slot).
  Result<std::size_t> transmit(std::span<const std::span<const std::byte>> frames) {
    std::size_t valid = 0;
    while (valid < frames.size() && !frames[valid].empty() &&
           frames[valid].size() <= hal::kMaxFrameBytes) {
      ++valid;
    }
    if (valid == 0 && !frames.empty()) return Unexpected(Error::kInvalidArgument);
    if (busy) {
      ++stats_.tx_busy;
      return Unexpected(Error::kBusy);
    }
    for (auto f : frames.first(valid)) sent.emplace_back(f.begin(), f.end());
    stats_.tx_frames += valid;
    work_.set();
    return valid;
  }
  Result<void> transmit_gather(std::span<const hal::TxFragment> fragments) {
    std::size_t bytes = 0;
    for (auto f : fragments) bytes += f.size();
    if (bytes == 0 || bytes > hal::kMaxFrameBytes) return Unexpected(Error::kInvalidArgument);
    if (busy) {
      ++stats_.tx_busy;
      return Unexpected(Error::kBusy);
    }
    std::vector<std::byte> frame(bytes);  // stands in for the DMA buffer
    std::size_t at = 0;
    std::vector<hal::TxFragment> seen;
    for (auto f : fragments) {
      if (!f.empty()) std::memcpy(frame.data() + at, f.data(), f.size());
      at += f.size();
      bytes_copied += f.size();
      seen.push_back(f);
    }
    sent.push_back(std::move(frame));
    sent_fragments.push_back(std::move(seen));
    ++gathers;
    ++stats_.tx_frames;
    work_.set();
    return {};
  }
  // Sent at once (recorded like transmit()), so no buffer stays on loan;
  // counts frames and checks each lies inside the buffer of a held handle.
  Result<std::size_t> transmit_in_place(std::span<const hal::RxFrame> frames) {
    if (busy) {
      ++stats_.tx_busy;
      return Unexpected(Error::kBusy);
    }
    std::size_t count = 0;
    for (const hal::RxFrame& f : frames) {
      const bool inside = f.handle < kBuffers && state_[f.handle] == State::kWithStack &&
                          !f.data.empty() && f.data.size() <= hal::kMaxFrameBytes &&
                          inside_buffer(f.handle, f.data);
      if (!inside) {
        if (count == 0) return Unexpected(Error::kInvalidArgument);
        break;
      }
      sent.emplace_back(f.data.begin(), f.data.end());
      ++count;
    }
    stats_.tx_frames += count;
    stats_.tx_in_place += count;
    work_.set();
    return count;
  }
  hal::TxChecksumOffload enable_tx_checksum_offload() { return tx_offload; }
  void set_multicast_groups(std::span<const hal::MacAddress> groups) {
    multicast_groups.assign(groups.begin(), groups.end());
  }
  hal::MacAddress mac() const { return hal::MacAddress{{0x52, 0x54, 0x00, 0x12, 0x34, 0x56}}; }
  hal::LinkState link() const { return link_state; }
  const hal::NicStats& stats() const { return stats_; }
  async::Task<void> wait_for_work() {
    co_await work_.wait();
    work_.reset();
    co_return {};
  }
  void kick() { work_.set(); }

  std::size_t with_stack() const {
    std::size_t n = 0;
    for (auto s : state_) n += s == State::kWithStack;
    return n;
  }

  std::vector<std::vector<std::byte>> sent;
  // Per transmit_gather() call: the fragments as given (pointers into the
  // caller's memory, valid only during the call: compare, never read).
  std::vector<std::vector<hal::TxFragment>> sent_fragments;
  std::uint64_t gathers = 0;
  std::uint64_t bytes_copied = 0;  // by transmit_gather(): the driver's one copy
  bool busy = false;
  hal::TxChecksumOffload tx_offload;              // what the "device" says it computes on TX
  std::vector<hal::MacAddress> multicast_groups;  // the last set_multicast_groups()
  hal::LinkState link_state = hal::LinkState::kUp;
  std::uint64_t releases = 0;
  std::uint64_t bad_releases = 0;

 private:
  enum class State : std::uint8_t { kFree, kFilled, kWithStack };
  bool inside_buffer(hal::RxHandle h, std::span<const std::byte> data) const {
    return hal::frame_inside_buffer(buffers_[h], data);
  }
  std::array<std::array<std::byte, kBufferBytes>, kBuffers> buffers_{};
  std::array<std::size_t, kBuffers> lengths_{};
  std::array<bool, kBuffers> verified_{};
  std::array<State, kBuffers> state_{};
  std::deque<hal::RxHandle> filled_;
  hal::NicStats stats_;
  async::Event work_;
};

static_assert(hal::Nic<FakeNic>);
// Its capabilities, so that a change of signature cannot quietly drop one
// (the netif would fall back to copying and computing checksums).
static_assert(hal::NicSendsInPlace<FakeNic> && hal::NicOffloadsTxChecksums<FakeNic> &&
              hal::NicFiltersMulticast<FakeNic>);

}  // namespace starling::net::testing

#endif  // STARLING_NET_NETIF_FAKE_NIC_H_
