// A host header named by absolute path (linux/const.h includes nothing else,
// so the compiler opens it fine): Bazel must refuse it because no target
// declares it.
#include "/usr/include/linux/const.h"

unsigned long host_macro_leaked = _BITUL(3);
