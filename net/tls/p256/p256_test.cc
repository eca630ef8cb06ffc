// field.h against Mbed TLS's bignum arithmetic modulo p, and the point hooks
// (ecp_alt.cc) against a textbook affine double-and-add written here with
// bignums: scalar products of the base point (the fixed-point comb) and of
// another point (the comb precomputed at run time, normalize_jac_many), and
// the mixed addition's special cases. //net/tls:ecdsa_test checks RFC
// 6979's public keys and signatures through the same hooks.
#define MBEDTLS_ALLOW_PRIVATE_ACCESS  // the points' coordinates

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include "mbedtls/bignum.h"
#include "mbedtls/ecp.h"
#include "net/tls/p256/ecp_alt.h"
#include "net/tls/p256/field.h"

namespace starling::net::tls::p256 {
namespace {

class Mpi {
 public:
  Mpi() { mbedtls_mpi_init(&v); }
  ~Mpi() { mbedtls_mpi_free(&v); }
  Mpi(const Mpi&) = delete;
  Mpi& operator=(const Mpi&) = delete;
  mbedtls_mpi v;
};

void to_mpi(const Fe& f, mbedtls_mpi* out) {
  std::array<unsigned char, 32> be;
  for (int i = 0; i < 32; ++i) be[31 - i] = static_cast<unsigned char>(f.w[i / 8] >> (8 * (i % 8)));
  ASSERT_EQ(mbedtls_mpi_read_binary(out, be.data(), be.size()), 0);
}

Fe from_mpi(const mbedtls_mpi* m) {
  std::array<unsigned char, 32> be{};
  EXPECT_EQ(mbedtls_mpi_write_binary(m, be.data(), be.size()), 0);
  Fe f{};
  for (int i = 0; i < 32; ++i)
    f.w[i / 8] |= static_cast<std::uint64_t>(be[31 - i]) << (8 * (i % 8));
  return f;
}

bool same(const Fe& a, const Fe& b) {
  return a.w[0] == b.w[0] && a.w[1] == b.w[1] && a.w[2] == b.w[2] && a.w[3] == b.w[3];
}

// Values below p: edge cases, then random ones (fixed seed).
std::vector<Fe> operands() {
  const Fe p_minus_1 = {{kPrime.w[0] - 1, kPrime.w[1], kPrime.w[2], kPrime.w[3]}};
  std::vector<Fe> v = {
      {{0, 0, 0, 0}},
      {{1, 0, 0, 0}},
      {{2, 0, 0, 0}},
      p_minus_1,
      {{kPrime.w[0] - 2, kPrime.w[1], kPrime.w[2], kPrime.w[3]}},
      {{0, 0, 0, 0x8000000000000000u}},
      {{~0ull, ~0ull, ~0ull, 0xFFFFFFFF00000000u}},  // the largest below p with a 0 high word
      {{0, 0xFFFFFFFF00000000u, ~0ull, 0xFFFFFFFF00000000u}},
      {{~0ull, 0, 0, 0}},
      {{0, 1, 0, 0}},
  };
  std::mt19937_64 rng(20261206);
  Mpi p;
  to_mpi(kPrime, &p.v);
  for (int i = 0; i < 200; ++i) {
    Fe r = {{rng(), rng(), rng(), rng()}};
    Mpi m;
    to_mpi(r, &m.v);
    EXPECT_EQ(mbedtls_mpi_mod_mpi(&m.v, &m.v, &p.v), 0);
    v.push_back(from_mpi(&m.v));
  }
  return v;
}

TEST(P256Field, AgreesWithBignumArithmetic) {
  const std::vector<Fe> values = operands();
  Mpi p;
  to_mpi(kPrime, &p.v);
  for (std::size_t i = 0; i < values.size(); ++i) {
    for (std::size_t j = 0; j < values.size(); j += 7) {
      const Fe& a = values[i];
      const Fe& b = values[(i + j) % values.size()];
      Mpi ma;
      Mpi mb;
      Mpi r;
      to_mpi(a, &ma.v);
      to_mpi(b, &mb.v);
      ASSERT_EQ(mbedtls_mpi_mul_mpi(&r.v, &ma.v, &mb.v), 0);
      ASSERT_EQ(mbedtls_mpi_mod_mpi(&r.v, &r.v, &p.v), 0);
      EXPECT_TRUE(same(mul(a, b), from_mpi(&r.v))) << "mul " << i << " " << j;
      ASSERT_EQ(mbedtls_mpi_add_mpi(&r.v, &ma.v, &mb.v), 0);
      ASSERT_EQ(mbedtls_mpi_mod_mpi(&r.v, &r.v, &p.v), 0);
      EXPECT_TRUE(same(add(a, b), from_mpi(&r.v))) << "add " << i << " " << j;
      ASSERT_EQ(mbedtls_mpi_sub_mpi(&r.v, &ma.v, &mb.v), 0);
      ASSERT_EQ(mbedtls_mpi_mod_mpi(&r.v, &r.v, &p.v), 0);
      EXPECT_TRUE(same(sub(a, b), from_mpi(&r.v))) << "sub " << i << " " << j;
    }
    Mpi ma;
    Mpi r;
    to_mpi(values[i], &ma.v);
    ASSERT_EQ(mbedtls_mpi_mul_mpi(&r.v, &ma.v, &ma.v), 0);
    ASSERT_EQ(mbedtls_mpi_mod_mpi(&r.v, &r.v, &p.v), 0);
    EXPECT_TRUE(same(sqr(values[i]), from_mpi(&r.v))) << "sqr " << i;
    if (!is_zero(values[i])) {
      ASSERT_EQ(mbedtls_mpi_inv_mod(&r.v, &ma.v, &p.v), 0);
      EXPECT_TRUE(same(inverse(values[i]), from_mpi(&r.v))) << "inverse " << i;
    }
  }
  // Values from 2^256 - 1 down are reduced on the way in.
  const Fe top = {{~0ull, ~0ull, ~0ull, ~0ull}};
  const Fe expected = {{0, 0xFFFFFFFF00000000u, ~0ull, 0x00000000FFFFFFFEu}};
  EXPECT_TRUE(same(reduce_once(top), expected));
}

// A point in affine coordinates, or the point at infinity.
struct Affine {
  Mpi x, y;
  bool infinity = true;
};

class Curve {
 public:
  Curve() {
    mbedtls_ecp_group_init(&g);
    EXPECT_EQ(mbedtls_ecp_group_load(&g, MBEDTLS_ECP_DP_SECP256R1), 0);
  }
  ~Curve() { mbedtls_ecp_group_free(&g); }
  Curve(const Curve&) = delete;
  Curve& operator=(const Curve&) = delete;

