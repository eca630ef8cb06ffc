#ifndef STARLING_NET_TCP_CONN_H_
#define STARLING_NET_TCP_CONN_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>

#include "kernel/async/event.h"
#include "lwip/err.h"
#include "lwip/opt.h"
#include "lwip/tcp.h"
#include "net/address/endpoint.h"
#include "net/tcp/tcp.h"

// Internal to net/tcp: the connection table tcp.cc runs TCP on and
// peer_share.cc keeps each peer's shares over. Nothing outside net/tcp
// includes it.
namespace starling::net::detail {

// One connection's state: lives in the pool, pointed to by the pcb's arg and
// by at most one TcpStream (or a listener's pending queue before accept()).
struct Conn {
  tcp_pcb* pcb = nullptr;    // null once lwIP freed it (tcp_err) or we closed
  pbuf* rx = nullptr;        // received, unread data (a chain)
  std::size_t rx_pbufs = 0;  // pbufs in rx: each may be a NIC buffer or a pool pbuf
  Conn* next_pending = nullptr;
  async::Event rx_event;  // data, FIN or error arrived
  async::Event tx_event;  // send space, connected or error
  Endpoint peer{};
  Endpoint local{};
  err_t error = ERR_OK;  // what ended it (tcp_err), ERR_OK while alive
  bool in_use = false;
  bool eof = false;
  bool connected = false;
  bool tx_shut = false;
  bool inbound = false;  // accepted from a listener (counts toward its peer's share)
  // Bytes the application consumed that the receive window has not been
  // given back yet: the peer's share was offered already (grant_window()).
  std::size_t window_owed = 0;
};

struct ListenerState {
  tcp_pcb* pcb = nullptr;
  Conn* head = nullptr;  // accepted by lwIP, not yet by accept()
  Conn* tail = nullptr;
  std::size_t pending = 0;
  std::size_t backlog = 0;
  std::uint64_t refused = 0;
  std::uint16_t port = 0;
  bool in_use = false;
  async::Event accept_event;
};

// The connection table (MEMP_NUM_TCP_PCB slots, one per lwIP pcb at most)
// and the counters, defined in tcp.cc.
extern Conn g_conns[MEMP_NUM_TCP_PCB];
extern TcpStats g_stats;

// Whether a pcb's arg is one of our connections (a listener's state, or
// nothing, otherwise). std::less: a total order even for pointers into
// different arrays, where < is unspecified.
inline bool is_conn(const void* arg) {
  const std::less<const void*> before;
  return !before(arg, std::begin(g_conns)) && before(arg, std::end(g_conns));
}

}  // namespace starling::net::detail

#endif  // STARLING_NET_TCP_CONN_H_
