#include "net/port/lwip_error.h"

#include <gtest/gtest.h>

namespace starling::net {
namespace {

// The one mapping UDP and TCP share; a full TX ring (ERR_WOULDBLOCK from the
// netif) must stay kBusy, lwIP out of memory kNoMemory.
TEST(LwipError, EachErrTHasItsError) {
  EXPECT_EQ(from_lwip_error(ERR_MEM), Error::kNoMemory);
  EXPECT_EQ(from_lwip_error(ERR_BUF), Error::kNoMemory);
  EXPECT_EQ(from_lwip_error(ERR_WOULDBLOCK), Error::kBusy);
  EXPECT_EQ(from_lwip_error(ERR_USE), Error::kBusy);
  EXPECT_EQ(from_lwip_error(ERR_INPROGRESS), Error::kBusy);
  EXPECT_EQ(from_lwip_error(ERR_ALREADY), Error::kBusy);
  EXPECT_EQ(from_lwip_error(ERR_ISCONN), Error::kBusy);
  EXPECT_EQ(from_lwip_error(ERR_TIMEOUT), Error::kTimedOut);
  EXPECT_EQ(from_lwip_error(ERR_RTE), Error::kNotFound);
  EXPECT_EQ(from_lwip_error(ERR_VAL), Error::kInvalidArgument);
  EXPECT_EQ(from_lwip_error(ERR_ARG), Error::kInvalidArgument);
  for (err_t e : {ERR_RST, ERR_ABRT, ERR_CLSD, ERR_CONN, ERR_IF}) {
    EXPECT_EQ(from_lwip_error(e), Error::kDeviceError) << static_cast<int>(e);
  }
}

}  // namespace
}  // namespace starling::net
