#ifndef STARLING_NET_TCP_HANDOFF_H_
#define STARLING_NET_TCP_HANDOFF_H_

#include <cstdint>
#include <utility>

#include "net/tcp/tcp.h"

// An accepted connection on its way into the task that serves it, passed
// as that task's argument:
//
//   (void)scope.spawn(serve(StreamHandoff(std::move(stream), &resets)));
//   ... Task<void> serve(StreamHandoff h) { TcpStream s = h.take(); ... }
//
// If the task's frame cannot be allocated, the coroutine never runs and
// never takes the stream; the handoff (the caller's temporary) then resets
// the connection and counts it: the client sees an error, not a clean end
// of a service that never happened, and the slot is not held.
namespace starling::net {

class StreamHandoff {
 public:
  StreamHandoff(TcpStream stream, std::uint64_t* resets) noexcept
      : stream_(std::move(stream)), resets_(resets) {}
  StreamHandoff(StreamHandoff&& other) noexcept
      : stream_(std::move(other.stream_)), resets_(other.resets_), taken_(other.taken_) {
    other.taken_ = true;
  }
  StreamHandoff(const StreamHandoff&) = delete;
  StreamHandoff& operator=(const StreamHandoff&) = delete;
  StreamHandoff& operator=(StreamHandoff&&) = delete;
  ~StreamHandoff() {
    if (!taken_) {
      if (resets_ != nullptr) ++*resets_;
      stream_.abort();
    }
  }

  TcpStream take() noexcept {
    taken_ = true;
    return std::move(stream_);
  }

 private:
  TcpStream stream_;
  std::uint64_t* resets_;
  bool taken_ = false;
};

}  // namespace starling::net

#endif  // STARLING_NET_TCP_HANDOFF_H_