  // a = (a + b) over the affine textbook formulas (a = -3).
  void add_into(Affine& a, const Affine& b) {
    if (b.infinity) return;
    if (a.infinity) {
      copy(a, b);
      return;
    }
    Mpi lambda;
    Mpi num;
    Mpi den;
    if (mbedtls_mpi_cmp_mpi(&a.x.v, &b.x.v) == 0) {
      Mpi sum;
      mod(mbedtls_mpi_add_mpi(&sum.v, &a.y.v, &b.y.v), sum.v);
      if (mbedtls_mpi_cmp_int(&sum.v, 0) == 0) {
        a.infinity = true;  // P + (-P)
        return;
      }
      mod(mbedtls_mpi_mul_mpi(&num.v, &a.x.v, &a.x.v), num.v);  // 3 x^2 - 3
      mod(mbedtls_mpi_mul_int(&num.v, &num.v, 3), num.v);
      mod(mbedtls_mpi_sub_int(&num.v, &num.v, 3), num.v);
      mod(mbedtls_mpi_mul_int(&den.v, &a.y.v, 2), den.v);
    } else {
      mod(mbedtls_mpi_sub_mpi(&num.v, &b.y.v, &a.y.v), num.v);
      mod(mbedtls_mpi_sub_mpi(&den.v, &b.x.v, &a.x.v), den.v);
    }
    ASSERT_EQ(mbedtls_mpi_inv_mod(&den.v, &den.v, &g.P), 0);
    mod(mbedtls_mpi_mul_mpi(&lambda.v, &num.v, &den.v), lambda.v);
    Mpi x3;
    mod(mbedtls_mpi_mul_mpi(&x3.v, &lambda.v, &lambda.v), x3.v);
    mod(mbedtls_mpi_sub_mpi(&x3.v, &x3.v, &a.x.v), x3.v);
    mod(mbedtls_mpi_sub_mpi(&x3.v, &x3.v, &b.x.v), x3.v);
    Mpi y3;
    mod(mbedtls_mpi_sub_mpi(&y3.v, &a.x.v, &x3.v), y3.v);
    mod(mbedtls_mpi_mul_mpi(&y3.v, &y3.v, &lambda.v), y3.v);
    mod(mbedtls_mpi_sub_mpi(&y3.v, &y3.v, &a.y.v), y3.v);
    ASSERT_EQ(mbedtls_mpi_copy(&a.x.v, &x3.v), 0);
    ASSERT_EQ(mbedtls_mpi_copy(&a.y.v, &y3.v), 0);
  }

