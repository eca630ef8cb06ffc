#!/bin/bash
# Renders docs/architecture.dot to docs/architecture.png with Graphviz
# (Debian's graphviz package). Run after editing the diagram.
set -euo pipefail
cd "$(dirname "$0")"
dot -Tpng -Gdpi=110 architecture.dot -o architecture.png
echo "wrote $(pwd)/architecture.png"
