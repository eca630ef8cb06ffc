#ifndef STARLING_NET_HTTP_BODY_BUFFER_H_
#define STARLING_NET_HTTP_BODY_BUFFER_H_

#include <cstddef>
#include <cstdint>
#include <span>

// Buffers for response bodies a handler renders (a metrics page, a JSON
// answer), leased from one fixed pool: kBodyBuffers of kBodyBufferBytes,
// in .bss. A Response holds its lease until the server has written it
// (response.h), so concurrent requests never share one. When every buffer
// is out, try_acquire() gives an empty lease and the handler answers 503
// (counted: body_buffer_stats().refused). Static bodies (a site's files)
// need none: they are written from where they are.
namespace starling::net::http {

inline constexpr std::size_t kBodyBuffers = 8;
inline constexpr std::size_t kBodyBufferBytes = 32 * 1024;

struct BodyBufferStats {
  std::uint64_t in_use = 0;
  std::uint64_t high_water = 0;
  std::uint64_t refused = 0;  // try_acquire() with every buffer out
  std::uint64_t total = kBodyBuffers;
};
const BodyBufferStats& body_buffer_stats() noexcept;

class BodyBuffer {
 public:
  BodyBuffer() noexcept = default;
  BodyBuffer(BodyBuffer&& other) noexcept;
  BodyBuffer& operator=(BodyBuffer&& other) noexcept;
  BodyBuffer(const BodyBuffer&) = delete;
  BodyBuffer& operator=(const BodyBuffer&) = delete;
  ~BodyBuffer() { release(); }

  // A free buffer, or an empty lease (valid() false) if none is.
  static BodyBuffer try_acquire() noexcept;

  bool valid() const noexcept { return index_ >= 0; }
  std::span<char> data() const noexcept;
  void release() noexcept;

 private:
  explicit BodyBuffer(int index) noexcept : index_(index) {}
  int index_ = -1;
};

}  // namespace starling::net::http

#endif  // STARLING_NET_HTTP_BODY_BUFFER_H_