  // k * p by double-and-add.
  void multiply(Affine& out, const mbedtls_mpi& k, const Affine& p) {
    out.infinity = true;
    for (std::size_t bit = mbedtls_mpi_bitlen(&k); bit-- > 0;) {
      Affine twice;
      copy(twice, out);
      add_into(out, twice);
      if (mbedtls_mpi_get_bit(&k, bit) == 1) add_into(out, p);
    }
  }

  static void copy(Affine& to, const Affine& from) {
    to.infinity = from.infinity;
    ASSERT_EQ(mbedtls_mpi_copy(&to.x.v, &from.x.v), 0);
    ASSERT_EQ(mbedtls_mpi_copy(&to.y.v, &from.y.v), 0);
  }

  void mod(int ret, mbedtls_mpi& v) {
    ASSERT_EQ(ret, 0);
    ASSERT_EQ(mbedtls_mpi_mod_mpi(&v, &v, &g.P), 0);
  }

  mbedtls_ecp_group g;
};

int counter_rng(void* state, unsigned char* out, std::size_t n) {
  auto* rng = static_cast<std::mt19937_64*>(state);
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<unsigned char>((*rng)());
  return 0;
}

void expect_point(const mbedtls_ecp_point& got, const Affine& want, const char* what) {
  ASSERT_FALSE(want.infinity);
  EXPECT_EQ(mbedtls_mpi_cmp_int(&got.Z, 1), 0) << what;
  EXPECT_EQ(mbedtls_mpi_cmp_mpi(&got.X, &want.x.v), 0) << what;
  EXPECT_EQ(mbedtls_mpi_cmp_mpi(&got.Y, &want.y.v), 0) << what;
}

TEST(P256Points, ScalarProductsAgreeWithTheAffineTextbook) {
  Curve curve;
  ASSERT_EQ(mbedtls_internal_ecp_grp_capable(&curve.g), 1) << "P-256 is not routed to the hooks";
  Affine g;
  g.infinity = false;
  ASSERT_EQ(mbedtls_mpi_copy(&g.x.v, &curve.g.G.X), 0);
  ASSERT_EQ(mbedtls_mpi_copy(&g.y.v, &curve.g.G.Y), 0);
  std::mt19937_64 rng(49);
  // Another point than G: 7 G, so the comb's table is built at run time.
  mbedtls_ecp_point other;
  mbedtls_ecp_point_init(&other);
  Mpi seven;
  ASSERT_EQ(mbedtls_mpi_lset(&seven.v, 7), 0);
  ASSERT_EQ(mbedtls_ecp_mul(&curve.g, &other, &seven.v, &curve.g.G, counter_rng, &rng), 0);
  Affine other_affine;
  curve.multiply(other_affine, seven.v, g);
  expect_point(other, other_affine, "7 G");
  for (int i = 0; i < 4; ++i) {
    Mpi k;
    ASSERT_EQ(mbedtls_mpi_fill_random(&k.v, 32, counter_rng, &rng), 0);
    ASSERT_EQ(mbedtls_mpi_mod_mpi(&k.v, &k.v, &curve.g.N), 0);
    mbedtls_ecp_point r;
    mbedtls_ecp_point_init(&r);
    Affine want;
    ASSERT_EQ(mbedtls_ecp_mul(&curve.g, &r, &k.v, &curve.g.G, counter_rng, &rng), 0);
    curve.multiply(want, k.v, g);
    expect_point(r, want, "k G");
    ASSERT_EQ(mbedtls_ecp_mul(&curve.g, &r, &k.v, &other, counter_rng, &rng), 0);
    curve.multiply(want, k.v, other_affine);
    expect_point(r, want, "k (7 G)");
    mbedtls_ecp_point_free(&r);
  }
  mbedtls_ecp_point_free(&other);
}

TEST(P256Points, MixedAdditionOfAPointAndItselfOrItsNegative) {
  Curve curve;
  mbedtls_ecp_point p;
  mbedtls_ecp_point r;
  mbedtls_ecp_point_init(&p);
  mbedtls_ecp_point_init(&r);
  ASSERT_EQ(mbedtls_ecp_copy(&p, &curve.g.G), 0);
  // G + G through the addition: the doubling, then normalized, is 2 G.
  ASSERT_EQ(mbedtls_internal_ecp_add_mixed(&curve.g, &r, &p, &curve.g.G), 0);
  ASSERT_EQ(mbedtls_internal_ecp_normalize_jac(&curve.g, &r), 0);
  Affine g;
  g.infinity = false;
  ASSERT_EQ(mbedtls_mpi_copy(&g.x.v, &curve.g.G.X), 0);
  ASSERT_EQ(mbedtls_mpi_copy(&g.y.v, &curve.g.G.Y), 0);
  Affine two_g;
  Curve::copy(two_g, g);
  curve.add_into(two_g, g);
  expect_point(r, two_g, "G + G");
  // And in place (R the same point as P), as the comb calls it.
  ASSERT_EQ(mbedtls_internal_ecp_double_jac(&curve.g, &p, &p), 0);
  ASSERT_EQ(mbedtls_internal_ecp_normalize_jac(&curve.g, &p), 0);
  expect_point(p, two_g, "2 G in place");
  // G + (-G): the point at infinity (Z = 0).
  mbedtls_ecp_point minus_g;
  mbedtls_ecp_point_init(&minus_g);
  ASSERT_EQ(mbedtls_ecp_copy(&minus_g, &curve.g.G), 0);
  ASSERT_EQ(mbedtls_mpi_sub_mpi(&minus_g.Y, &curve.g.P, &curve.g.G.Y), 0);
  ASSERT_EQ(mbedtls_internal_ecp_add_mixed(&curve.g, &r, &curve.g.G, &minus_g), 0);
  EXPECT_EQ(mbedtls_mpi_cmp_int(&r.Z, 0), 0);
  // Not normalized Q, and a value no coordinate can hold, are refused.
  ASSERT_EQ(mbedtls_mpi_lset(&minus_g.Z, 2), 0);
  EXPECT_EQ(mbedtls_internal_ecp_add_mixed(&curve.g, &r, &curve.g.G, &minus_g),
            MBEDTLS_ERR_ECP_BAD_INPUT_DATA);
  ASSERT_EQ(mbedtls_mpi_lset(&p.Z, 1), 0);
  ASSERT_EQ(mbedtls_mpi_shift_l(&p.X, 300), 0);
  EXPECT_EQ(mbedtls_internal_ecp_double_jac(&curve.g, &r, &p), MBEDTLS_ERR_ECP_BAD_INPUT_DATA);
  mbedtls_ecp_point_free(&minus_g);
  mbedtls_ecp_point_free(&p);
  mbedtls_ecp_point_free(&r);
}

}  // namespace
}  // namespace starling::net::tls::p256
