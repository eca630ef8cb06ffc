#ifndef STARLING_NET_TLS_MEMORY_WIRE_H_
#define STARLING_NET_TLS_MEMORY_WIRE_H_

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

#include "mbedtls/ssl.h"

// Test support: two Mbed TLS contexts talking in memory, without sockets.
// Each direction keeps every byte written (a seed writer saves them) and
// how far the reader has got.
//
//   Pipe to_server, to_client;
//   End server_end{&to_server, &to_client}, client_end{&to_client, &to_server};
//   mbedtls_ssl_set_bio(&server, &server_end, wire_send, wire_recv, nullptr);
namespace starling::net::tls::testing {

// One direction of the wire.
struct Pipe {
  std::vector<unsigned char> bytes;
  std::size_t read = 0;
};

// One side's view: what it reads, what it writes.
struct End {
  Pipe* in;
  Pipe* out;
};

inline int wire_send(void* ctx, const unsigned char* buf, std::size_t len) {
  auto* end = static_cast<End*>(ctx);
  end->out->bytes.insert(end->out->bytes.end(), buf, buf + len);
  return static_cast<int>(len);
}

inline int wire_recv(void* ctx, unsigned char* buf, std::size_t len) {
  Pipe& in = *static_cast<End*>(ctx)->in;
  if (in.read == in.bytes.size()) return MBEDTLS_ERR_SSL_WANT_READ;
  const std::size_t n = std::min(len, in.bytes.size() - in.read);
  std::memcpy(buf, in.bytes.data() + in.read, n);
  in.read += n;
  return static_cast<int>(n);
}

}  // namespace starling::net::tls::testing

#endif  // STARLING_NET_TLS_MEMORY_WIRE_H_
