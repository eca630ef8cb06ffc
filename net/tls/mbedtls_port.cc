#include "net/tls/mbedtls_port.h"

#include <cstdlib>
#include <cstring>
#include <span>

#include "kernel/hal/clock.h"
#include "kernel/hal/entropy.h"
#include "mbedtls/bignum.h"
#include "mbedtls/entropy.h"
#include "mbedtls/platform.h"
#include "mbedtls/platform_time.h"
#include "psa/crypto.h"

// A bignum limb is a machine word: on RV64 only by net/tls/patches/0005
// (Mbed TLS's list of 64-bit targets leaves RISC-V out, and 32-bit limbs
// made every P-256 product four times the limb products).
static_assert(sizeof(mbedtls_mpi_uint) == sizeof(void*),
              "Mbed TLS bignum limbs narrower than a register: is patch 0005 applied?");

namespace starling::net::tls {
namespace {

constinit TlsMemoryStats g_stats{};
constinit std::size_t g_budget = 0;
constinit bool g_initialised = false;
constinit bool g_init_failed = false;
constinit Error g_init_error = Error::kDeviceError;

// Each block carries its size in front (16 bytes keep the payload's
// alignment what calloc's was), so free() can give it back to the budget.
constexpr std::size_t kHeader = 16;

void* tls_calloc(std::size_t count, std::size_t size) {
  if (count != 0 && size > (SIZE_MAX - kHeader) / count) {
    ++g_stats.refused;
    return nullptr;
  }
  const std::size_t bytes = count * size + kHeader;
  if (g_stats.in_use + bytes > g_budget) {
    ++g_stats.refused;
    return nullptr;
  }
  auto* block = static_cast<unsigned char*>(std::calloc(1, bytes));
  if (block == nullptr) {
    ++g_stats.refused;
    return nullptr;
  }
  // The size in the block's header. The builtin, as below: std::memcpy is a
  // call under -ffreestanding, and Mbed TLS's bignum code allocates and
  // frees thousands of times a P-256 handshake (316k instructions of calls
  // for these two 8-byte copies: //bench/cost:tls_profile).
  __builtin_memcpy(block, &bytes, sizeof bytes);
  g_stats.in_use += bytes;
  if (g_stats.in_use > g_stats.peak) g_stats.peak = g_stats.in_use;
  ++g_stats.allocations;
  return block + kHeader;
}

void tls_free(void* pointer) {
  if (pointer == nullptr) return;
  unsigned char* block = static_cast<unsigned char*>(pointer) - kHeader;
  std::size_t bytes = 0;
  __builtin_memcpy(&bytes, block, sizeof bytes);
  g_stats.in_use -= bytes;
  std::free(block);
}

}  // namespace

Result<void> init_mbedtls(std::size_t budget_bytes) {
  if (g_initialised) {
    if (g_init_failed) return Unexpected(g_init_error);
    return {};
  }
  g_initialised = true;
  g_budget = budget_bytes;
  mbedtls_platform_set_calloc_free(&tls_calloc, &tls_free);
  // Ask the board first, for its own error: psa_crypto_init() only says
  // "insufficient entropy".
  std::byte probe[16];
  if (auto ok = hal::fill_entropy(probe); !ok.ok()) {
    g_init_failed = true;
    g_init_error = ok.error();
    return ok;
  }
  if (psa_crypto_init() != PSA_SUCCESS) {
    g_init_failed = true;
    return Unexpected(Error::kDeviceError);
  }
  return {};
}

const TlsMemoryStats& tls_memory_stats() {
  return g_stats;
}

void reset_tls_memory_peak() {
  g_stats.peak = g_stats.in_use;
}

}  // namespace starling::net::tls

// Mbed TLS's hooks (mbedtls_config.h): C linkage, called from the library.
extern "C" {

int mbedtls_hardware_poll(void* /*data*/, unsigned char* output, std::size_t len,
                          std::size_t* olen) {
  *olen = 0;
  if (!starling::hal::fill_entropy(std::span(reinterpret_cast<std::byte*>(output), len)).ok()) {
    return MBEDTLS_ERR_ENTROPY_SOURCE_FAILED;
  }
  *olen = len;
  return 0;
}

time_t starling_mbedtls_time(time_t* out) {
  const auto now = static_cast<time_t>(starling::hal::now_ns() / 1'000'000'000u);
  if (out != nullptr) *out = now;
  return now;
}

mbedtls_ms_time_t mbedtls_ms_time(void) {
  return static_cast<mbedtls_ms_time_t>(starling::hal::now_ns() / 1'000'000u);
}

}  // extern "C"
