#include "net/http/body_buffer.h"

#include <utility>

namespace starling::net::http {
namespace {

alignas(64) char g_buffers[kBodyBuffers][kBodyBufferBytes];
bool g_used[kBodyBuffers];
BodyBufferStats g_stats;

}  // namespace

const BodyBufferStats& body_buffer_stats() noexcept {
  return g_stats;
}

BodyBuffer::BodyBuffer(BodyBuffer&& other) noexcept : index_(std::exchange(other.index_, -1)) {}

BodyBuffer& BodyBuffer::operator=(BodyBuffer&& other) noexcept {
  if (this != &other) {
    release();
    index_ = std::exchange(other.index_, -1);
  }
  return *this;
}

BodyBuffer BodyBuffer::try_acquire() noexcept {
  for (std::size_t i = 0; i < kBodyBuffers; ++i) {
    if (!g_used[i]) {
      g_used[i] = true;
      if (++g_stats.in_use > g_stats.high_water) g_stats.high_water = g_stats.in_use;
      return BodyBuffer(static_cast<int>(i));
    }
  }
  ++g_stats.refused;
  return BodyBuffer();
}

std::span<char> BodyBuffer::data() const noexcept {
  if (!valid()) return {};
  return std::span<char>(g_buffers[static_cast<std::size_t>(index_)], kBodyBufferBytes);
}

void BodyBuffer::release() noexcept {
  if (!valid()) return;
  g_used[static_cast<std::size_t>(std::exchange(index_, -1))] = false;
  --g_stats.in_use;
}

}  // namespace starling::net::http
