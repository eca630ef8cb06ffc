#include "kernel/lib/intrusive_list.h"

#include <gtest/gtest.h>

#include <vector>

namespace starling {
namespace {

struct Item {
  explicit Item(int v) : value(v) {}
  int value;
  ListLink<Item> a;
  ListLink<Item> b;
};

using ListA = IntrusiveList<Item, &Item::a>;
using ListB = IntrusiveList<Item, &Item::b>;

std::vector<int> values(const ListA& list) {
  std::vector<int> out;
  for (const Item* i = list.front(); i != nullptr; i = ListA::next(*i)) out.push_back(i->value);
  return out;
}

TEST(IntrusiveList, FifoOrderAndSize) {
  Item x(1), y(2), z(3);
  ListA list;
  EXPECT_TRUE(list.empty());
  list.push_back(x);
  list.push_back(y);
  list.push_back(z);
  EXPECT_EQ(list.size(), 3u);
  EXPECT_EQ(values(list), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(list.pop_front(), &x);
  EXPECT_FALSE(x.a.linked());
  EXPECT_EQ(values(list), (std::vector<int>{2, 3}));
  EXPECT_EQ(list.pop_front(), &y);
  EXPECT_EQ(list.pop_front(), &z);
  EXPECT_EQ(list.pop_front(), nullptr);
  EXPECT_TRUE(list.empty());
}

TEST(IntrusiveList, RemoveFromAnyPositionAndTwice) {
  Item x(1), y(2), z(3);
  ListA list;
  for (Item* i : {&x, &y, &z}) list.push_back(*i);
  list.remove(y);  // middle
  EXPECT_EQ(values(list), (std::vector<int>{1, 3}));
  list.remove(y);  // not linked: nothing happens
  EXPECT_EQ(list.size(), 2u);
  list.remove(z);  // tail: the next push goes after x
  list.push_back(y);
  EXPECT_EQ(values(list), (std::vector<int>{1, 2}));
  list.remove(x);  // head
  EXPECT_EQ(values(list), (std::vector<int>{2}));
  list.remove(y);
  EXPECT_TRUE(list.empty());
  list.push_back(z);
  EXPECT_EQ(values(list), (std::vector<int>{3}));
  list.remove(z);
}

TEST(IntrusiveList, OneElementInTwoListsThroughTwoLinks) {
  Item x(1), y(2);
  ListA a;
  ListB b;
  a.push_back(x);
  a.push_back(y);
  b.push_back(y);
  b.push_back(x);
  EXPECT_EQ(a.front(), &x);
  EXPECT_EQ(b.front(), &y);
  a.remove(x);
  EXPECT_TRUE(x.b.linked());
  EXPECT_EQ(ListB::next(y), &x);
  b.remove(x);
  b.remove(y);
  a.remove(y);
  EXPECT_TRUE(a.empty() && b.empty());
}

}  // namespace
}  // namespace starling
