#ifndef STARLING_PLATFORM_NIC_H_
#define STARLING_PLATFORM_NIC_H_

// The board's network interface, for applications: `board::Nic` (the concrete
// driver type, checked against hal::Nic) and `board::nic(pages)`, which brings
// it up once. Which board is decided by the platform being built for
// (//platform:nic selects the board package; each defines its macro), so an
// application's source is the same on every board.
#if defined(STARLING_BOARD_QEMU_VIRT)
#include "platform/qemu_virt/nic.h"
#elif defined(STARLING_BOARD_STAR64)
#include "platform/star64/nic.h"
#elif defined(STARLING_BOARD_HOST)
#include "platform/host/nic.h"
#else
#error "no board NIC: build for a board platform (--config=qemu, --config=star64 or the host)"
#endif

#include "kernel/hal/nic.h"

static_assert(starling::hal::Nic<starling::board::Nic>);

#endif  // STARLING_PLATFORM_NIC_H_
