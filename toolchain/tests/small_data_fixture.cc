// Built with clang 19's own default small-data limit (8) on purpose: the
// detector test proves no_small_data_test would see what the seed's lwIP build
// had. `int a; static int b;` is the seed's bug in one line.
int small_global;
static int small_static;

int touch_small_data() {
  return small_global + small_static++;
}
