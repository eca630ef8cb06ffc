#!/bin/bash
# Boots a Starling kernel on QEMU's riscv64 `virt` machine with the system's
# qemu-system-riscv64 and exits with the guest's exit code.
#
#   run_qemu.sh --kernel ELF [--timeout SECONDS] [--memory SIZE] [--serial-stdio]
#               [--gdb[=PORT]] [--pcap FILE] [--no-rng]
#               [--boot-files CPIO | --tls-cert PEM --tls-key PEM | --tls-throwaway]
#               [--no-tls] [--management-token FILE] [--management-ca PEM]
#               [--token-throwaway]
#               [-- QEMU ARGS...]
#   run_qemu.sh --dump-dtb FILE [--memory SIZE] [-- QEMU ARGS...]
#
# The guest shuts down through SBI SRST (exit 0) or the sifive_test finisher
# (exit N), see platform/qemu_virt/board.cc. With --timeout, a guest that has
# not shut down by then is killed and the runner exits 124. --serial-stdio
# connects the UART straight to stdin/stdout with no monitor (no Ctrl-A
# escapes), so a test can pipe bytes into the guest's serial input.
# --gdb stops the hart before the first instruction and waits for a debugger
# on 127.0.0.1:PORT (default 1234); the runner prints the gdb-multiarch command.
# --pcap FILE writes every frame of the guest's NIC (netdev n0) to FILE, for
# Wireshark/tshark (QEMU's filter-dump).
# --dump-dtb FILE writes the device tree this machine and CPU model give the
# guest to FILE and exits without booting (`dtc -I dtb FILE` prints it): the
# CPU's riscv,isa there is what toolchain/flags.bzl's BOARD_ISA pins.
# The board's entropy source, a virtio-rng device, is always added after the
# QEMU ARGS (so a NIC given there keeps the highest virtio-mmio slot);
# --no-rng leaves it out, to see how an image copes with no entropy.
# Boot files (docs/boot-files.md), loaded as QEMU's -initrd: --boot-files
# CPIO as it is; --tls-cert/--tls-key put into an archive as tls/cert.pem
# and tls/key.pem (HTTPS for apps/httpd); --tls-throwaway makes a
# self-signed ECDSA P-256 pair with openssl for this run only (in a
# temporary directory, removed at exit), prints its fingerprint, and is
# skipped when boot files are given otherwise, with --no-tls, or under
# `bazel test` (TEST_SRCDIR set: tests bring their own).
# --management-token FILE and --management-ca PEM go into the same archive
# as management/token and management/client-ca.pem (who may read
# apps/httpd's /metrics, docs/tls.md); --token-throwaway makes a token for
# this run (openssl rand -hex 32) and prints it, under the same conditions.
set -euo pipefail

usage() {
  sed -n '2,38p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

kernel=""
timeout_s=""
memory="128M"
console=(-nographic)
gdb_port=""
pcap=""
rng=(-device virtio-rng-device)
extra=()
boot_files="" tls_cert="" tls_key="" tls_throwaway=false no_tls=false
token_file="" client_ca="" token_throwaway=false
dump_dtb=""
# The CPU model: QEMU 7.2's rv64 (its extensions: toolchain/flags.bzl).
cpu=rv64
while [[ $# -gt 0 ]]; do
  case "$1" in
    --kernel) kernel=${2:?--kernel needs a path}; shift 2 ;;
    --timeout) timeout_s=${2:?--timeout needs seconds}; shift 2 ;;
    --memory) memory=${2:?--memory needs a size such as 128M}; shift 2 ;;
    --serial-stdio) console=(-display none -serial stdio -monitor none); shift ;;
    --gdb) gdb_port=1234; shift ;;
    --gdb=*) gdb_port=${1#--gdb=}; shift ;;
    --pcap) pcap=${2:?--pcap needs a file name}; shift 2 ;;
    --no-rng) rng=(); shift ;;
    --boot-files) boot_files=${2:?--boot-files needs a cpio archive}; shift 2 ;;
    --tls-cert) tls_cert=${2:?--tls-cert needs a PEM file}; shift 2 ;;
    --tls-key) tls_key=${2:?--tls-key needs a PEM file}; shift 2 ;;
    --tls-throwaway) tls_throwaway=true; shift ;;
    --no-tls) no_tls=true; shift ;;
    --management-token) token_file=${2:?--management-token needs a file holding the token}; shift 2 ;;
    --management-ca) client_ca=${2:?--management-ca needs a PEM file}; shift 2 ;;
    --token-throwaway) token_throwaway=true; shift ;;
    --dump-dtb) dump_dtb=${2:?--dump-dtb needs a file name}; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) usage ;;
    *) echo "run_qemu.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
