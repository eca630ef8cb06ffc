#ifndef STARLING_PLATFORM_HOST_TAP_H_
#define STARLING_PLATFORM_HOST_TAP_H_

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "kernel/lib/result.h"

// A Linux TAP device: Ethernet frames in and out of the kernel's network
// stack, one read()/write() per frame (IFF_NO_PI: no packet-information
// prefix). The host board's NIC uses one as its wire. Non-blocking: the
// executor learns that frames are waiting from host::watch_fd().
namespace starling::host {

class Tap {
 public:
  Tap() = default;
  ~Tap();
  Tap(const Tap&) = delete;
  Tap& operator=(const Tap&) = delete;

  // Attaches to the TAP device `name` (created beforehand, e.g.
  // `ip tuntap add dev NAME mode tap`, or created here when the process may
  // create one). kNotFound: no /dev/net/tun; kBusy: the device is held or
  // is not a TAP; kUnsupported: no permission (CAP_NET_ADMIN). The console
  // gets a line naming the cause and the fix.
  Result<void> open(std::string_view name);

  int fd() const { return fd_; }

  // Whether the Linux side of the TAP is up (IFF_UP: `ip link set NAME
  // up`/`down`): the host board's cable. kDeviceError if it cannot be asked.
  Result<bool> up();

  // One frame into `buffer`: its length, 0 if none is waiting; kDeviceError
  // if the device went away.
  Result<std::size_t> read(std::span<std::byte> buffer);

  // One frame out. A full kernel queue drops it (counted by the caller, as a
  // wire would lose it); kDeviceError if the device went away.
  Result<void> write(std::span<const std::byte> frame);

 private:
  int fd_ = -1;
  int control_fd_ = -1;  // an AF_INET socket for SIOCGIFFLAGS (up())
  std::string name_;
};

}  // namespace starling::host

#endif  // STARLING_PLATFORM_HOST_TAP_H_
