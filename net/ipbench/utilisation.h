#ifndef STARLING_NET_IPBENCH_UTILISATION_H_
#define STARLING_NET_IPBENCH_UTILISATION_H_

#include "kernel/async/task.h"
#include "net/ipbench/protocol.h"
#include "net/tcp/tcp.h"

// The utilisation service over net/tcp (protocol in protocol.h).
namespace starling::net::ipbench {

// Serves one client on `stream` until STOP's data, QUIT, an error or EOF;
// closes the stream.
async::Task<void> serve_utilisation_client(TcpStream stream, Sampler sampler,
                                           void* context) noexcept;
// Accepts clients one at a time, forever (until accept fails).
async::Task<void> serve_utilisation(TcpListener& listener, Sampler sampler = executor_sampler,
                                    void* context = nullptr) noexcept;

}  // namespace starling::net::ipbench

#endif  // STARLING_NET_IPBENCH_UTILISATION_H_