[[ -n "$kernel" || -n "$dump_dtb" ]] || { echo "run_qemu.sh: --kernel is required" >&2; usage; }
[[ -n "$dump_dtb" || -f "$kernel" ]] || { echo "run_qemu.sh: kernel '$kernel' not found" >&2; exit 2; }
if [[ -n "$gdb_port" && ! "$gdb_port" =~ ^[0-9]+$ ]]; then
  echo "run_qemu.sh: --gdb=PORT takes a TCP port number, got '$gdb_port'" >&2
  exit 2
fi
if [[ -n "$timeout_s" && ! "$timeout_s" =~ ^[0-9]+$ ]]; then
  echo "run_qemu.sh: --timeout takes whole seconds, got '$timeout_s'" >&2
  exit 2
fi

qemu=${STARLING_QEMU:-qemu-system-riscv64}
if ! command -v "$qemu" >/dev/null 2>&1; then
  echo "starling: $qemu not found. Fix: sudo ./setup.sh (installs Debian's qemu-system-misc)." >&2
  exit 127
fi
# Tested against Debian 12's QEMU 7.2: its virt machine layout, bundled
# OpenSBI and virtio-mmio defaults are what the board package assumes.
# `qemu --version` costs 50-150 ms, on every launch before the guest boots:
# the answer is cached per binary (path, size and mtime), where a cache
# directory is writable; otherwise asked every time.
qemu_path=$(command -v "$qemu")
qemu_stamp=$(stat -L -c '%n %s %Y' "$qemu_path" 2>/dev/null || true)
version_cache="${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/starling/qemu-version"
version=""
if [[ -n "$qemu_stamp" && -r "$version_cache" ]]; then
  read -r cached_stamp_path cached_stamp_size cached_stamp_mtime cached_version <"$version_cache" || true
  if [[ "$cached_stamp_path $cached_stamp_size $cached_stamp_mtime" == "$qemu_stamp" ]]; then
    version=$cached_version
  fi
fi
if [[ -z "$version" ]]; then
  version=$("$qemu" --version | sed -n '1s/.*version \([0-9][0-9.]*\).*/\1/p')
  if [[ -n "$qemu_stamp" && -n "$version" ]] && mkdir -p "${version_cache%/*}" 2>/dev/null; then
    echo "$qemu_stamp $version" >"$version_cache.$$" 2>/dev/null && mv -f "$version_cache.$$" "$version_cache" 2>/dev/null || rm -f "$version_cache.$$"
  fi
fi
if [[ "$version" != 7.2.* ]]; then
  echo "starling: $qemu is version ${version:-unknown}; Starling expects QEMU 7.2.x (Debian 12's qemu-system-misc)." >&2
  echo "Fix: install Debian 12's qemu-system-misc (sudo ./setup.sh), or point STARLING_QEMU at a 7.2 build." >&2
  exit 1
fi
if [[ -n "$dump_dtb" ]]; then
  exec "$qemu" -machine "virt,dumpdtb=$dump_dtb" -cpu "$cpu" -smp 1 -m "$memory" -display none \
    -bios default "${extra[@]}" "${rng[@]}"
fi

