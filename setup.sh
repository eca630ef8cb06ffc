#!/usr/bin/env bash
# setup.sh: prepare a Debian 12 (bookworm) machine to build and test Starling.
#
# What it does (run as root; a second run changes nothing and takes a second or two):
#   1. Checks the OS (/etc/os-release: ID=debian, VERSION_CODENAME=bookworm), root, apt-get.
#   2. Makes sure apt can fetch source packages: if no deb-src entry exists for a Debian
#      archive entry, writes one deb-src stanza per Debian `deb` entry (same URIs, Suites,
#      Components, Signed-By...) to its own file, /etc/apt/sources.list.d/starling-src.sources.
#      The user's own source files are never rewritten; third-party entries (URIs without
#      "debian") are left alone.
#      Also writes deb-src stanzas for Debian 13 (trixie) to
#      /etc/apt/sources.list.d/starling-trixie-src.sources, the same Debian entries with
#      bookworm* suites named trixie*, and /etc/apt/preferences.d/starling-trixie, which pins
#      every trixie release to -1: its source packages can be fetched, its binaries never
#      installed (no trixie binary index is configured in the first place).
#   3. Runs `apt-get update` only when needed: lists missing, older than a day, a deb-src entry
#      was just added, or a package below is missing / not at a version the archive serves.
#   4. Installs the packages in PACKAGES with --no-install-recommends.
#   5. Verifies: Bazel is 4.2.3 (from dpkg: `bazel --version` prints no_version),
#      qemu-system-riscv64 is 7.2.x, and lwIP's pinned source (lwip=2.2.1+dfsg1-1+deb13u1, Debian 13) is served.
#
# It does NOT install clang/lld/llvm/libc++/picolibc/googletest: Bazel repository rules fetch
# those as pinned .debs (`apt-get download NAME=VERSION`), which is why the index must be fresh.
#
# Usage: sudo ./setup.sh [--check] [-h|--help]
#   --check    report what is missing or wrong; change nothing; exit 1 if anything is missing.
#              Does not need root.
#   -h, --help show this help.
# Exit status: 0 ok, 1 a check failed (message names cause and fix), 2 bad usage.
#
# Environment (test hooks and knobs):
#   STARLING_OS_RELEASE=FILE      read FILE instead of /etc/os-release (to fake another OS).
#   STARLING_ALLOW_UNSUPPORTED=1  proceed (with a warning) on a non-Debian / non-bookworm OS.
#   STARLING_EXTRA_PACKAGES="a b" extra packages to require (e.g. a bogus name, to test the
#                                 "not served by the archive" path).
#   STARLING_APT_MAX_AGE_HOURS=N  refresh apt lists older than N hours (default 24).
#   APT_CONFIG=FILE               apt's own variable; apt-config decides which source files are
#                                 read and where the deb-src file goes (Dir::Etc::sourceparts).
# The script can be sourced (`. ./setup.sh`) to call its functions without running main,
# e.g. `gen_deb_src_entries` to preview the deb-src stanzas it would write.
set -euo pipefail

