#ifndef STARLING_NET_IPBENCH_PROTOCOL_H_
#define STARLING_NET_IPBENCH_PROTOCOL_H_

#include <cstddef>
#include <cstdint>
#include <string_view>

// The ipbench `cpu_target_lukem` utilisation service (docs/BENCHMARK.md):
//   server: 100 IPBENCH V1.0\n
//   HELLO\n                 -> 200 OK (Ready to go)\n
//   LOAD cpu_target_lukem\n -> 200 OK\n
//   SETUP <args>\n          -> 200 OK\n
//   START\n                 -> (snapshot, no reply)
//   STOP\n                  -> 220 VALID DATA (Data to follow)\n
//                              Content-length: N\n,<idle>,<total>   then close
//   QUIT\n at any point     -> close, no reply
// Anything else (wrong order, unknown command, a line over kMaxLine bytes)
// -> "400 ERROR (<reason>)\n" and close. A trailing \r is ignored.
namespace starling::net::ipbench {

struct Sample {
  std::uint64_t idle_cycles = 0;
  std::uint64_t total_cycles = 0;
};

// Pure protocol state machine: feed bytes, get reply bytes.
class UtilisationProtocol {
 public:
  static constexpr std::size_t kMaxLine = 128;
  static constexpr std::string_view kGreeting = "100 IPBENCH V1.0\n";

  // Output of one feed(): reply bytes (valid until the next call) and
  // whether the connection must now close.
  struct Output {
    std::string_view reply;
    bool close = false;
    std::size_t consumed = 0;  // input bytes used (stops at the first close)
  };

  // Processes bytes; `now` is the current sample (used by START/STOP).
  Output feed(std::string_view bytes, const Sample& now) noexcept;
  // Handles one complete line (without '\n'). Exposed for tests.
  Output line(std::string_view text, const Sample& now) noexcept;
  bool closed() const noexcept { return state_ == State::kClosed; }
  // Between START and STOP: the client is quiet by design (one sample run).
  bool measuring() const noexcept { return state_ == State::kStop; }

 private:
  enum class State { kHello, kLoad, kSetup, kStart, kStop, kClosed };
  void append(std::string_view s) noexcept;
  void append_u64(std::uint64_t v) noexcept;
  Output error(std::string_view reason) noexcept;

  State state_ = State::kHello;
  Sample start_{};
  char line_[kMaxLine];
  std::size_t line_len_ = 0;
  char out_[512];
  std::size_t out_len_ = 0;
};

using Sampler = Sample (*)(void* context);
// Samples Executor::current(): {idle_cycles(), total_cycles()}.
Sample executor_sampler(void* context) noexcept;

}  // namespace starling::net::ipbench

#endif  // STARLING_NET_IPBENCH_PROTOCOL_H_
