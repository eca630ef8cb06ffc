#ifndef STARLING_NET_TLS_P256_ECP_ALT_H_
#define STARLING_NET_TLS_P256_ECP_ALT_H_

#include <cstddef>

#include "mbedtls/ecp.h"

// The hooks ecp_alt.cc gives Mbed TLS (its library/ecp_internal_alt.h
// declares them for library/ecp.c), declared here for the tests that call
// them directly.
extern "C" {
unsigned char mbedtls_internal_ecp_grp_capable(const mbedtls_ecp_group* grp);
int mbedtls_internal_ecp_init(const mbedtls_ecp_group* grp);
void mbedtls_internal_ecp_free(const mbedtls_ecp_group* grp);
int mbedtls_internal_ecp_double_jac(const mbedtls_ecp_group* grp, mbedtls_ecp_point* R,
                                    const mbedtls_ecp_point* P);
int mbedtls_internal_ecp_add_mixed(const mbedtls_ecp_group* grp, mbedtls_ecp_point* R,
                                   const mbedtls_ecp_point* P, const mbedtls_ecp_point* Q);
int mbedtls_internal_ecp_normalize_jac(const mbedtls_ecp_group* grp, mbedtls_ecp_point* pt);
int mbedtls_internal_ecp_normalize_jac_many(const mbedtls_ecp_group* grp, mbedtls_ecp_point* T[],
                                            std::size_t n);
}

#endif  // STARLING_NET_TLS_P256_ECP_ALT_H_
