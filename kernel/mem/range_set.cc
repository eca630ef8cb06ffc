#include "kernel/mem/range_set.h"

namespace starling::mem {

void RangeSet::erase(std::size_t index) {
  for (std::size_t i = index; i + 1 < count_; ++i) ranges_[i] = ranges_[i + 1];
  --count_;
}

void RangeSet::insert(std::size_t index, PhysRange range) {
  for (std::size_t i = count_; i > index; --i) ranges_[i] = ranges_[i - 1];
  ranges_[index] = range;
  ++count_;
}

Result<void> RangeSet::add(PhysRange range) {
  if (range.empty()) return {};
  // Absorb every range that overlaps or touches the new one; they are
  // contiguous in the sorted array, starting at `first`.
  std::size_t first = 0;
  while (first < count_ && ranges_[first].end < range.begin) ++first;
  std::size_t last = first;
  while (last < count_ && ranges_[last].begin <= range.end) {
    if (ranges_[last].begin < range.begin) range.begin = ranges_[last].begin;
    if (ranges_[last].end > range.end) range.end = ranges_[last].end;
    ++last;
  }
  if (last == first && count_ == kCapacity) return Unexpected(Error::kNoMemory);
  for (std::size_t i = first; i < last; ++i) erase(first);
  insert(first, range);
  return {};
}

Result<void> RangeSet::subtract(PhysRange cut) {
  if (cut.empty()) return {};
  for (std::size_t i = 0; i < count_;) {
    PhysRange& r = ranges_[i];
    if (r.end <= cut.begin || cut.end <= r.begin) {
      ++i;
      continue;
    }
    const PhysRange left{r.begin, cut.begin};
    const PhysRange right{cut.end, r.end};
    const bool keep_left = r.begin < cut.begin;
    const bool keep_right = cut.end < r.end;
    if (keep_left && keep_right) {
      if (count_ == kCapacity) return Unexpected(Error::kNoMemory);
      r = left;
      insert(i + 1, right);
      return {};  // the cut lay inside one range: nothing else overlaps it
    }
    if (keep_left) {
      r = left;
      ++i;
    } else if (keep_right) {
      r = right;
      ++i;
    } else {
      erase(i);
    }
  }
  return {};
}

std::uint64_t RangeSet::total_bytes() const {
  std::uint64_t total = 0;
  for (const PhysRange& r : ranges()) total += r.size();
  return total;
}

bool RangeSet::contains(PhysAddr address) const {
  for (const PhysRange& r : ranges()) {
    if (r.contains(address)) return true;
  }
  return false;
}

bool RangeSet::overlaps(PhysRange range) const {
  for (const PhysRange& r : ranges()) {
    if (r.begin < range.end && range.begin < r.end) return true;
  }
  return false;
}

}  // namespace starling::mem