# ---------------------------------------------------------------------------------------------
# Packages from Debian's archive, one array; each group says what needs it.
PACKAGES=(
  # Build: Bazel 4.2.3 (WORKSPACE mode) and the rule sets the WORKSPACE points at under
  # /usr/share/bazel (rules_cc is patched by our repo rule; rules_java must resolve even for C++).
  bazel-bootstrap bazel-rules-cc bazel-rules-java bazel-platforms bazel-skylib
  # Run and test the kernel: qemu-system-riscv64 (virt), OpenSBI firmware, S-mode U-Boot
  # (qemu-riscv64_smode/u-boot.bin) to rehearse the Star64 `booti` path.
  qemu-system-misc opensbi u-boot-qemu
  # Boot images: mkimage for FIT/uImage (the build uses the pinned .debs of
  # u-boot-tools, device-tree-compiler and mtools; the pinned dtc loads the
  # system's libyaml).
  u-boot-tools libyaml-0-2
  # Integration/load tests: console scripting, relays, iperf2 clients, network namespaces.
  expect socat iperf iproute2
  # Hostile-peer tests (test/robustness:hostile_tools_*): real scanners,
  # flooders and a packet crafter (Debian's python3 gets scapy).
  nmap hping3 python3-scapy
  # Hostile IPv6 peers (test/robustness:ipv6_hostile_qemu_test): THC-IPv6
  # (atk6-*) and the SI6 Networks toolkit (frag6, ra6, na6, ns6, tcp6).
  thc-ipv6 ipv6toolkit
  # A router and stateless DHCPv6 server for the IPv6 tests
  # (//test/net:dhcp6_qemu_test): dnsmasq's binary alone, no service.
  dnsmasq-base
  # HTTP clients against apps/httpd (test/http): curl, ApacheBench, wrk and
  # nghttp2's h2load (--h1).
  curl apache2-utils wrk nghttp2-client
  # TLS (docs/tls.md): the throwaway certificates of the tests and the
  # runner, and openssl s_client against the image.
  openssl
  # TLS scanners run against httpd (test/host_board:tls_clients_test).
  testssl.sh sslscan
  # GNU cpio: the boot-files archive the card's README tells users to make
  # with it is read back by make_initrd.py (platform/boot_media).
  cpio
  # The metrics page checked by Prometheus's own text parser (test/metrics).
  python3-prometheus-client
  # The libraries the pinned chronyd (@chrony, an NTP server on the SNTP
  # test's link) loads: the binary alone is extracted, not installed.
  libcap2 libedit2 libgnutls30 libnettle8 libseccomp2
  # Client certificates with chosen validity dates (test/http/sntp_qemu_test.py).
  python3-cryptography
  # The checksum offload test turns a veth's TX checksumming off, so Linux
  # computes (and its peer checks) what the guest left to virtio-net.
  ethtool
  # Host headers the toolchain tests prove a riscv64 build cannot reach (linux/const.h).
  linux-libc-dev
  # The host toolchain (pinned clang) compiles tests against the host glibc and libstdc++.
  libc6-dev libstdc++-12-dev libgcc-12-dev
  # Shared libraries the pinned clang/lld binaries load at run time (ldd: libLLVM.so.19.1's and
  # libLLVM.so.22.1's dependencies; clang 22's llvm-cov and llvm-objdump also load libcurl).
  # They do not change what the compiler emits; the build inputs stay pinned.
  libz3-4 libxml2 libedit2 libffi8 libbsd0 libicu72 libzstd1 zlib1g libtinfo6 liblzma5 libcurl4
  # Toolchain fetch by Bazel repository rules: apt-get download + dpkg-deb -x of pinned .debs,
  # `apt-get source` of lwIP (dpkg-dev), its .orig.tar.xz (xz-utils), HTTPS mirrors (ca-certificates).
  xz-utils dpkg-dev ca-certificates
  # The remote-cache test's cache server (nginx with WebDAV PUT, on loopback);
  # tshark reads the packet captures (run_qemu.sh --pcap).
  # nginx-light is also the HTTP benchmark's reference server (bench/http).
  nginx-light tshark
  # Redrawing docs/architecture.png (docs/render.sh).
  graphviz
  # The echo benchmark's plots (bench/echo: throughput and RTT against requested rate);
  # callgrind for instructions per packet on the host board (bench/echo, bench/dwmac, bench/async).
  gnuplot-nox valgrind
  # Debugging the kernel through QEMU's gdbstub; clangd of the pinned clang's
  # version for editors (bazel run //toolchain/editor:compile_commands).
  gdb-multiarch clangd-19
  # lwIP's own unit tests (net/lwip/tests): the check framework (check.h, static libcheck.a;
  # it pulls in libsubunit-dev).
  check
  # Helper scripts (installed without recommends: the minimal interpreter and stdlib).
  python3
)
# buildifier (the lint test's Starlark formatter) is pinned from the npm
# registry and fetched with npm: Debian's npm only where no npm is installed
# (a NodeSource node ships its own).
if ! command -v npm >/dev/null 2>&1; then
  PACKAGES+=(npm)
fi

BAZEL_WANT=4.2.3         # bazel-bootstrap upstream version
QEMU_WANT=7.2            # qemu-system-riscv64 major.minor
LWIP_SRC=lwip            # source package fetched by the build
LWIP_VERSION=2.2.1+dfsg1-1+deb13u1   # from Debian 13's source index (below)
SRC_FILE_NAME=starling-src.sources
# Debian 13 (trixie): its *source* index only, for sources newer than bookworm's (lwIP 2.2.1,
# issue 28). No trixie binary index is configured, and a preferences file pins every trixie
# release to -1 (never installed) in case one ever is: binaries only ever come from Debian 12.
TRIXIE_SRC_FILE_NAME=starling-trixie-src.sources
TRIXIE_PIN_FILE_NAME=starling-trixie

