/* Test-only lwIP options: Starling's own (net/lwip/lwipopts.h) with more
 * PCBs, because the host tests run both ends of every connection in one lwIP
 * instance (50 concurrent clients = 100 PCBs). Everything else is unchanged. */
#ifndef STARLING_NET_TCP_TESTS_PORT_LWIPOPTS_H_
#define STARLING_NET_TCP_TESTS_PORT_LWIPOPTS_H_
#include "net/lwip/lwipopts.h"
#undef MEMP_NUM_TCP_PCB
#define MEMP_NUM_TCP_PCB 160
#endif