# Say which host ports reach the guest (user networking's hostfwd rules).
forwarded=false
for arg in "${extra[@]}"; do
  rules=$(grep -o 'hostfwd=[a-z]*:[0-9.]*:[0-9]*-[0-9.]*:[0-9]*' <<<"$arg" || true)
  while read -r rule; do
    [[ -n "$rule" ]] || continue
    if [[ "$rule" =~ ^hostfwd=([a-z]+):([0-9.]*):([0-9]+)-[0-9.]*:([0-9]+)$ ]]; then
      echo "starling: host ${BASH_REMATCH[2]:-0.0.0.0}:${BASH_REMATCH[3]}/${BASH_REMATCH[1]} -> guest port ${BASH_REMATCH[4]}/${BASH_REMATCH[1]}" >&2
      forwarded=true
    fi
  done <<<"$rules"
done
# QEMU 7.2's hostfwd takes IPv4 host addresses only ("Bad host address" for
# [::1]): over user networking the guest's IPv6 addresses (it gets one by
# SLAAC from QEMU's fec0::/64) cannot be reached from the host.
if $forwarded; then
  echo "starling: IPv6: QEMU $version's user networking forwards IPv4 only; to reach the guest over IPv6, give it a TAP (docs/ipv6.md, \"From the host\")" >&2
fi

# Boot files: at most one -initrd.
has_initrd=false
for arg in "${extra[@]}"; do [[ "$arg" != "-initrd" ]] || has_initrd=true; done
if [[ -n "$tls_cert$tls_key" && ( -z "$tls_cert" || -z "$tls_key" ) ]]; then
  echo "run_qemu.sh: --tls-cert and --tls-key go together (the certificate and its key)" >&2
  exit 2
fi
if [[ -n "$boot_files" || -n "$tls_cert$token_file$client_ca" ]] && $has_initrd; then
  echo "run_qemu.sh: boot files given twice (--boot-files/--tls-cert/--management-* and -initrd): give one" >&2
  exit 2
fi
if [[ -n "$boot_files" && -n "$tls_cert$token_file$client_ca" ]]; then
  echo "run_qemu.sh: --boot-files is the whole archive: put the certificate, key and token in it (docs/boot-files.md), or give --tls-cert/--management-* alone" >&2
  exit 2
fi
for f in "$token_file" "$client_ca" "$tls_cert" "$tls_key"; do
  [[ -z "$f" || -r "$f" ]] || { echo "run_qemu.sh: '$f' not found or not readable" >&2; exit 2; }
done
# The scratch directory for made files (removed at exit: it may hold a key).
scratch() {
  if [[ -z "${tls_dir:-}" ]]; then
    tls_dir=$(mktemp -d "${TMPDIR:-/tmp}/starling-tls.XXXXXX")
    trap 'rm -rf "$tls_dir"' EXIT
  fi
}
if $tls_throwaway && ! $no_tls && [[ -z "$boot_files$tls_cert" ]] && ! $has_initrd &&
    [[ -z "${TEST_SRCDIR:-}" ]]; then
  command -v openssl >/dev/null || { echo "starling: openssl not found for the throwaway certificate. Fix: sudo ./setup.sh (installs openssl), or give --tls-cert/--tls-key" >&2; exit 127; }
  scratch
  tls_cert="$tls_dir/cert.pem" tls_key="$tls_dir/key.pem"
  if ! openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$tls_key" \
      -out "$tls_cert" -days 30 -subj /CN=localhost \
      -addext "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:10.0.2.15" 2>"$tls_dir/openssl.log"; then
    cat "$tls_dir/openssl.log" >&2
    exit 1
  fi
  echo "starling: a throwaway TLS certificate for this run only (self-signed, deleted at exit): $tls_cert" >&2
  echo "starling: its $(openssl x509 -in "$tls_cert" -noout -fingerprint -sha256)" >&2
  echo "starling: your own: --tls-cert CERT --tls-key KEY, or --boot-files CPIO (docs/boot-files.md)" >&2
