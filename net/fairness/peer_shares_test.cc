// Host test: the table of per-peer shares (peer_shares.h) is what
// docs/hostile-peers.md says, row for row, and the command line sets each
// share as documented.
#include "net/fairness/peer_shares.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace starling::net {
namespace {

std::string read_page(const char* name) {
  const char* root = std::getenv("TEST_SRCDIR");
  EXPECT_NE(root, nullptr);
  std::ifstream in(std::string(root ? root : ".") + "/starling/docs/" + name);
  EXPECT_TRUE(in.good()) << name;
  std::stringstream all;
  all << in.rdbuf();
  return all.str();
}

// The documentation's row for a share, as the declaration gives it.
std::string row_of(const PeerShare& share, const PeerShareDoc& doc) {
  return "| `" + std::string(share.key) + "=N` | " + std::to_string(share.fallback) + " | " +
         std::to_string(share.bound()) + " | " + std::string(doc.holds) + " | `" +
         std::string(doc.counter) + "` |";
}

TEST(PeerSharesTest, EveryShareHasItsDocumentedRowAndNoOtherRowExists) {
  const std::string page = read_page("hostile-peers.md");
  std::vector<std::string> documented;
  std::istringstream lines(page);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("| `starling.") && line.find("=N` |") != std::string::npos) {
      documented.push_back(line);
    }
  }
  ASSERT_FALSE(peer_shares().empty());
  ASSERT_EQ(std::size(kPeerShareDocs), peer_shares().size());
  for (std::size_t i = 0; i < peer_shares().size(); ++i) {
    const PeerShare& share = peer_shares()[i];
    ASSERT_EQ(kPeerShareDocs[i].key, share.key);
    const std::string row = row_of(share, kPeerShareDocs[i]);
    EXPECT_NE(page.find(row + "\n"), std::string::npos)
        << "docs/hostile-peers.md lacks the row, or has another:\n"
        << row;
  }
  EXPECT_EQ(documented.size(), peer_shares().size())
      << "docs/hostile-peers.md has a starling.*=N row no share declares";
}

TEST(PeerSharesTest, DefaultsAreInForceAndBelowHalfTheirTable) {
  for (const PeerShare& share : peer_shares()) {
    EXPECT_EQ(share.get(), share.fallback) << share.key;
    EXPECT_LT(share.fallback * 2, share.bound()) << share.key;
  }
}

TEST(PeerSharesTest, CommandLineSetsTurnsOffAndRefusesWithTheFix) {
  for (const PeerShare& share : peer_shares()) {
    const std::string key(share.key);
    apply_peer_shares("t", key + "=3");
    EXPECT_EQ(share.get(), 3u) << key;
    apply_peer_shares("t", "ip=dhcp " + key + "=off");
    EXPECT_EQ(share.get(), 0u) << key;
    share.set(share.fallback);
    ::testing::internal::CaptureStdout();
    apply_peer_shares("t", key + "=" + std::to_string(share.bound() + 1));
    apply_peer_shares("t", key + "=2 " + key + "=4");
    const std::string said = ::testing::internal::GetCapturedStdout();
    EXPECT_EQ(share.get(), share.fallback) << key;
    EXPECT_NE(
        said.find("t: ignoring " + key + "=" + std::to_string(share.bound() + 1) + ": not 1 to " +
                  std::to_string(share.bound()) + " or off; fix: " + key + "=" +
                  std::to_string(share.fallback) + "; keeping " + std::to_string(share.fallback)),
        std::string::npos)
        << said;
    EXPECT_NE(said.find("t: ignoring " + key + "=: given twice; fix: "), std::string::npos) << said;
  }
}

}  // namespace
}  // namespace starling::net