PROG=${0##*/}
OS_RELEASE=${STARLING_OS_RELEASE:-/etc/os-release}
MAX_AGE_HOURS=${STARLING_APT_MAX_AGE_HOURS:-24}
export DEBIAN_FRONTEND=noninteractive

CHANGES=()      # what this run changed, for the summary
PROBLEMS=()     # --check findings / final verification failures

say()  { printf '%s: %s\n' "$PROG" "$*"; }
warn() { printf '%s: warning: %s\n' "$PROG" "$*" >&2; }
die()  { printf '%s: error: %s\n' "$PROG" "$*" >&2; exit 1; }

usage() {
  cat <<EOF
Usage: sudo ./$PROG [--check] [-h|--help]
Set up a Debian 12 (bookworm) machine to build and test Starling: install Bazel 4.2.3,
QEMU 7.2 and tools from Debian's archive, enable deb-src for lwIP's source (and Debian 13's
source index, its binaries pinned out), refresh apt lists.
  --check     report what is missing; change nothing; exit 1 if anything is missing
  -h, --help  show this help
See the header of $PROG for the environment variables it reads.
EOF
}

# ---------------------------------------------------------------------------------------------
# Preflight checks.

check_os() {
  [[ -r $OS_RELEASE ]] || die "cannot read $OS_RELEASE: this script supports Debian 12 (bookworm) only."
  local id="" codename="" pretty="" line key val
  while IFS= read -r line || [[ -n $line ]]; do
    [[ $line == *=* ]] || continue
    key=${line%%=*}; val=${line#*=}
    val=${val#\"}; val=${val%\"}; val=${val#\'}; val=${val%\'}
    case $key in
      ID) id=$val ;;
      VERSION_CODENAME) codename=$val ;;
      PRETTY_NAME) pretty=$val ;;
    esac
  done <"$OS_RELEASE"
  local how="set STARLING_ALLOW_UNSUPPORTED=1 to try anyway (package versions pinned by the build may not be served)"
  if [[ $id != debian ]]; then
    if [[ ${STARLING_ALLOW_UNSUPPORTED:-} == 1 ]]; then
      warn "not Debian (${pretty:-ID=$id}); proceeding because STARLING_ALLOW_UNSUPPORTED=1."
    else
      die "this machine runs ${pretty:-ID=${id:-unknown}} ($OS_RELEASE ID=${id:-unset}), not Debian. Starling's toolchain comes from Debian 12 (bookworm)'s archive: use a Debian 12 machine or container (e.g. docker run -it debian:bookworm), or $how."
    fi
  elif [[ $codename != bookworm ]]; then
    if [[ ${STARLING_ALLOW_UNSUPPORTED:-} == 1 ]]; then
      warn "Debian '${codename:-unknown}', not bookworm; proceeding because STARLING_ALLOW_UNSUPPORTED=1."
    else
      die "this is Debian '${codename:-unknown}' ($OS_RELEASE VERSION_CODENAME=${codename:-unset}), not 12 (bookworm). Bazel 4.2.3 (bazel-bootstrap), QEMU 7.2 and the pinned clang-19/lwIP versions are bookworm's: use a bookworm machine or container (docker run -it debian:bookworm), or $how."
    fi
  fi
}

check_root() {
  if [[ $EUID -ne 0 ]]; then
    die "must run as root to install packages and edit apt sources (running as uid $EUID). Run: sudo ./$PROG   (or ./$PROG --check to only report, without root)"
  fi
}

check_apt() {
  local t
  for t in apt-get apt-cache apt-config dpkg-query; do
    command -v "$t" >/dev/null 2>&1 ||
      die "$t not found in PATH ($PATH): this script needs Debian's apt/dpkg. Install the 'apt' package or run on a Debian 12 (bookworm) system."
  done
}

# ---------------------------------------------------------------------------------------------
# apt sources: deb-src entries.

APT_SL="" APT_SP="" APT_LISTS="" APT_PP=""
load_apt_config() {
  local SL="" SP="" LISTS=""
  local PP=""
  eval "$(apt-config shell SL Dir::Etc::sourcelist/f SP Dir::Etc::sourceparts/d LISTS Dir::State::lists/d PP Dir::Etc::preferencesparts/d)"
  APT_PP=${PP:-/etc/apt/preferences.d/}
  APT_PP=${APT_PP%/}
  APT_SL=${SL:-/etc/apt/sources.list}
  APT_SP=${SP:-/etc/apt/sources.list.d/}
  APT_SP=${APT_SP%/}
  APT_LISTS=${LISTS:-/var/lib/apt/lists/}
  APT_LISTS=${APT_LISTS%/}
}

src_file() { printf '%s/%s\n' "$APT_SP" "$SRC_FILE_NAME"; }
trixie_src_file() { printf '%s/%s\n' "$APT_SP" "$TRIXIE_SRC_FILE_NAME"; }
trixie_pin_file() { printf '%s/%s\n' "$APT_PP" "$TRIXIE_PIN_FILE_NAME"; }

# Writes TEXT (and a final newline) to FILE as a mode-644 file, atomically (a temporary
# beside it, then mv), and records the change: install_file FILE WHY TEXT.
install_file() {
  local dst=$1 why=$2
  mkdir -p "${dst%/*}"
  printf '%s\n' "$3" >"$dst.tmp"
  chmod 644 "$dst.tmp"
  mv -f "$dst.tmp" "$dst"
  CHANGES+=("wrote $dst ($why)")
  say "wrote $dst"
}

