"""Who may depend on each layer (docs/architecture.md), for package() visibility.

Layers, bottom up: kernel (with the HAL interfaces, kernel/hal), then drivers
and net side by side, then platform (the board packages, which bind drivers),
then apps. A layer is visible to the layers above it and to the consumers
(tests, fuzzers, benchmarks, the toolchain's tests). //test/lint:layering_test
checks the same rules on the whole graph, edges from select() included.
"""

CONSUMERS = [
    "//bench:__subpackages__",
    "//fuzz:__subpackages__",
    "//test:__subpackages__",
    "//toolchain/compare:__pkg__",
    "//toolchain/tests:__subpackages__",
]

# Drivers: used by the board packages (and other drivers), never by net or apps.
DRIVERS_VISIBILITY = ["//drivers:__subpackages__", "//platform:__subpackages__"] + CONSUMERS

# The network stack: used by the network bring-up (platform) and apps.
NET_VISIBILITY = ["//net:__subpackages__", "//platform:__subpackages__", "//apps:__subpackages__"] + CONSUMERS

# The board packages: linked into images by starling_app; apps use the
# selectors of //platform (nic.h, the network bring-up).
PLATFORM_VISIBILITY = ["//platform:__subpackages__", "//apps:__subpackages__"] + CONSUMERS

# Applications: nothing below them.
APPS_VISIBILITY = ["//apps:__subpackages__"] + CONSUMERS
