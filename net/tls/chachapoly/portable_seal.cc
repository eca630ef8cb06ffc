#include <cstddef>
#include <cstdint>
#include <vector>

#include "net/tls/chachapoly/portable_reference.h"

namespace starling::net::tls::chachapoly::testing {

void portable_seal(const unsigned char key[32], const unsigned char nonce[12],
                   const unsigned char* aad, std::size_t aad_len, const unsigned char* input,
                   std::size_t length, unsigned char* output, unsigned char tag[16]) {
  unsigned char zeros[64] = {};
  unsigned char block0[64];
  starling_portable_chacha20_crypt(key, nonce, 0, sizeof(zeros), zeros, block0);
  starling_portable_chacha20_crypt(key, nonce, 1, length, input, output);
  std::vector<unsigned char> mac_data(aad, aad + aad_len);
  mac_data.resize((mac_data.size() + 15) / 16 * 16, 0);
  mac_data.insert(mac_data.end(), output, output + length);
  mac_data.resize((mac_data.size() + 15) / 16 * 16, 0);
  for (const std::uint64_t n : {std::uint64_t{aad_len}, std::uint64_t{length}}) {
    for (int i = 0; i < 8; ++i) mac_data.push_back(static_cast<unsigned char>(n >> (8 * i)));
  }
  starling_portable_poly1305_mac(block0, mac_data.data(), mac_data.size(), tag);
}

}  // namespace starling::net::tls::chachapoly::testing