fi
if $token_throwaway && [[ -z "$boot_files$token_file$client_ca" ]] && ! $has_initrd &&
    [[ -z "${TEST_SRCDIR:-}" ]]; then
  command -v openssl >/dev/null || { echo "starling: openssl not found for the throwaway token. Fix: sudo ./setup.sh (installs openssl), or give --management-token FILE" >&2; exit 127; }
  scratch
  token_file="$tls_dir/token"
  (umask 077 && openssl rand -hex 32 >"$token_file")
  echo "starling: a throwaway management token for this run only: $(cat "$token_file")" >&2
  echo "starling: read /metrics with: curl -H \"Authorization: Bearer $(cat "$token_file")\" http://127.0.0.1:${STARLING_HTTPD_PORT:-18080}/metrics" >&2
  echo "starling: your own: --management-token FILE or --management-ca PEM (docs/tls.md)" >&2
fi
entries=()
[[ -z "$tls_cert" ]] || entries+=("tls/cert.pem=$tls_cert" "tls/key.pem=$tls_key")
[[ -z "$token_file" ]] || entries+=("management/token=$token_file")
[[ -z "$client_ca" ]] || entries+=("management/client-ca.pem=$client_ca")
if [[ ${#entries[@]} -gt 0 ]]; then
  here=$(cd "$(dirname "$0")" && pwd)
  make_initrd="$here/../boot_media/make_initrd.py"
  [[ -f "$make_initrd" ]] || make_initrd="${RUNFILES_DIR:-$0.runfiles}/starling/platform/boot_media/make_initrd.py"
  scratch
  boot_files="$tls_dir/boot.cpio"
  python3 "$make_initrd" "$boot_files" "${entries[@]}" || exit 1
fi
if [[ -n "$boot_files" ]]; then
  [[ -f "$boot_files" ]] || { echo "run_qemu.sh: boot files '$boot_files' not found" >&2; exit 2; }
  extra+=(-initrd "$boot_files")
fi

cmd=("$qemu" -machine virt -cpu "$cpu" -smp 1 -m "$memory" "${console[@]}" -bios default -no-reboot
     -kernel "$kernel" "${extra[@]}" "${rng[@]}")
if [[ -n "$pcap" ]]; then
  if ! printf '%s\n' "${extra[@]}" | grep -q 'id=n0'; then
    echo "run_qemu.sh: --pcap needs a NIC on netdev n0 (e.g. //apps/echo:qemu)" >&2
    exit 2
  fi
  cmd+=(-object "filter-dump,id=starling_pcap,netdev=n0,file=$pcap")
  echo "starling: writing the guest's network traffic to $pcap" >&2
fi
if [[ -n "$gdb_port" ]]; then
  # Loopback only: the gdbstub gives full control of the guest.
  cmd+=(-S -gdb "tcp:127.0.0.1:$gdb_port")
  echo "starling: QEMU waits for a debugger. In another terminal:" >&2
  echo "  gdb-multiarch $(readlink -f "$kernel") -ex 'target remote 127.0.0.1:$gdb_port'" >&2
fi
if [[ -n "$timeout_s" ]]; then
  cmd=(timeout --foreground -k 5 "$timeout_s" "${cmd[@]}")
fi
if [[ -t 0 ]]; then
  echo "starling: booting $kernel on QEMU $version (Ctrl-A X quits)" >&2
fi
if [[ -n "${tls_dir:-}" ]]; then
  # Not exec: the EXIT trap removes the throwaway key when QEMU ends. A
  # signal to us goes to QEMU too (the same process group at a terminal;
  # forwarded here for a test that kills only us).
  trap 'kill -TERM "$child" 2>/dev/null' TERM INT
  "${cmd[@]}" &
  child=$!
  wait "$child" || status=$?
  wait "$child" 2>/dev/null || true
  exit "${status:-0}"
fi
exec "${cmd[@]}"
