#!/usr/bin/env bash
# setup.sh's Debian 13 pin (issue 28): with a package in both a "bookworm" and a "trixie"
# repository, apt picks bookworm's under the preferences setup.sh writes
# (trixie_pin_text), and trixie's without them, so the pin is what decides. The repositories
# are local (file:), the apt state a scratch directory: no network, the machine's apt
# configuration untouched. Also: gen_trixie_src_entries derives trixie deb-src stanzas from
# bookworm deb entries (one-line and deb822, with their options) and leaves other suites out.
set -euo pipefail
setup=$1
tmp=${TEST_TMPDIR:-$(mktemp -d)}/apt
rm -rf "$tmp"
mkdir -p "$tmp"/{repo,lists/partial,cache/archives/partial,prefs.d,sources.d,etc}
fail=0
check() { if eval "$2"; then echo "ok: $1"; else echo "FAIL: $1"; fail=1; fi; }

# Two suites of one repository, each with starling-pin-probe (1.0 in bookworm, 2.0 in trixie).
for suite in bookworm trixie; do
  version=$([[ $suite == bookworm ]] && echo 1.0 || echo 2.0)
  dir=$tmp/repo/dists/$suite/main/binary-amd64
  mkdir -p "$dir"
  cat >"$dir/Packages" <<PKG
Package: starling-pin-probe
Version: $version
Architecture: all
Maintainer: Starling <starling@invalid>
Filename: pool/starling-pin-probe_${version}_all.deb
Size: 1000
SHA256: $(printf '%064d' 0)
Description: a package that exists in both suites

PKG
  size=$(stat -c %s "$dir/Packages")
  sha=$(sha256sum "$dir/Packages" | cut -d' ' -f1)
  cat >"$tmp/repo/dists/$suite/Release" <<REL
Origin: Debian
Label: Debian
Suite: $suite
Codename: $suite
Architectures: amd64 all
Components: main
SHA256:
 $sha $size main/binary-amd64/Packages
REL
done
printf 'deb [trusted=yes] file:%s bookworm main\ndeb [trusted=yes] file:%s trixie main\n' \
  "$tmp/repo" "$tmp/repo" >"$tmp/etc/sources.list"
: >"$tmp/status"
apt_opts=(-o Dir::Etc::sourcelist="$tmp/etc/sources.list" -o Dir::Etc::sourceparts="$tmp/sources.d"
  -o Dir::Etc::preferences=/dev/null -o Dir::Etc::preferencesparts="$tmp/prefs.d"
  -o Dir::State::lists="$tmp/lists" -o Dir::Cache="$tmp/cache" -o Dir::State::status="$tmp/status"
  -o APT::Architecture=amd64 -o Debug::NoLocking=1 -o APT::Get::List-Cleanup=0
  -o APT::Sandbox::User=root)  # no privilege drop to _apt: Bazel's sandbox forbids setgroups
apt-get "${apt_opts[@]}" -q update >"$tmp/update.log" 2>&1 || { cat "$tmp/update.log"; exit 1; }

picked() { apt-get "${apt_opts[@]}" install --simulate starling-pin-probe 2>&1 | awk '/^Inst starling-pin-probe/ { print $3 }' | tr -d '('; }

check "without the pin apt picks trixie's (the test can fail)" '[[ $(picked) == 2.0 ]]'
# shellcheck source=/dev/null
(. "$setup"; trixie_pin_text) >"$tmp/prefs.d/starling-trixie"
check "with setup.sh's pin apt picks bookworm's" '[[ $(picked) == 1.0 ]]'
check "no trixie version is even a candidate" \
  '! apt-cache "${apt_opts[@]}" policy starling-pin-probe | grep -q "Candidate: 2.0"'

# The deb-src stanzas setup.sh derives for trixie.
cat >"$tmp/sources.d/a.list" <<'LIST'
deb [arch=amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://mirror.example/debian bookworm main contrib
deb http://mirror.example/debian bookworm-updates main
deb http://thirdparty.example/apt stable main
deb http://mirror.example/debian sid main
LIST
cat >"$tmp/sources.d/b.sources" <<'SRC'
Types: deb
URIs: http://mirror.example/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
stanzas=$(. "$setup"; APT_SL=/dev/null APT_SP=$tmp/sources.d; gen_trixie_src_entries)
echo "$stanzas"
check "bookworm -> trixie, with its components and signed-by" \
  'grep -q "^Suites: trixie$" <<<"$stanzas" && grep -q "^Components: main contrib$" <<<"$stanzas" && grep -q "^Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg$" <<<"$stanzas"'
check "bookworm-updates -> trixie-updates" 'grep -q "^Suites: trixie-updates$" <<<"$stanzas"'
check "bookworm-security (deb822) -> trixie-security" 'grep -q "^Suites: trixie-security$" <<<"$stanzas"'
check "only deb-src stanzas" '! grep "^Types:" <<<"$stanzas" | grep -qv "^Types: deb-src$"'
check "third parties, sid and other suites left out" \
  '! grep -q "thirdparty\|Suites: sid\|Suites: bookworm\|Suites: stable" <<<"$stanzas"'
check "four suites in, three stanzas out" '[[ $(grep -c "^Suites:" <<<"$stanzas") == 3 ]]'
exit $fail
