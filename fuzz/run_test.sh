#!/bin/bash
# Runs a fuzzer's launcher (fuzz/launcher.sh.tpl) in its bounded test mode.
set -euo pipefail
exec "$1"
