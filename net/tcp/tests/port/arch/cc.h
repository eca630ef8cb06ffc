/* The production port header, unchanged (found as "arch/cc.h"). */
#include "net/lwip/arch/cc.h"
