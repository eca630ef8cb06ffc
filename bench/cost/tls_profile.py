#!/usr/bin/env python3
"""Where TLS's instructions go, function by function (issue 50, docs/tls.md).

  bazel run //bench/cost:tls_profile [-- --top N] [--markdown]

Boots //bench/tls's image, the cost gate's opt build (its TLS run, with
`tls_cost.handshakes=1`: a full handshake with X25519, one with P-256
alone, one resumed, fifteen keep-alive requests) under QEMU -icount
-singlestep, with every executed instruction logged with its function
(-d exec,nochain) into a FIFO this script reads as QEMU writes it: about
60 million lines, none stored.
The image calls a marker function as each counted server call begins
(starling_tls_cost_full_handshake, ...) and another as it ends
(starling_tls_cost_leave), so each instruction between them is the
server's and is put to that kind of work; the client's, in the same guest,
are not counted. Per handshake (or request): the instructions by part
(curve arithmetic, hashing, the cipher, the record and handshake layers,
copies...), the largest functions, and who called the copies and the
zeroing (memcpy, memset: the function the log shows just before each
call), beside the guest's own instret figure of the same run. A run takes
about 5 minutes on this machine (19 minutes with the gate's four of each).
"""

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

import cost_profile  # the packet profile's part_of, beside this file
from cost_profile import OTHER, bare, demangle, pick

MARKS = {
    "starling_tls_cost_full_handshake": "full_handshake",
    "starling_tls_cost_full_handshake_p256": "full_handshake_p256",
    "starling_tls_cost_resumed_handshake": "resumed_handshake",
    "starling_tls_cost_keepalive_request": "keepalive_request",
}
LEAVE = "starling_tls_cost_leave"
KINDS = tuple(MARKS.values())

# Parts of the server's work, by demangled function: the first pattern that
# matches names the part.
PARTS = (
    # HACL*'s ladder (Everest: the agreement) and net/tls/x25519's comb (the
    # key share's public key).
    ("X25519 (HACL*'s ladder, the comb)", r"Hacl_|[Cc]urve25519|everest|x25519"),
    ("P-256 and bignum (ECP, ECDSA, MPI)", r"^mbedtls_(ecp|mpi|ecdsa|ecdh)|^ecp_|^mpi_|ecdsa|"
                                           r"mbedtls_mpi_core|^ecp|_ecp_|^add_sub_mpi$|"
                                           r"^starling::net::tls::p256::"),
    ("hashes, HMAC, HKDF", r"sha256|sha512|sha3|hmac|hkdf|^mbedtls_md|^md_"),
    ("ChaCha20, Poly1305, AES, GCM", r"chacha|poly1305|^mbedtls_aes|^aes_|gcm|^mbedtls_cipher|"
                                     r"^cipher_"),
    ("PSA crypto layer", r"^psa_|^mbedtls_psa|^psa"),
    ("X.509, PK, ASN.1", r"x509|^mbedtls_pk|^pk_|asn1|^mbedtls_oid"),
    ("random (CTR-DRBG)", r"ctr_drbg|entropy|random"),
    ("copies and zeroing", r"^(memcpy|memmove|memset|memcmp)$|zeroize|^mbedtls_ct_"),
    ("allocator", r"calloc|free$|^starling::net::tls::.*(alloc|memory)|^starling::mem::Heap::|"
                  r"operator new|operator delete"),
    ("TLS handshake and records", r"^mbedtls_ssl|^ssl_|tls13|tls12|^mbedtls_tls"),
)

COPIES = ("memcpy", "memset", "memmove")


def attribute(lines):
    """({kind: Counter(symbol: instructions)}, {kind: Counter((copy, caller): instructions)})
    from QEMU's exec log lines. A copy's caller is the function the log
    shows just before the copy's first instruction."""
    counts = {kind: collections.Counter() for kind in KINDS}
    copies = {kind: collections.Counter() for kind in KINDS}
    current = current_copies = None
    previous = caller = None
    for line in lines:
        if not line.startswith("Trace"):
            continue
        symbol = line.rsplit("]", 1)[-1].strip() or "?"
        kind = MARKS.get(symbol)
        if kind is not None:
            current, current_copies = counts[kind], copies[kind]
        elif symbol == LEAVE:
            current = current_copies = None
        elif current is not None:
            current[symbol] += 1
            if symbol in COPIES:
                if previous != symbol:
                    caller = previous
                current_copies[(symbol, caller)] += 1
        previous = symbol
    return counts, copies


def part_of(name):
    return cost_profile.part_of(name, PARTS)


def units_of(console):
    """What each kind's counts are divided by, as the image printed it."""
    m = re.search(r"tls_cost: profile handshakes=(\d+) requests=(\d+)", console)
    if m is None:
        return None
    handshakes, requests = int(m.group(1)), int(m.group(2))
    return {"full_handshake": handshakes, "full_handshake_p256": handshakes,
            "resumed_handshake": handshakes, "keepalive_request": requests}


