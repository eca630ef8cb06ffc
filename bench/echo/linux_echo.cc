// linux_echo: the Linux kernel's own UDP echo for bench/echo, the peer the
// host board is compared with: a plain socket server on UDP (default 1235)
// that sends every datagram back to its sender, byte for byte. It stops by
// itself after --max-seconds (default 600), so a run cannot leave it behind.
//   linux_echo [--port N] [--max-seconds S]

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <cstring>
#include <string_view>

namespace {

bool parse_flag(std::string_view text, unsigned long max, unsigned long& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && out > 0 && out <= max;
}

}  // namespace

int main(int argc, char** argv) {
  unsigned long port = 1235;
  unsigned long max_seconds = 600;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "--help") {
      std::puts("linux_echo [--port N] [--max-seconds S]: UDP echo until S seconds have passed");
      return 0;
    }
    if ((flag != "--port" && flag != "--max-seconds") || i + 1 >= argc) {
      std::fprintf(stderr, "linux_echo: unknown flag or missing value: '%s'\n", argv[i]);
      return 2;
    }
    unsigned long& target = flag == "--port" ? port : max_seconds;
    if (!parse_flag(argv[++i], flag == "--port" ? 65535 : 86400, target)) {
      std::fprintf(stderr, "linux_echo: %s: bad value '%s'\n", argv[i - 1], argv[i]);
      return 2;
    }
  }
  const int fd = socket(AF_INET, SOCK_DGRAM, 0);
  const int buffer = 8 << 20;
  (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buffer, sizeof buffer);
  (void)setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &buffer, sizeof buffer);
  sockaddr_in me{};
  me.sin_family = AF_INET;
  me.sin_port = htons(static_cast<std::uint16_t>(port));
  me.sin_addr.s_addr = htonl(INADDR_ANY);
  if (fd < 0 || bind(fd, reinterpret_cast<sockaddr*>(&me), sizeof me) != 0) {
    std::fprintf(stderr, "linux_echo: bind UDP %lu: %s\n", port, std::strerror(errno));
    return 1;
  }
  std::fprintf(stderr, "linux_echo: udp echo on port %lu\n", port);
  timespec start;
  clock_gettime(CLOCK_MONOTONIC, &start);
  char data[65536];
  for (;;) {
    timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (static_cast<unsigned long>(now.tv_sec - start.tv_sec) >= max_seconds) return 0;
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 1000) <= 0) continue;
    sockaddr_in from{};
    socklen_t from_len = sizeof from;
    const ssize_t n =
        recvfrom(fd, data, sizeof data, 0, reinterpret_cast<sockaddr*>(&from), &from_len);
    if (n < 0) continue;
    (void)sendto(fd, data, static_cast<std::size_t>(n), 0, reinterpret_cast<sockaddr*>(&from),
                 from_len);
  }
}
