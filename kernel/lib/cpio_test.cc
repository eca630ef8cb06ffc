// cpio "newc" archives as Linux's tools write them (`cpio -o -H newc`),
// built here byte by byte, and damaged ones: found, not found, never read
// past the archive (ASan).
#include "kernel/lib/cpio.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

namespace starling::cpio {
namespace {

void pad(std::string& s) {
  while (s.size() % 4 != 0) s.push_back('\0');
}

// One newc entry (header, name, data), as GNU cpio writes it.
void add_entry(std::string& archive, std::string_view name, std::string_view data,
               unsigned mode = 0100644) {
  char header[111];
  std::snprintf(header, sizeof header, "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
                1u, mode, 0u, 0u, 1u, 0u, static_cast<unsigned>(data.size()), 0u, 0u, 0u, 0u,
                static_cast<unsigned>(name.size() + 1), 0u);
  archive.append(header, 110);
  archive.append(name);
  archive.push_back('\0');
  pad(archive);
  archive.append(data);
  pad(archive);
}

std::span<const std::byte> bytes(const std::string& s) {
  return std::as_bytes(std::span(s.data(), s.size()));
}

std::string text(std::optional<std::span<const std::byte>> f) {
  if (!f) return "<none>";
  return std::string(reinterpret_cast<const char*>(f->data()), f->size());
}

std::string sample() {
  std::string a;
  add_entry(a, ".", "", 040755);
  add_entry(a, "./tls", "", 040755);
  add_entry(a, "./tls/cert.pem", "-----BEGIN CERTIFICATE-----\nabc\n");
  add_entry(a, "tls/key.pem", "key!");
  add_entry(a, "TRAILER!!!", "");
  return a;
}

TEST(CpioTest, FindsRegularFilesByName) {
  const std::string a = sample();
  EXPECT_EQ(text(find_file(bytes(a), "tls/cert.pem")), "-----BEGIN CERTIFICATE-----\nabc\n");
  EXPECT_EQ(text(find_file(bytes(a), "tls/key.pem")), "key!");
  EXPECT_FALSE(find_file(bytes(a), "tls"));  // a directory
  EXPECT_FALSE(find_file(bytes(a), "missing"));
  EXPECT_FALSE(find_file({}, "tls/key.pem"));
}

TEST(CpioTest, EmptyFileIsFound) {
  std::string a;
  add_entry(a, "empty", "");
  add_entry(a, "TRAILER!!!", "");
  const auto f = find_file(bytes(a), "empty");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->size(), 0u);
}

TEST(CpioTest, NothingPastTheTrailer) {
  std::string a;
  add_entry(a, "TRAILER!!!", "");
  add_entry(a, "late", "x");
  EXPECT_FALSE(find_file(bytes(a), "late"));
}

TEST(CpioTest, TruncatedOrDamagedArchivesFindNothingPastTheDamage) {
  const std::string a = sample();
  // Every prefix: no read past it (ASan), and a file is found only whole.
  for (std::size_t n = 0; n <= a.size(); ++n) {
    const std::string cut = a.substr(0, n);
    const auto f = find_file(bytes(cut), "tls/key.pem");
    if (f) EXPECT_EQ(text(f), "key!");
  }
  std::string bad_magic = a;
  bad_magic[0] = '1';
  EXPECT_FALSE(find_file(bytes(bad_magic), "tls/key.pem"));
  std::string bad_hex = a;
  bad_hex[6 + 6 * 8] = 'z';  // the first entry's file size
  EXPECT_FALSE(find_file(bytes(bad_hex), "tls/key.pem"));
  // A file size far past the end.
  std::string huge;
  add_entry(huge, "big", "x");
  huge.replace(6 + 6 * 8, 8, "7FFFFFFF");
  EXPECT_FALSE(find_file(bytes(huge), "big"));
}

}  // namespace
}  // namespace starling::cpio