# True if the Debian 13 pin is written and says what this setup.sh would write.
trixie_pin_in_place() {
  local pin
  pin=$(trixie_pin_file)
  [[ -f $pin && $(cat "$pin") == "$(trixie_pin_text)" ]]
}

# The preferences that keep every Debian 13 binary off this machine (apt_preferences(5): a
# negative priority means never install), whatever sources a user adds later.
trixie_pin_text() {
  printf '# Written by Starling setup.sh: Debian 13 (trixie) is configured for source packages\n'
  printf '# only (%s); no trixie binary package may be installed.\n' "$TRIXIE_SRC_FILE_NAME"
  local suite
  for suite in trixie trixie-updates trixie-security; do
    printf '\nPackage: *\nPin: release n=%s\nPin-Priority: -1\n' "$suite"
  done
}

# apt's index targets, read once per state (each apt call may rebuild apt's cache: ~1 s when
# Dir::Cache::pkgcache is "", as in Debian's docker images).
#   TARGETS_CONF: every configured target ("IDENTIFIER REPO_URI RELEASE"), fetched or not.
#   TARGETS_HAVE: targets the downloaded Release files list ("FILENAME REPO_URI RELEASE").
TARGETS_CONF="" TARGETS_HAVE=""
load_targets() {
  # shellcheck disable=SC2016  # $(FIELD) is apt's format syntax, not shell
  TARGETS_CONF=$(apt-get indextargets --no-release-info --format '$(IDENTIFIER) $(REPO_URI) $(RELEASE)' 2>/dev/null || true)
  # shellcheck disable=SC2016
  TARGETS_HAVE=$(apt-get indextargets --format '$(FILENAME) $(REPO_URI) $(RELEASE)' 2>/dev/null || true)
}

# True if apt is configured with a deb-src entry for a Debian archive URI (in any file,
# including ours from an earlier run).
have_debian_deb_src() {
  awk '$1 == "Sources" && tolower($2) ~ /debian/ && $3 !~ /^trixie/ { found = 1 } END { exit !found }' <<<"$TARGETS_CONF"
}

# True if apt is configured with a deb-src entry for Debian 13's main suite.
have_trixie_deb_src() {
  awk '$1 == "Sources" && tolower($2) ~ /debian/ && $3 == "trixie" { found = 1 } END { exit !found }' <<<"$TARGETS_CONF"
}

# True if a trixie *binary* index is configured (the pin then is what keeps it out).
have_trixie_binaries() {
  awk '$1 == "Packages" && $3 ~ /^trixie/ { found = 1 } END { exit !found }' <<<"$TARGETS_CONF"
}

# gen_deb_src_entries for Debian 13: each bookworm, bookworm-updates or bookworm-security stanza
# with the suite renamed trixie, trixie-updates or trixie-security; stanzas of other suites
# (stable, sid, third parties) are left out.
gen_trixie_src_entries() {
  gen_deb_src_entries | awk 'BEGIN { RS = ""; ORS = "\n\n" }
    {
      stanza = $0 "\n"
      if (match(stanza, /\nSuites: bookworm(-updates|-security)?\n/) == 0) next
      suite = substr(stanza, RSTART + 9, RLENGTH - 10)
      sub(/^bookworm/, "trixie", suite)
      out = substr(stanza, 1, RSTART) "Suites: " suite substr(stanza, RSTART + RLENGTH - 1)
      sub(/\n$/, "", out)
      print out
    }'
}

