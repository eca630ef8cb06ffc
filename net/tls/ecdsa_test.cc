// ECDSA and the curves' point arithmetic as the server signs with them, on
// RFC 6979's keys and signatures (appendix A.2.5 for P-256, A.2.6 for
// P-384: deterministic ECDSA, so the signature is known). A public key
// d * G is normalized by a modular inverse mod p, a signature divides by k
// mod n and a verification by s mod n: all three by Fermat's inverse since
// net/tls/patches/0004, which must give what the constant-time GCD gave.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "mbedtls/ecdsa.h"
#include "mbedtls/ecp.h"
#include "mbedtls/sha256.h"
#include "mbedtls/sha512.h"

namespace starling::net::tls {
namespace {

// The blinding randomness ecp_mul wants: any bytes give the same point.
int counter_bytes(void* state, unsigned char* out, std::size_t n) {
  auto& counter = *static_cast<std::uint8_t*>(state);
  for (std::size_t i = 0; i < n; ++i) out[i] = counter++;
  return 0;
}

struct Vector {
  mbedtls_ecp_group_id curve;
  const char* d;
  const char* qx;
  const char* qy;
  std::string_view message;
  const char* r;
  const char* s;
};

const Vector kVectors[] = {
    {MBEDTLS_ECP_DP_SECP256R1, "C9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721",
     "60FED4BA255A9D31C961EB74C6356D68C049B8923B61FA6CE669622E60F29FB6",
     "7903FE1008B8BC99A41AE9E95628BC64F2F1B20C2D7E9F5177A3C294D4462299", "sample",
     "EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716",
     "F7CB1C942D657C41D436C7A1B6E29F65F3E900DBB9AFF4064DC4AB2F843ACDA8"},
    {MBEDTLS_ECP_DP_SECP256R1, "C9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721",
     "60FED4BA255A9D31C961EB74C6356D68C049B8923B61FA6CE669622E60F29FB6",
     "7903FE1008B8BC99A41AE9E95628BC64F2F1B20C2D7E9F5177A3C294D4462299", "test",
     "F1ABB023518351CD71D881567B1EA663ED3EFCF6C5132B354F28D3B0B7D38367",
     "019F4113742A2B14BD25926B49C649155F267E60D3814B4C0CC84250E46F0083"},
    {MBEDTLS_ECP_DP_SECP384R1,
     "6B9D3DAD2E1B8C1C05B19875B6659F4DE23C3B667BF297BA9AA47740787137D896D5724E4C70A825F872C9EA60D2"
     "EDF5",
     "EC3A4E415B4E19A4568618029F427FA5DA9A8BC4AE92E02E06AAE5286B300C64DEF8F0EA9055866064A254515480"
     "BC13",
     "8015D9B72D7D57244EA8EF9AC0C621896708A59367F9DFB9F54CA84B3F1C9DB1288B231C3AE0D4FE7344FD253326"
     "4720",
     "sample",
     "94EDBB92A5ECB8AAD4736E56C691916B3F88140666CE9FA73D64C4EA95AD133C81A648152E44ACF96E36DD1E80FA"
     "BE46",
     "99EF4AEB15F178CEA1FE40DB2603138F130E740A19624526203B6351D0A3A94FA329C145786E679E7B82C71A3862"
     "8AC8"},
};

class Mpi {
 public:
  Mpi() { mbedtls_mpi_init(&value); }
  explicit Mpi(const char* hex) : Mpi() { EXPECT_EQ(mbedtls_mpi_read_string(&value, 16, hex), 0); }
  ~Mpi() { mbedtls_mpi_free(&value); }
  Mpi(const Mpi&) = delete;
  Mpi& operator=(const Mpi&) = delete;
  mbedtls_mpi value;
};

class Group {
 public:
  explicit Group(mbedtls_ecp_group_id id) {
    mbedtls_ecp_group_init(&group);
    EXPECT_EQ(mbedtls_ecp_group_load(&group, id), 0);
  }
  ~Group() { mbedtls_ecp_group_free(&group); }
  Group(const Group&) = delete;
  Group& operator=(const Group&) = delete;
  mbedtls_ecp_group group;
};

std::vector<unsigned char> hash_of(const Vector& v, mbedtls_md_type_t* md) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(v.message.data());
  if (v.curve == MBEDTLS_ECP_DP_SECP256R1) {
    std::vector<unsigned char> h(32);
    EXPECT_EQ(mbedtls_sha256(bytes, v.message.size(), h.data(), 0), 0);
    *md = MBEDTLS_MD_SHA256;
    return h;
  }
  std::vector<unsigned char> h(48);
  EXPECT_EQ(mbedtls_sha512(bytes, v.message.size(), h.data(), 1), 0);
  *md = MBEDTLS_MD_SHA384;
  return h;
}

TEST(Ecdsa, PublicKeysAreRfc6979s) {
  for (const auto& v : kVectors) {
    Group g(v.curve);
    Mpi d(v.d);
    mbedtls_ecp_point q;
    mbedtls_ecp_point_init(&q);
    std::uint8_t counter = 0;
    ASSERT_EQ(mbedtls_ecp_mul(&g.group, &q, &d.value, &g.group.G, counter_bytes, &counter), 0);
    // 04 || X || Y: X and Y as mbedtls_ecp_mul normalized them (Z = 1).
    std::array<unsigned char, 1 + 2 * 48> wire{};
    std::size_t length = 0;
    ASSERT_EQ(mbedtls_ecp_point_write_binary(&g.group, &q, MBEDTLS_ECP_PF_UNCOMPRESSED, &length,
                                             wire.data(), wire.size()),
              0);
    const std::string want = std::string("04") + v.qx + v.qy;
    std::string got;
    for (std::size_t i = 0; i < length; ++i) {
      static constexpr char kHex[] = "0123456789ABCDEF";
      got += kHex[wire[i] >> 4];
      got += kHex[wire[i] & 15];
    }
    EXPECT_EQ(got, want) << v.d;
    mbedtls_ecp_point_free(&q);
  }
}

TEST(Ecdsa, DeterministicSignaturesAreRfc6979sAndVerify) {
  for (const auto& v : kVectors) {
    Group g(v.curve);
    Mpi d(v.d);
    mbedtls_md_type_t md;
    const auto hash = hash_of(v, &md);
    Mpi r;
    Mpi s;
    std::uint8_t counter = 0;
    ASSERT_EQ(mbedtls_ecdsa_sign_det_ext(&g.group, &r.value, &s.value, &d.value, hash.data(),
                                         hash.size(), md, counter_bytes, &counter),
              0);
    Mpi want_r(v.r);
    Mpi want_s(v.s);
    EXPECT_EQ(mbedtls_mpi_cmp_mpi(&r.value, &want_r.value), 0) << v.message;
    EXPECT_EQ(mbedtls_mpi_cmp_mpi(&s.value, &want_s.value), 0) << v.message;

    mbedtls_ecp_point q;
    mbedtls_ecp_point_init(&q);
    ASSERT_EQ(mbedtls_ecp_point_read_string(&q, 16, v.qx, v.qy), 0);
    EXPECT_EQ(
        mbedtls_ecdsa_verify(&g.group, hash.data(), hash.size(), &q, &want_r.value, &want_s.value),
        0);
    // One more in s: refused.
    ASSERT_EQ(mbedtls_mpi_add_int(&want_s.value, &want_s.value, 1), 0);
    EXPECT_EQ(
        mbedtls_ecdsa_verify(&g.group, hash.data(), hash.size(), &q, &want_r.value, &want_s.value),
        MBEDTLS_ERR_ECP_VERIFY_FAILED);
    mbedtls_ecp_point_free(&q);
  }
}

}  // namespace
}  // namespace starling::net::tls
