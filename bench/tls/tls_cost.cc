// What TLS costs the server, in guest instructions (issue 50): a full TLS
// 1.3 handshake (X25519 key share, ECDSA P-256 certificate; and with a
// P-256 key share, for clients that offer no X25519), a handshake
// resumed by session ticket (PSK with X25519), and a keep-alive request (an
// 80-byte request read, an 830-byte response written) on an established
// session. The server is the one apps/httpd runs (net::tls::ServerContext,
// its configuration and ticket keys); the client is Mbed TLS in the same
// guest, over an in-memory wire, and only the server's calls are counted:
// each handshake step (mbedtls_ssl_handshake_step(), as TlsStream drives
// it) between two reads of instret. Under -icount (BUILD.bazel) QEMU
// counts retired instructions exactly, so the figures repeat from run to
// run but for timer interrupts landing in a step.
//
// Prints "tls_cost: <figure>=<value>" lines for the cost gate
// (bench/cost/cost_gate.py) and exits 0, or names what failed and exits 1.
//   bazel run //bench/tls:qemu

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include "bench/tls/identity.h"
#include "kernel/arch/riscv/csr.h"
#include "kernel/boot/app.h"
#include "kernel/console/console.h"
#include "kernel/fdt/chosen.h"
#include "kernel/lib/bootargs.h"
#include "kernel/mem/address.h"
#include "kernel/text/writer.h"
#include "mbedtls/ssl.h"
// psa_util.h declares mbedtls_psa_get_random without C linkage for C++.
extern "C" {
#include "mbedtls/psa_util.h"
}
#include "net/tls/tls.h"

// Where each counted call begins and ends, for //bench/cost:tls_profile
// (bench/cost/tls_profile.py): QEMU's instruction log names the function of every
// instruction, so a call of one of these marks the start of a counted
// server call of that kind, and the last one its end. Empty, and out of
// line so that they stay calls; outside the instret reads, so the figures
// do not count them.
#define STARLING_TLS_COST_MARK(name)         \
  extern "C" [[gnu::noinline]] void name() { \
    asm volatile("" ::: "memory");           \
  }
STARLING_TLS_COST_MARK(starling_tls_cost_full_handshake)
STARLING_TLS_COST_MARK(starling_tls_cost_full_handshake_p256)
STARLING_TLS_COST_MARK(starling_tls_cost_resumed_handshake)
STARLING_TLS_COST_MARK(starling_tls_cost_keepalive_request)
STARLING_TLS_COST_MARK(starling_tls_cost_leave)
#undef STARLING_TLS_COST_MARK

