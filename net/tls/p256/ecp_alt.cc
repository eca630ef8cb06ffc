// P-256's point arithmetic for Mbed TLS's ECP hooks (MBEDTLS_ECP_INTERNAL_ALT
// with the ADD_MIXED, DOUBLE_JAC, NORMALIZE_JAC and NORMALIZE_JAC_MANY
// options, net/tls/mbedtls_config.h): the same formulas as library/ecp.c's
// generic functions, step for step (doubling dbl-1998-cmo-2 for a = -3,
// mixed addition GECC 3.22 with its special cases, normalization by one
// inversion, Montgomery's trick for many), on field.h's 64-bit limbs instead
// of bignums. The comb method, the scalar recoding, the blinding and every
// other curve stay Mbed TLS's; only P-256 comes here
// (mbedtls_internal_ecp_grp_capable).
//
// Coordinates go in and out as Mbed TLS's mpis: read into limbs first (a
// value Mbed TLS holds is below p; one above 2^256 or negative is refused),
// written back with four limbs and any higher ones zeroed, so that P and R
// may be the same point.
#define MBEDTLS_ALLOW_PRIVATE_ACCESS

#include <cstddef>
#include <cstdint>

#include "mbedtls/bignum.h"
#include "mbedtls/ecp.h"
#include "mbedtls/platform.h"
#include "mbedtls/platform_util.h"
#include "net/tls/p256/ecp_alt.h"
#include "net/tls/p256/field.h"

namespace starling::net::tls::p256 {
namespace {

static_assert(sizeof(mbedtls_mpi_uint) == sizeof(std::uint64_t),
              "the limbs are read as Mbed TLS's: 64-bit (patch 0005 on RV64)");

struct Jacobian {
  Fe x, y, z;
};

bool load(const mbedtls_mpi& v, Fe& out) {
  if (v.s < 0 && mbedtls_mpi_cmp_int(&v, 0) != 0) return false;
  for (std::size_t i = 0; i < 4; ++i) out.w[i] = i < v.n ? v.p[i] : 0;
  for (std::size_t i = 4; i < v.n; ++i) {
    if (v.p[i] != 0) return false;
  }
  out = reduce_once(out);
  return true;
}

int store(const Fe& f, mbedtls_mpi& v) {
  if (int ret = mbedtls_mpi_grow(&v, 4); ret != 0) return ret;
  v.s = 1;
  for (std::size_t i = 0; i < 4; ++i) v.p[i] = f.w[i];
  for (std::size_t i = 4; i < v.n; ++i) v.p[i] = 0;
  return 0;
}

bool load(const mbedtls_ecp_point& p, Jacobian& out) {
  return load(p.X, out.x) && load(p.Y, out.y) && load(p.Z, out.z);
}

int store(const Jacobian& j, mbedtls_ecp_point& p) {
  if (int ret = store(j.x, p.X); ret != 0) return ret;
  if (int ret = store(j.y, p.Y); ret != 0) return ret;
  return store(j.z, p.Z);
}

Fe twice(const Fe& a) {
  return add(a, a);
}

// dbl-1998-cmo-2 with a = -3, as ecp_double_jac: 4M + 4S.
Jacobian double_jac(const Jacobian& p) {
  Fe t1 = sqr(p.z);
  const Fe t2 = add(p.x, t1);
  Fe t3 = sub(p.x, t1);
  t1 = mul(t2, t3);
  const Fe m = add(twice(t1), t1);         // M = 3 (X + Z^2)(X - Z^2)
  const Fe y2 = twice(sqr(p.y));           // 2 Y^2
  const Fe s = twice(mul(p.x, y2));        // S = 4 X Y^2
  const Fe u = twice(sqr(y2));             // U = 8 Y^4
  const Fe t = sub(sub(sqr(m), s), s);     // T = M^2 - 2 S
  const Fe y = sub(mul(sub(s, t), m), u);  // M (S - T) - U
  const Fe z = twice(mul(p.y, p.z));       // 2 Y Z
  return {t, y, z};
}

// p in affine coordinates (X / Z^2, Y / Z^3, 1), given zi = 1 / Z.
Jacobian to_affine(const Jacobian& p, const Fe& zi) {
  const Fe zi2 = sqr(zi);
  return {mul(p.x, zi2), mul(mul(p.y, zi), zi2), Fe{{1, 0, 0, 0}}};
}

}  // namespace
}  // namespace starling::net::tls::p256

using starling::net::tls::p256::Fe;
using starling::net::tls::p256::Jacobian;

