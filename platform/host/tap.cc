#include "platform/host/tap.h"

#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "kernel/console/console.h"

namespace starling::host {
namespace {

void explain(const char* what, std::string_view name, int error) {
  console::print("host: TAP ");
  console::print(name);
  console::print(": ");
  console::print(what);
  console::print(": ");
  console::print(std::strerror(error));
  console::print("\n");
}

}  // namespace

Tap::~Tap() {
  if (fd_ >= 0) ::close(fd_);
  if (control_fd_ >= 0) ::close(control_fd_);
}

Result<void> Tap::open(std::string_view name) {
  if (name.empty() || name.size() >= IFNAMSIZ) return Unexpected(Error::kInvalidArgument);
  const int fd = ::open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    explain("cannot open /dev/net/tun (fix: modprobe tun)", name, errno);
    return Unexpected(Error::kNotFound);
  }
  ifreq request{};
  request.ifr_flags = IFF_TAP | IFF_NO_PI;
  std::memcpy(request.ifr_name, name.data(), name.size());
  if (::ioctl(fd, TUNSETIFF, &request) < 0) {
    const int error = errno;
    ::close(fd);
    if (error == EPERM) {
      explain("not allowed (fix: run as root or with CAP_NET_ADMIN)", name, error);
      return Unexpected(Error::kUnsupported);
    }
    explain("cannot attach (fix: create it with `ip tuntap add dev NAME mode tap`, or free it)",
            name, error);
    return Unexpected(Error::kBusy);
  }
  fd_ = fd;
  name_ = std::string(name);
  return {};
}

// One socket for the interface ioctls, opened at the first question and
// kept: the cable is looked at ten times a second.
Result<bool> Tap::up() {
  if (control_fd_ < 0) control_fd_ = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (control_fd_ < 0) return Unexpected(Error::kDeviceError);
  ifreq request{};
  std::memcpy(request.ifr_name, name_.data(), name_.size());
  if (::ioctl(control_fd_, SIOCGIFFLAGS, &request) < 0) return Unexpected(Error::kDeviceError);
  return (request.ifr_flags & IFF_UP) != 0;
}

Result<std::size_t> Tap::read(std::span<std::byte> buffer) {
  const ssize_t n = ::read(fd_, buffer.data(), buffer.size());
  if (n >= 0) return static_cast<std::size_t>(n);
  if (errno == EAGAIN || errno == EINTR) return std::size_t{0};
  return Unexpected(Error::kDeviceError);
}

Result<void> Tap::write(std::span<const std::byte> frame) {
  const ssize_t n = ::write(fd_, frame.data(), frame.size());
  if (n == static_cast<ssize_t>(frame.size())) return {};
  // A down interface or a full queue loses the frame, as a wire would.
  if (n < 0 && (errno == EAGAIN || errno == EIO || errno == EINTR)) return {};
  return Unexpected(Error::kDeviceError);
}

}  // namespace starling::host
