#ifndef STARLING_NET_PORT_LWIP_ERROR_H_
#define STARLING_NET_PORT_LWIP_ERROR_H_

#include "kernel/lib/result.h"
#include "lwip/err.h"

// lwIP's err_t as a starling::Error, one mapping for every socket of net/:
//   ERR_MEM, ERR_BUF                                  -> kNoMemory  (a pool or the heap is out)
//   ERR_WOULDBLOCK, ERR_INPROGRESS, ERR_ALREADY,
//   ERR_ISCONN, ERR_USE                               -> kBusy      (try again; the port is taken)
//   ERR_TIMEOUT                                       -> kTimedOut
//   ERR_RTE                                           -> kNotFound  (no route)
//   ERR_VAL, ERR_ARG                                  -> kInvalidArgument
//   anything else (ERR_RST, ERR_ABRT, ERR_CLSD, ERR_CONN, ERR_IF) -> kDeviceError
// A full TX ring is ERR_WOULDBLOCK from the netif (net/netif/netif.h), so a
// sender sees kBusy for it and kNoMemory only when lwIP itself is out.
// Inline: the includer's lwIP build (production or the TCP tests' own)
// supplies lwipopts.h.
namespace starling::net {

inline Error from_lwip_error(int err) noexcept {
  switch (err) {
    case ERR_MEM:
    case ERR_BUF:
      return Error::kNoMemory;
    case ERR_TIMEOUT:
      return Error::kTimedOut;
    case ERR_RTE:
      return Error::kNotFound;
    case ERR_INPROGRESS:
    case ERR_WOULDBLOCK:
    case ERR_ALREADY:
    case ERR_ISCONN:
    case ERR_USE:
      return Error::kBusy;
    case ERR_VAL:
    case ERR_ARG:
      return Error::kInvalidArgument;
    default:
      return Error::kDeviceError;
  }
}

}  // namespace starling::net

#endif  // STARLING_NET_PORT_LWIP_ERROR_H_