def guest_figures(console):
    return {m.group(1): int(m.group(2))
            for m in re.finditer(r"tls_cost: tls\.([a-z0-9_]+)\.server_instructions=(\d+)", console)}


def report(kind, units, symbols, copies, names, guest, top, markdown, w):
    total = sum(symbols.values())
    parts = collections.Counter()
    for symbol, count in symbols.items():
        parts[part_of(names.get(symbol, symbol))] += count
    unit = "request" if kind == "keepalive_request" else "handshake"
    own = f"; the guest's instret: {guest:,}" if guest else ""
    if markdown:
        w(f"\n#### {kind}: {total / units:,.0f} server instructions per {unit}{own}\n\n")
        w(f"| part | per {unit} | share |\n|---|---:|---:|\n")
        for part, count in parts.most_common():
            w(f"| {part} | {count / units:,.0f} | {100 * count / total:.1f}% |\n")
        w(f"\n| function | per {unit} | share | part |\n|---|---:|---:|---|\n")
        for symbol, count in symbols.most_common(top):
            name = names.get(symbol, symbol)
            w(f"| `{bare(name)}` | {count / units:,.0f} | {100 * count / total:.1f}% | "
              f"{part_of(name)} |\n")
        w(f"\n| copy | called from | per {unit} |\n|---|---|---:|\n")
        for (copy, caller), count in copies.most_common(top):
            w(f"| `{copy}` | `{bare(names.get(caller, caller or '?'))}` | {count / units:,.0f} |\n")
        return
    w(f"\n== {kind}: {units} {unit}s; per {unit} {total / units:,.0f} server instructions{own}\n")
    for part, count in parts.most_common():
        w(f"  {part:<36} {count / units:>13,.0f} {100 * count / total:>6.1f}%\n")
    w(f"  largest functions (instructions per {unit}, share, part):\n")
    for symbol, count in symbols.most_common(top):
        name = names.get(symbol, symbol)
        w(f"  {count / units:>13,.0f} {100 * count / total:>6.1f}%  {bare(name)[:70]}  "
          f"[{part_of(name)}]\n")
    w(f"  copies and zeroing by caller (instructions per {unit}):\n")
    for (copy, caller), count in copies.most_common(top):
        w(f"  {count / units:>13,.0f}  {copy:<8} from {bare(names.get(caller, caller or '?'))[:70]}\n")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--image", nargs="+", required=True,
                        help="//bench/tls's image files (its .run.sh boots it)")
    parser.add_argument("--cxxfilt", help="llvm-cxxfilt, to demangle C++ names")
    parser.add_argument("--top", type=int, default=15, help="largest functions shown per kind")
    parser.add_argument("--markdown", action="store_true", help="tables for docs/tls.md")
    parser.add_argument("--handshakes", type=int, default=1,
                        help="handshakes of each kind (the gate's run: 4)")
    args = parser.parse_args(argv)

    launcher = pick(args.image, ".run.sh")
    if launcher is None:
        print("profile: FAIL: no .run.sh among --image's files", file=sys.stderr)
        return 2
    work = tempfile.mkdtemp(prefix="starling-tls-profile-")
    fifo = os.path.join(work, "exec.fifo")
    os.mkfifo(fifo)
    console_path = os.path.join(work, "console.log")
    command = [launcher, "--timeout", "3600", "--", "-append",
               f"tls_cost.handshakes={args.handshakes}", "-singlestep", "-d", "exec,nochain",
               "-D", fifo]
    print("profile: " + " ".join(command), file=sys.stderr, flush=True)
    with open(console_path, "wb") as console_out:
        qemu = subprocess.Popen(command, stdout=console_out, stderr=subprocess.STDOUT)
        with open(fifo, errors="replace") as log:
            counts, copies = attribute(log)
        code = qemu.wait()
    with open(console_path, errors="replace") as f:
        console = f.read()
    units = units_of(console)
    if code != 0 or units is None or "tls_cost: done" not in console:
        print(f"profile: FAIL: the TLS run did not finish (exit {code}); its console:\n"
              f"{console[-2000:]}", file=sys.stderr)
        return 1
    empty = [kind for kind in KINDS if not counts[kind]]
    if empty:
        print(f"profile: FAIL: no instruction logged for {', '.join(empty)} (the markers?)",
              file=sys.stderr)
        return 1
    mangled = sorted({s for c in counts.values() for s in c} |
                     {caller for c in copies.values() for _, caller in c if caller})
    names = demangle(args.cxxfilt, mangled)
    guest = guest_figures(console)
    for kind in KINDS:
        report(kind, units[kind], counts[kind], copies[kind], names, guest.get(kind), args.top,
               args.markdown, sys.stdout.write)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