# Print deb822 deb-src stanzas, one per (URI, suite) of every enabled Debian `deb` entry in the
# one-line sources.list files and deb822 .sources files apt reads (our own file excluded).
gen_deb_src_entries() {
  local files=() f
  [[ -f $APT_SL ]] && files+=("$APT_SL")
  for f in "$APT_SP"/*.list "$APT_SP"/*.sources; do
    [[ -f $f && ${f##*/} != "$SRC_FILE_NAME" ]] && files+=("$f")
  done
  ((${#files[@]})) || return 0
  local file
  for file in "${files[@]}"; do
    case $file in
      *.sources) awk -v FILE="$file" "$AWK_COMMON"'
        function flush(   i, n, u, s, nu, ns, uris, suites, t, isdeb) {
          if (!nf) return
          isdeb = 0; n = split(tolower(val["types"]), t, /[ \t]+/)
          for (i = 1; i <= n; i++) if (t[i] == "deb") isdeb = 1
          if (isdeb && tolower(val["enabled"]) != "no") {
            nu = split(val["uris"], uris, /[ \t]+/); ns = split(val["suites"], suites, /[ \t]+/)
            for (u = 1; u <= nu; u++) for (s = 1; s <= ns; s++)
              emit(uris[u], suites[s], val["components"], extra)
          }
          nf = 0; extra = ""; delete val
        }
        /^#/ { next }
        /^[ \t]*$/ { flush(); next }
        /^[ \t]/ { if (cur != "") { if (keep) extra = extra "\n" $0; else val[cur] = val[cur] " " trim($0) }; next }
        {
          name = substr($0, 1, index($0, ":") - 1); v = trim(substr($0, index($0, ":") + 1))
          cur = tolower(name); nf++
          keep = (cur !~ /^(types|uris|suites|components|enabled|architectures)$/)
          if (keep) extra = extra "\n" name ":" (v == "" ? "" : " " v); else val[cur] = v
        }
        END { flush() }' "$file" ;;
      *) awk -v FILE="$file" "$AWK_COMMON"'
        { sub(/#.*/, "") }
        $1 != "deb" { next }
        {
          line = $0; sub(/^[ \t]*deb[ \t]+/, "", line); extra = ""
          if (substr(line, 1, 1) == "[") {
            opts = substr(line, 2, index(line, "]") - 2); line = substr(line, index(line, "]") + 1)
            n = split(opts, o, /[ \t]+/)
            for (i = 1; i <= n; i++) {
              if (o[i] !~ /=/) continue
              k = tolower(substr(o[i], 1, index(o[i], "=") - 1)); v = substr(o[i], index(o[i], "=") + 1)
              if (k ~ /^(arch|lang|target)([+-])?$/) continue
              m = split(k, parts, "-"); k = ""
              for (j = 1; j <= m; j++) k = k (j > 1 ? "-" : "") toupper(substr(parts[j], 1, 1)) substr(parts[j], 2)
              extra = extra "\n" k ": " v
            }
          }
          n = split(trim(line), w, /[ \t]+/)
          if (n < 2) next
          comps = ""; for (i = 3; i <= n; i++) comps = comps (i > 3 ? " " : "") w[i]
          emit(w[1], w[2], comps, extra)
        }' "$file" ;;
    esac
  done | awk -F '\t' '!seen[$1]++ { s = $2; gsub(/\037/, "\n", s); print s }'
}

# Shared awk helpers. emit() prints, for Debian URIs only, "URI SUITE<TAB>stanza" on one line
# (the stanza's lines joined by \037) so the outer awk can drop duplicate (URI, suite) pairs
# across files.
# shellcheck disable=SC2016  # $0, $1 here are awk's, not the shell's.
AWK_COMMON='
  function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
  function emit(uri, suite, comps, extra,   key, out) {
    if (tolower(uri) !~ /debian/) return
    key = uri; sub(/\/+$/, "", key)
    out = "# From " FILE "\037Types: deb-src\037URIs: " uri "\037Suites: " suite
    if (comps != "" && suite !~ /\/$/) out = out "\037Components: " comps
    gsub(/\n/, "\037", extra); gsub(/\t/, " ", extra)
    printf "%s %s\t%s%s\037\n", key, suite, out, extra
  }'

# ---------------------------------------------------------------------------------------------
# Package state.

declare -A INSTALLED=() SERVED=()
# Fills INSTALLED[pkg]=version (installed only) and SERVED[pkg]=" v1 v2 " (archive versions).
load_package_state() {
  INSTALLED=() SERVED=()
  local p st v
  while IFS=$'\t' read -r p st v; do
    [[ $st == installed ]] && INSTALLED[$p]=$v
  done < <(dpkg-query -W -f='${Package}\t${db:Status-Status}\t${Version}\n' "${ALL_PACKAGES[@]}" 2>/dev/null || true)
  local name ver where
  while IFS='|' read -r name ver where; do
    [[ $where == *Packages* ]] || continue   # binary indexes only, not deb-src "Sources" lines
    name=${name//[[:space:]]/}; ver=${ver//[[:space:]]/}
    [[ -n $name ]] && SERVED[$name]="${SERVED[$name]:- }$ver "
  done < <(apt-cache madison "${ALL_PACKAGES[@]}" 2>/dev/null || true)
}

pkg_ok() { # installed at a version the configured archive serves
  local p=$1
  [[ -n ${INSTALLED[$p]:-} && ${SERVED[$p]:-} == *" ${INSTALLED[$p]} "* ]]
}

# ---------------------------------------------------------------------------------------------
# apt lists freshness.

STAMP=/var/lib/apt/periodic/update-success-stamp
LISTS_REASON=""   # why an update is needed ("" = lists present and fresh)
LISTS_MISSING=0
check_lists() {
  LISTS_REASON="" LISTS_MISSING=0
  if [[ -z $TARGETS_HAVE ]]; then
    LISTS_MISSING=1; LISTS_REASON="apt package lists are missing (no index downloaded)"; return
  fi
  local f missing=0 configured present
  while read -r f _; do
    compgen -G "$f*" >/dev/null || missing=$((missing + 1))
  done <<<"$TARGETS_HAVE"
  # a configured (URI, suite) with no Release file at all does not appear in TARGETS_HAVE
  configured=$(awk '{ print $2, $3 }' <<<"$TARGETS_CONF" | sort -u | wc -l)
  present=$(awk '{ print $2, $3 }' <<<"$TARGETS_HAVE" | sort -u | wc -l)
  if ((missing > 0 || configured > present)); then
    LISTS_MISSING=1; LISTS_REASON="some apt lists are missing (configured sources never fetched)"; return
  fi
  local ts=0 now age
  if [[ -f $STAMP ]]; then
    ts=$(stat -c %Y "$STAMP")
  else
    ts=$(find "$APT_LISTS" -maxdepth 1 -type f -name '*Release' -printf '%T@\n' 2>/dev/null |
      sort -n | tail -n 1); ts=${ts%.*}; ts=${ts:-0}
  fi
  printf -v now '%(%s)T' -1
  age=$(((now - ts) / 3600))
  if ((age >= MAX_AGE_HOURS)); then
    LISTS_REASON="apt lists are ${age} h old (limit ${MAX_AGE_HOURS} h)"
  fi
}

apt_update() {
  say "apt-get update ($1)"
  if ! apt-get update -q -o DPkg::Lock::Timeout=120; then
    die "apt-get update failed (see apt's messages above). Check the network and the entries in $APT_SL and $APT_SP/ (including $(src_file) if this script wrote it), then rerun."
  fi
  mkdir -p "${STAMP%/*}" && touch "$STAMP"
  CHANGES+=("refreshed apt lists ($1)")
}

# ---------------------------------------------------------------------------------------------
# Versions.

bazel_version() { dpkg-query -W -f='${Version}' bazel-bootstrap 2>/dev/null || true; }
bazel_ok() { local v=${1#*:}; [[ $v == "$BAZEL_WANT" || $v == "$BAZEL_WANT"[+~-]* ]]; }
qemu_version() {
  command -v qemu-system-riscv64 >/dev/null 2>&1 || return 0
  local out; out=$(qemu-system-riscv64 --version 2>/dev/null || true)
  out=${out%%$'\n'*}; out=${out#*version }; printf '%s\n' "${out%% *}"
}
qemu_ok() { [[ $1 == "$QEMU_WANT" || $1 == "$QEMU_WANT".* ]]; }
lwip_served() {
  local out; out=$(apt-cache showsrc "$LWIP_SRC" 2>/dev/null || true)
  grep -qF "$LWIP_VERSION" <<<"$out"
}

# Bazel's sandboxes live on /dev/shm (.bazelrc: --sandbox_base): a tree of
# symlinks per action, and the action's outputs until Bazel moves them out (a
# host test linked with ASan runs to tens of MB). Warns when /dev/shm is
# missing or small, as in a container started with the default --shm-size.
SHM_MIN_MB=1024
check_shm() {
  local avail
  if [[ ! -d /dev/shm || ! -w /dev/shm ]]; then
    warn "/dev/shm is missing or not writable: Bazel's sandboxes go there (.bazelrc, --sandbox_base). Fix: mount a tmpfs on /dev/shm, or put 'build --sandbox_base=' in user.bazelrc (sandboxes on the disk: a cold build about 40% slower)."
    return
  fi
  avail=$(df -Pm /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')
  if [[ -n $avail ]] && ((avail < SHM_MIN_MB)); then
    warn "/dev/shm has ${avail} MB free, less than ${SHM_MIN_MB} MB: Bazel's sandboxes go there (.bazelrc, --sandbox_base) and a large link may not fit. Fix: a larger /dev/shm (docker run --shm-size=2g), or 'build --sandbox_base=' in user.bazelrc (sandboxes on the disk: a cold build about 40% slower)."
  fi
}

# Appends to PROBLEMS anything wrong with the installed result.
verify_result() {
  local bv qv
  if have_trixie_binaries && [[ ! -f $(trixie_pin_file) ]]; then
    PROBLEMS+=("a Debian 13 (trixie) binary index is configured and $(trixie_pin_file) is missing: trixie binaries could replace bookworm's. Fix: sudo ./$PROG (writes the pin), or remove the trixie deb entry.")
  fi
  bv=$(bazel_version)
  if [[ -z $bv ]]; then
    PROBLEMS+=("bazel-bootstrap is not installed: Bazel $BAZEL_WANT is needed. Fix: sudo ./$PROG")
  elif ! bazel_ok "$bv"; then
    PROBLEMS+=("Bazel is $bv (dpkg-query -W bazel-bootstrap), not $BAZEL_WANT: Starling's WORKSPACE and toolchain rules target Bazel $BAZEL_WANT as shipped in bookworm. Fix: apt-get install bazel-bootstrap=4.2.3+ds-9 (check apt-cache policy bazel-bootstrap and your sources).")
  fi
  qv=$(qemu_version)
  if [[ -z $qv ]]; then
    PROBLEMS+=("qemu-system-riscv64 not found: it comes from qemu-system-misc. Fix: sudo ./$PROG")
  elif ! qemu_ok "$qv"; then
    PROBLEMS+=("qemu-system-riscv64 is $qv, not $QEMU_WANT.x (from $(command -v qemu-system-riscv64)): tests assume bookworm's QEMU $QEMU_WANT. Fix: remove the other QEMU from PATH or apt-get install qemu-system-misc from bookworm.")
  fi
  if ! lwip_served; then
    local have
    have=$(apt-cache showsrc "$LWIP_SRC" 2>/dev/null | awk '/^Version:/ { printf "%s%s", sep, $2; sep = " " }' || true)
    if have_debian_deb_src; then
      PROBLEMS+=("lwIP source $LWIP_SRC=$LWIP_VERSION is not served (apt-cache showsrc $LWIP_SRC offers: ${have:-nothing}). The build fetches it with 'apt-get source --download-only $LWIP_SRC=$LWIP_VERSION'. Fix: run 'apt-get update'; it comes from Debian 13's source index: check $(trixie_src_file) (sudo ./$PROG writes it).")
    else
      PROBLEMS+=("no deb-src entry for the Debian archive, so lwIP's source ($LWIP_SRC=$LWIP_VERSION) cannot be fetched. Fix: sudo ./$PROG (writes $(src_file)).")
    fi
  fi
}

# ---------------------------------------------------------------------------------------------

main() {
  local check=0
  while (($#)); do
    case $1 in
      --check) check=1 ;;
      -h|--help) usage; exit 0 ;;
      *) printf '%s: unknown option: %s\n' "$PROG" "$1" >&2; usage >&2; exit 2 ;;
    esac
    shift
  done

  check_os
  ((check)) || check_root
  check_apt
  load_apt_config

  local extra=()
  read -r -a extra <<<"${STARLING_EXTRA_PACKAGES:-}"
  ALL_PACKAGES=("${PACKAGES[@]}" "${extra[@]}")

  load_package_state
  local todo=() p
  for p in "${ALL_PACKAGES[@]}"; do pkg_ok "$p" || todo+=("$p"); done
  load_targets
  local need_src=0
  have_debian_deb_src || need_src=1
  check_lists

  if ((check)); then
    for p in "${todo[@]}"; do
      if [[ -n ${INSTALLED[$p]:-} ]] && ((LISTS_MISSING)); then
        continue # without lists nothing looks served; the missing lists are reported below
      elif [[ -n ${INSTALLED[$p]:-} ]]; then
        PROBLEMS+=("package $p is installed at ${INSTALLED[$p]}, which the configured archive does not serve (served:${SERVED[$p]:- none}).")
      elif [[ -n ${SERVED[$p]:-} ]]; then
        PROBLEMS+=("package $p is not installed.")
      else
        PROBLEMS+=("package $p is not installed and not in apt's current lists (apt-get update may fix that).")
      fi
    done
    ((LISTS_MISSING)) && PROBLEMS+=("$LISTS_REASON: cannot tell which versions the archive serves. Fix: sudo apt-get update (or sudo ./$PROG).")
    have_trixie_deb_src || PROBLEMS+=("no deb-src entry for Debian 13 (trixie), whose source packages the build will take (lwIP 2.2.1). Fix: sudo ./$PROG (writes $(trixie_src_file)).")
    trixie_pin_in_place ||
      PROBLEMS+=("$(trixie_pin_file) is missing or changed: it keeps every Debian 13 binary package off this machine. Fix: sudo ./$PROG (writes it).")
    ((LISTS_MISSING)) || [[ -z $LISTS_REASON ]] || say "note: $LISTS_REASON; a real run would refresh them."
    verify_result
    if ((${#PROBLEMS[@]})); then
      say "--check found ${#PROBLEMS[@]} problem(s):"
      for p in "${PROBLEMS[@]}"; do printf '  - %s\n' "$p"; done
      say "fix: sudo ./$PROG"
      exit 1
    fi
    say "--check: everything is in place (Bazel $(bazel_version), QEMU $(qemu_version))."
    exit 0
  fi

  # 1. deb-src entries, in our own file.
  if ((need_src)); then
    local dst stanzas
    dst=$(src_file)
    stanzas=$(gen_deb_src_entries)
    [[ -n $stanzas ]] || die "no Debian archive 'deb' entry (URI containing 'debian') found in $APT_SL or $APT_SP/*.{list,sources}, so no deb-src entry can be derived for lwIP's source. Fix: add your Debian bookworm mirror to apt's sources (see sources.list(5)), then rerun."
    install_file "$dst" "deb-src entries" "$(
      printf '# Written by Starling setup.sh: deb-src twins of the Debian archive deb entries named\n'
      printf '# below, so the build can fetch the Debian 12 source packages it pins (apt-get source).\n'
      printf '# Safe to delete; setup.sh writes it again only if no Debian deb-src entry exists.\n\n'
      printf '%s' "$stanzas"
    )"
  fi

  # 1b. Debian 13's source index, and the pin that keeps its binaries out (written first).
  local pin
  pin=$(trixie_pin_file)
  trixie_pin_in_place ||
    install_file "$pin" "Debian 13 binaries pinned to -1: never installed" "$(trixie_pin_text)"
  local need_trixie=0
  if ! have_trixie_deb_src; then
    local tdst tstanzas
    tdst=$(trixie_src_file)
    tstanzas=$(gen_trixie_src_entries)
    [[ -n $tstanzas ]] || die "no Debian bookworm 'deb' entry (URI containing 'debian', suite bookworm) found in $APT_SL or $APT_SP/*.{list,sources}, so no Debian 13 deb-src entry can be derived. Fix: add your Debian bookworm mirror to apt's sources (see sources.list(5)), then rerun."
    install_file "$tdst" "Debian 13 deb-src entries" "$(
      printf '# Written by Starling setup.sh: Debian 13 (trixie) deb-src entries, derived from the\n'
      printf '# Debian 12 deb entries named below, for source packages newer than bookworm'"'"'s.\n'
      printf '# Source only: %s pins every trixie binary to -1.\n' "$pin"
      printf '# Safe to delete; setup.sh writes it again when no trixie deb-src entry exists.\n\n'
      printf '%s' "$tstanzas"
    )"
    need_trixie=1
  fi

  # 2. apt-get update, only when something needs it.
  local why=()
  ((need_src)) && why+=("deb-src entries added")
  ((need_trixie)) && why+=("Debian 13 deb-src entries added")
  [[ -n $LISTS_REASON ]] && why+=("$LISTS_REASON")
  ((${#todo[@]})) && why+=("to install: ${todo[*]}")
  if ((${#why[@]})); then
    local reason
    printf -v reason '%s; ' "${why[@]}"
    apt_update "${reason%; }"
    load_targets
    load_package_state
    todo=()
    for p in "${ALL_PACKAGES[@]}"; do pkg_ok "$p" || todo+=("$p"); done
  fi

  # 3. install.
  if ((${#todo[@]})); then
    local unserved=()
    for p in "${todo[@]}"; do [[ -n ${SERVED[$p]:-} ]] || unserved+=("$p"); done
    if ((${#unserved[@]})); then
      die "package(s) not served by the configured apt archive: ${unserved[*]}. apt-cache madison ${unserved[*]} shows no version even after apt-get update. Fix: check the name, and that $APT_SL / $APT_SP/ list Debian bookworm (main) including bookworm-updates and bookworm-security; then run apt-get update and rerun."
    fi
    say "installing: ${todo[*]}"
    if ! apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=120 "${todo[@]}"; then
      die "apt-get install failed for: ${todo[*]} (see apt's messages above). Fix: run 'apt-get update' and 'apt-get -f install', check the sources, then rerun."
    fi
    CHANGES+=("installed/upgraded: ${todo[*]}")
    load_package_state
    for p in "${todo[@]}"; do
      pkg_ok "$p" || warn "$p is at ${INSTALLED[$p]:-not installed}, not a version the archive serves (served:${SERVED[$p]:- none}). Fix: apt-get install $p=<version>."
    done
  fi

  # 4. verify.
  check_shm
  verify_result
  if ((${#PROBLEMS[@]})); then
    for p in "${PROBLEMS[@]}"; do printf '%s: error: %s\n' "$PROG" "$p" >&2; done
    exit 1
  fi

  say "summary:"
  printf '  Bazel: %s (bazel-bootstrap)\n' "$(bazel_version)"
  printf '  QEMU:  %s (qemu-system-riscv64)\n' "$(qemu_version)"
  printf '  lwIP source: %s=%s served\n' "$LWIP_SRC" "$LWIP_VERSION"
  printf '  Debian 13: source index only (%s), binaries pinned out (%s)\n' "$(trixie_src_file)" "$(trixie_pin_file)"
  if ((${#CHANGES[@]})); then
    for p in "${CHANGES[@]}"; do printf '  changed: %s\n' "$p"; done
  else
    printf '  nothing to do: everything was already in place.\n'
  fi
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  main "$@"
fi