extern "C" {

unsigned char mbedtls_internal_ecp_grp_capable(const mbedtls_ecp_group* grp) {
  return grp->id == MBEDTLS_ECP_DP_SECP256R1 ? 1 : 0;
}

int mbedtls_internal_ecp_init(const mbedtls_ecp_group*) {
  return 0;
}

void mbedtls_internal_ecp_free(const mbedtls_ecp_group*) {}

int mbedtls_internal_ecp_double_jac(const mbedtls_ecp_group*, mbedtls_ecp_point* R,
                                    const mbedtls_ecp_point* P) {
  using namespace starling::net::tls::p256;
  Jacobian p;
  if (!load(*P, p)) return MBEDTLS_ERR_ECP_BAD_INPUT_DATA;
  return store(double_jac(p), *R);
}

// R = P + Q, Q affine (Z = 1), as ecp_add_mixed: 8M + 3S.
int mbedtls_internal_ecp_add_mixed(const mbedtls_ecp_group*, mbedtls_ecp_point* R,
                                   const mbedtls_ecp_point* P, const mbedtls_ecp_point* Q) {
  using namespace starling::net::tls::p256;
  if (Q->Z.p == nullptr) return MBEDTLS_ERR_ECP_BAD_INPUT_DATA;
  Jacobian p;
  Jacobian q;
  if (!load(*P, p) || !load(*Q, q)) return MBEDTLS_ERR_ECP_BAD_INPUT_DATA;
  // The trivial cases (a zero operand), as the generic code: none arises
  // inside the comb method (library/ecp.c says why), so the branches tell
  // nothing secret.
  if (is_zero(p.z)) return mbedtls_ecp_copy(R, Q);
  if (is_zero(q.z)) return mbedtls_ecp_copy(R, P);
  if (!(q.z.w[0] == 1 && (q.z.w[1] | q.z.w[2] | q.z.w[3]) == 0)) {
    return MBEDTLS_ERR_ECP_BAD_INPUT_DATA;  // Q not normalized
  }
  Fe t0 = sqr(p.z);
  Fe t1 = mul(t0, p.z);
  t0 = sub(mul(t0, q.x), p.x);  // H = X2 Z1^2 - X1
  t1 = sub(mul(t1, q.y), p.y);  // r = Y2 Z1^3 - Y1
  if (is_zero(t0)) {
    if (is_zero(t1)) return store(double_jac(p), *R);  // P == Q
    return mbedtls_ecp_set_zero(R);                    // P == -Q
  }
  const Fe z = mul(p.z, t0);
  Fe t2 = sqr(t0);
  Fe t3 = mul(t2, t0);
  t2 = mul(t2, p.x);
  const Fe x = sub(sub(sqr(t1), twice(t2)), t3);
  const Fe y = sub(mul(sub(t2, x), t1), mul(t3, p.y));
  return store(Jacobian{x, y, z}, *R);
}

// (X / Z^2, Y / Z^3, 1); the caller has left out Z = 0.
int mbedtls_internal_ecp_normalize_jac(const mbedtls_ecp_group*, mbedtls_ecp_point* pt) {
  using namespace starling::net::tls::p256;
  Jacobian p;
  if (!load(*pt, p)) return MBEDTLS_ERR_ECP_BAD_INPUT_DATA;
  return store(to_affine(p, inverse(p.z)), *pt);
}

// The same for T[0..n) with one inversion (Montgomery's trick), as
// ecp_normalize_jac_many; no Z may be 0 (the comb's precomputed points).
int mbedtls_internal_ecp_normalize_jac_many(const mbedtls_ecp_group* grp, mbedtls_ecp_point* T[],
                                            size_t n) {
  using namespace starling::net::tls::p256;
  if (n < 2) return n == 0 ? 0 : mbedtls_internal_ecp_normalize_jac(grp, T[0]);
  // c[i] = Z_0 * ... * Z_i.
  auto* c = static_cast<Fe*>(mbedtls_calloc(n, sizeof(Fe)));
  if (c == nullptr) return MBEDTLS_ERR_ECP_ALLOC_FAILED;
  int ret = 0;
  Fe z;
  for (std::size_t i = 0; i < n && ret == 0; ++i) {
    if (!load(T[i]->Z, z)) {
      ret = MBEDTLS_ERR_ECP_BAD_INPUT_DATA;
    } else {
      c[i] = i == 0 ? z : mul(c[i - 1], z);
    }
  }
  if (ret == 0) {
    Fe inv = inverse(c[n - 1]);  // 1 / (Z_0 * ... * Z_i), i from n - 1 down
    for (std::size_t i = n; i-- > 0 && ret == 0;) {
      Jacobian p;
      if (!load(*T[i], p)) {
        ret = MBEDTLS_ERR_ECP_BAD_INPUT_DATA;
        break;
      }
      const Fe zi = i > 0 ? mul(inv, c[i - 1]) : inv;  // 1 / Z_i
      if (i > 0) inv = mul(inv, p.z);
      ret = store(to_affine(p, zi), *T[i]);
    }
  }
  mbedtls_platform_zeroize(c, n * sizeof(Fe));
  mbedtls_free(c);
  return ret;
}

}  // extern "C"
