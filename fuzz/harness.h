#ifndef STARLING_FUZZ_HARNESS_H_
#define STARLING_FUZZ_HARNESS_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

// What the stateful fuzzers (a driver or a stack fed a stream of operations)
// share: the fuzz input read as little-endian numbers, running out into
// zeros, and the abort that turns a broken invariant into a libFuzzer crash.
namespace starling::fuzz {

class Input {
 public:
  Input(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  bool empty() const { return size_ == 0; }
  std::uint8_t u8() {
    if (size_ == 0) return 0;
    --size_;
    return *data_++;
  }
  std::uint16_t u16() { return static_cast<std::uint16_t>(u8() | u8() << 8); }
  std::uint32_t u32() { return u16() | static_cast<std::uint32_t>(u16()) << 16; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
};

// Aborts, naming the fuzzer and the invariant, unless `condition` holds.
inline void check(bool condition, const char* fuzzer, const char* what) {
  if (!condition) {
    std::fprintf(stderr, "%s invariant broken: %s\n", fuzzer, what);
    std::abort();
  }
}

}  // namespace starling::fuzz

#endif  // STARLING_FUZZ_HARNESS_H_