namespace starling::bench::tls {
namespace {

using console::print;

// Of each kind; the figures are averages. tls_cost.handshakes=N on the
// kernel command line sets another (the profile runs one of each: its
// instruction log is ~60 M lines a handshake of each kind).
constexpr int kHandshakes = 4;
constexpr int kRequests = 16;  // keep-alive requests on one session
constexpr std::size_t kRequestBytes = 80;
constexpr std::size_t kResponseBytes = 830;  // the size issue 50's floor is worked out for

// One direction of the wire: bytes written and not yet read, in a fixed
// buffer (a flight of the handshake is a few KiB). Not net/tls's
// memory_wire.h: that one keeps every byte in a growing std::vector (its
// seed writer saves them), and the server's own sends would then count the
// vector's reallocations and copies (tried: the keep-alive request read
// 48,639 instead of 44,194).
struct Pipe {
  std::array<unsigned char, 32 * 1024> bytes;
  std::size_t head = 0;  // next byte to read
  std::size_t tail = 0;  // next byte to write
};

struct End {
  Pipe* in;
  Pipe* out;
};

int wire_send(void* ctx, const unsigned char* buf, std::size_t len) {
  Pipe& out = *static_cast<End*>(ctx)->out;
  if (out.head == out.tail) out.head = out.tail = 0;
  const std::size_t n = std::min(len, out.bytes.size() - out.tail);
  if (n == 0) return MBEDTLS_ERR_SSL_WANT_WRITE;
  std::memcpy(out.bytes.data() + out.tail, buf, n);
  out.tail += n;
  return static_cast<int>(n);
}

int wire_recv(void* ctx, unsigned char* buf, std::size_t len) {
  Pipe& in = *static_cast<End*>(ctx)->in;
  if (in.head == in.tail) return MBEDTLS_ERR_SSL_WANT_READ;
  const std::size_t n = std::min(len, in.tail - in.head);
  std::memcpy(buf, in.bytes.data() + in.head, n);
  in.head += n;
  return static_cast<int>(n);
}

std::uint64_t instret() {
  return riscv::csr_read<riscv::Csr::kInstret>();
}

// Instructions the server spent: in all, and its longest single call (what
// the stall detector sees as one run). `mark`: the profile's marker of
// this kind of call (none for calls not counted in a figure).
struct Cost {
  std::uint64_t total = 0;
  std::uint64_t longest = 0;
  void (*mark)() = nullptr;
  template <typename F>
  int count(F call) {
    if (mark != nullptr) mark();
    const std::uint64_t before = instret();
    const int r = call();
    const std::uint64_t spent = instret() - before;
    if (mark != nullptr) starling_tls_cost_leave();
    total += spent;
    longest = std::max(longest, spent);
    return r;
  }
};

// The server's handshake states (mbedtls_ssl_states), for the per-step
// lines: the message a step writes or reads.
constexpr std::string_view kStates[] = {"HelloRequest",
                                        "ClientHello",
                                        "ServerHello",
                                        "ServerCertificate",
                                        "ServerKeyExchange",
                                        "CertificateRequest",
                                        "ServerHelloDone",
                                        "ClientCertificate",
                                        "ClientKeyExchange",
                                        "CertificateVerify",
                                        "ClientChangeCipherSpec",
                                        "ClientFinished",
                                        "ServerChangeCipherSpec",
                                        "ServerFinished",
                                        "FlushBuffers",
                                        "HandshakeWrapup",
                                        "NewSessionTicket",
                                        "HelloVerifyRequestSent",
                                        "HelloRetryRequest",
                                        "EncryptedExtensions",
                                        "EndOfEarlyData",
                                        "ClientCertificateVerify",
                                        "ClientCcsAfterServerFinished",
                                        "ClientCcsBefore2ndClientHello",
                                        "ServerCcsAfterServerHello",
                                        "ClientCcsAfterClientHello",
                                        "ServerCcsAfterHelloRetryRequest",
                                        "HandshakeOver",
                                        "Tls13NewSessionTicket",
                                        "Tls13NewSessionTicketFlush"};

// Each step of one handshake: "tls_cost: step <state> <instructions>".
struct StepLog {
  bool on = false;
  void add(int state, std::uint64_t spent) const {
    if (!on) return;
    print("tls_cost: step ");
    print(state >= 0 && static_cast<std::size_t>(state) < std::size(kStates) ? kStates[state]
                                                                             : "?");
    print(" ");
    console::print_dec(static_cast<std::int64_t>(spent));
    print("\n");
  }
};

bool fails(int r) {
  return r != 0 && r != MBEDTLS_ERR_SSL_WANT_READ && r != MBEDTLS_ERR_SSL_WANT_WRITE &&
         r != MBEDTLS_ERR_SSL_RECEIVED_NEW_SESSION_TICKET;
}

void fail(std::string_view what, int code) {
  print("tls_cost: FAIL ");
  print(what);
  print(" (Mbed TLS error -0x");
  console::print_hex(static_cast<std::uint64_t>(-code));
  print(")\n");
}

// One connection: the handshake, then `requests` keep-alive requests. The
// server's handshake steps go to `handshake`, its reads and writes of the
// requests after the first to `request` (the first also carries TLS 1.3's
// NewSessionTicket). With `save`, the client's session (its ticket) is kept;
// with `resume`, the client offers it.
bool connect(const mbedtls_ssl_config* server_config, const mbedtls_ssl_config* client_config,
             Cost& handshake, Cost& request, int requests, mbedtls_ssl_session* resume,
             mbedtls_ssl_session* save, StepLog steps = {}) {
  static Pipe to_server, to_client;
  to_server.head = to_server.tail = to_client.head = to_client.tail = 0;
  End server_end{&to_server, &to_client};
  End client_end{&to_client, &to_server};
  static mbedtls_ssl_context server, client;
  mbedtls_ssl_init(&server);
  mbedtls_ssl_init(&client);
  bool ok = false;
  bool saved = false;
  do {
    int r = mbedtls_ssl_setup(&server, server_config);
    if (r == 0) r = mbedtls_ssl_setup(&client, client_config);
    if (r == 0) r = mbedtls_ssl_set_hostname(&client, "starling.test");
    if (r == 0 && resume != nullptr) r = mbedtls_ssl_set_session(&client, resume);
    if (r != 0) {
      fail("setting up a connection", r);
      break;
    }
    mbedtls_ssl_set_bio(&server, &server_end, wire_send, wire_recv, nullptr);
    mbedtls_ssl_set_bio(&client, &client_end, wire_send, wire_recv, nullptr);
    bool failed = false;
    for (int round = 0; round < 100 && !failed; ++round) {
      if (!mbedtls_ssl_is_handshake_over(&client)) {
        if (r = mbedtls_ssl_handshake(&client); fails(r)) {
          fail("the client's handshake", r);
          failed = true;
        }
      }
      // One step at a time, as TlsStream::handshake() drives it.
      while (!failed && !mbedtls_ssl_is_handshake_over(&server)) {
        const int state = server.MBEDTLS_PRIVATE(state);
        const std::uint64_t before = handshake.total;
        r = handshake.count([&] { return mbedtls_ssl_handshake_step(&server); });
        steps.add(state, handshake.total - before);
        if (r == MBEDTLS_ERR_SSL_WANT_READ || r == MBEDTLS_ERR_SSL_WANT_WRITE) break;
        if (r != 0) {
          fail("the server's handshake", r);
          failed = true;
        }
      }
      if (mbedtls_ssl_is_handshake_over(&client) && mbedtls_ssl_is_handshake_over(&server)) break;
    }
    if (failed || !mbedtls_ssl_is_handshake_over(&server)) break;
    std::array<unsigned char, kResponseBytes> response;
    std::array<unsigned char, kResponseBytes + 16> got;
    for (int i = 0; i < requests && !failed; ++i) {
      std::array<unsigned char, kRequestBytes> req;
      req.fill(static_cast<unsigned char>('a' + i % 26));
      response.fill(static_cast<unsigned char>('A' + i % 26));
      Cost ignored;
      Cost& cost = i == 0 ? ignored : request;
      if (r = mbedtls_ssl_write(&client, req.data(), req.size());
          r != static_cast<int>(req.size())) {
        fail("the client's request", r);
        failed = true;
        break;
      }
      std::size_t read = 0;
      for (int tries = 0; tries < 4 && read < req.size(); ++tries) {
        r = cost.count([&] { return mbedtls_ssl_read(&server, got.data(), got.size()); });
        if (r > 0) read += static_cast<std::size_t>(r);
      }
      if (read != req.size() || std::memcmp(got.data(), req.data(), req.size()) != 0) {
        fail("the server's read of the request", r);
        failed = true;
        break;
      }
      r = cost.count([&] { return mbedtls_ssl_write(&server, response.data(), response.size()); });
      if (r != static_cast<int>(response.size())) {
        fail("the server's response", r);
        failed = true;
        break;
      }
      std::size_t back = 0;
      for (int tries = 0; tries < 8 && back < response.size(); ++tries) {
        r = mbedtls_ssl_read(&client, got.data() + back, got.size() - back);
        if (r > 0) back += static_cast<std::size_t>(r);
        // TLS 1.3's ticket comes after the handshake: kept as it arrives.
        if (r == MBEDTLS_ERR_SSL_RECEIVED_NEW_SESSION_TICKET && save != nullptr) {
          if (r = mbedtls_ssl_get_session(&client, save); r != 0) {
            fail("keeping the client's session", r);
            break;
          }
          saved = true;
        }
        if (fails(r)) break;
      }
      if (back != response.size() || std::memcmp(got.data(), response.data(), back) != 0) {
        fail("the client's read of the response", r);
        failed = true;
      }
    }
    if (failed) break;
    if (save != nullptr && !saved) {
      print("tls_cost: FAIL the server sent no session ticket\n");
      break;
    }
    ok = true;
  } while (false);
  mbedtls_ssl_free(&client);
  mbedtls_ssl_free(&server);
  return ok;
}

void report(std::string_view figure, std::uint64_t value) {
  print("tls_cost: tls.");
  print(figure);
  print("=");
  console::print_dec(static_cast<std::int64_t>(value));
  print("\n");
}

// A client that offers `groups` for its key share and checks nothing (its
// own work is not what is measured).
bool configure_client(mbedtls_ssl_config& client, const std::uint16_t* groups) {
  mbedtls_ssl_config_init(&client);
  if (const int r = mbedtls_ssl_config_defaults(
          &client, MBEDTLS_SSL_IS_CLIENT, MBEDTLS_SSL_TRANSPORT_STREAM, MBEDTLS_SSL_PRESET_DEFAULT);
      r != 0) {
    fail("the client's configuration", r);
    return false;
  }
  mbedtls_ssl_conf_rng(&client, mbedtls_psa_get_random, MBEDTLS_PSA_RANDOM_STATE);
  mbedtls_ssl_conf_authmode(&client, MBEDTLS_SSL_VERIFY_NONE);
  mbedtls_ssl_conf_groups(&client, groups);
  // Hand over TLS 1.3's NewSessionTicket (mbedtls_ssl_get_session()), for
  // the resumed handshakes.
  mbedtls_ssl_conf_tls13_enable_signal_new_session_tickets(
      &client, MBEDTLS_SSL_TLS1_3_SIGNAL_NEW_SESSION_TICKETS_ENABLED);
  return true;
}

int run(int handshakes) {
  static net::tls::ServerContext server;
  if (auto ok = server.init(std::as_bytes(std::span(kCertPem, sizeof kCertPem - 1)),
                            std::as_bytes(std::span(kKeyPem, sizeof kKeyPem - 1)));
      !ok.ok()) {
    print("tls_cost: FAIL the server's identity: ");
    print(server.reason());
    print("\n");
    return 1;
  }
  // X25519, as curl, browsers and OpenSSL offer first; and P-256 alone, as
  // a client that offers no X25519 gets.
  static const std::uint16_t x25519[] = {MBEDTLS_SSL_IANA_TLS_GROUP_X25519,
                                         MBEDTLS_SSL_IANA_TLS_GROUP_NONE};
  static const std::uint16_t p256[] = {MBEDTLS_SSL_IANA_TLS_GROUP_SECP256R1,
                                       MBEDTLS_SSL_IANA_TLS_GROUP_NONE};
  static mbedtls_ssl_config client, client_p256;
  if (!configure_client(client, x25519) || !configure_client(client_p256, p256)) return 1;

  Cost full{.mark = starling_tls_cost_full_handshake};
  Cost resumed{.mark = starling_tls_cost_resumed_handshake};
  Cost request{.mark = starling_tls_cost_keepalive_request};
  Cost full_p256{.mark = starling_tls_cost_full_handshake_p256};
  mbedtls_ssl_session saved;
  mbedtls_ssl_session_init(&saved);
  bool ok = true;
  for (int i = 0; i < handshakes && ok; ++i) {
    Cost unused;
    ok = connect(server.config(), &client, full, i == 0 ? request : unused, i == 0 ? kRequests : 1,
                 nullptr, i == 0 ? &saved : nullptr, StepLog{.on = i == 0});
  }
  const std::uint64_t resumed_before = net::tls::tls_stats().resumed;
  for (int i = 0; i < handshakes && ok; ++i) {
    Cost unused;
    ok = connect(server.config(), &client, resumed, unused, 1, &saved, nullptr);
  }
  mbedtls_ssl_session_free(&saved);
  for (int i = 0; i < handshakes && ok; ++i) {
    Cost unused;
    ok = connect(server.config(), &client_p256, full_p256, unused, 1, nullptr, nullptr);
  }
  if (!ok) return 1;
  if (net::tls::tls_stats().resumed - resumed_before != static_cast<std::uint64_t>(handshakes)) {
    print(
        "tls_cost: FAIL the resumed handshakes did not use the ticket (full handshakes instead)\n");
    return 1;
  }
  report("full_handshake.server_instructions", full.total / handshakes);
  report("full_handshake.longest_step", full.longest);
  report("full_handshake_p256.server_instructions", full_p256.total / handshakes);
  report("full_handshake_p256.longest_step", full_p256.longest);
  report("resumed_handshake.server_instructions", resumed.total / handshakes);
  report("resumed_handshake.longest_step", resumed.longest);
  report("keepalive_request.server_instructions", request.total / (kRequests - 1));
  // What the profile divides its counts by (bench/cost/tls_profile.py).
  print("tls_cost: profile handshakes=");
  console::print_dec(handshakes);
  print(" requests=");
  console::print_dec(kRequests - 1);
  print("\n");
  print("tls_cost: done\n");
  return 0;
}

}  // namespace
}  // namespace starling::bench::tls

int starling_app_main(const starling::BootInfo& boot) {
  using namespace starling;  // NOLINT: the boot helpers
  text::Line<120> why;
  const auto handshakes =
      read_number(fdt::firmware_bootargs(mem::to_pointer(boot.dtb)), "tls_cost.handshakes", 1, 64,
                  bench::tls::kHandshakes, /*off=*/false, why);
  if (handshakes.refused) {
    console::print_ignoring("tls_cost", {"bootargs ", why.view()});
  }
  return bench::tls::run(static_cast<int>(handshakes.value));
}
