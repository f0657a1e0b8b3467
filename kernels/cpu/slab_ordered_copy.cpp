#include "slab_ordered_copy.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace xhd {
namespace {

// Points sorted by slab and written at a time: few enough that the staging stays small (2 MiB of double
// points) beside the pass's piece, many enough that each write carries a run of points.
constexpr size_t kStagedPoints = size_t(1) << 16;
static_assert(SlabOrderedCopy::kStagingBytes == kStagedPoints * 32, "the staging's count is its largest points'");

uint64_t record_at(const uint8_t* point) {
  uint64_t record;
  std::memcpy(&record, point, sizeof record);
  return record;
}

}  // namespace

SlabOrderedCopy::SlabOrderedCopy(const std::vector<uint64_t>& counts, bool floats)
    : floats_(floats), start_(counts.size() + 1, 0), written_(counts.size(), 0) {
  for (size_t s = 0; s < counts.size(); ++s) start_[s + 1] = start_[s] + counts[s];
}

bool SlabOrderedCopy::complete() const {
  for (size_t s = 0; s < written_.size(); ++s)
    if (written_[s] != start_[s + 1] - start_[s]) return false;
  return true;
}

void SlabOrderedCopy::append(const void* xyz, const uint64_t* records, const int* slabs, size_t n) {
  const size_t width = stride(), coords = width - 8;
  const auto* bytes = static_cast<const uint8_t*>(xyz);
  std::vector<uint64_t> run(written_.size()), at(written_.size());  // a block's points a slab; where each goes
  for (size_t begin = 0; begin < n && file_.usable(); begin += kStagedPoints) {
    const size_t end = std::min(n, begin + kStagedPoints);
    std::fill(run.begin(), run.end(), 0);
    for (size_t i = begin; i < end; ++i) ++run[static_cast<size_t>(slabs[i])];
    // Each slab's run in the staging, in record order (a stable counting sort of the block by slab).
    uint64_t offset = 0;
    for (size_t s = 0; s < run.size(); ++s) {
      if (written_[s] + run[s] > start_[s + 1] - start_[s])
        throw std::runtime_error("streamed compare: a file changed while it was read");
      at[s] = offset;
      offset += run[s];
    }
    staging_.resize((end - begin) * width);
    for (size_t i = begin; i < end; ++i) {
      uint8_t* to = staging_.data() + at[static_cast<size_t>(slabs[i])]++ * width;
      std::memcpy(to, records + i, 8);
      std::memcpy(to + 8, bytes + i * coords, coords);
    }
    offset = 0;
    for (size_t s = 0; s < run.size(); ++s) {
      if (run[s] == 0) continue;
      const uint64_t where = (start_[s] + written_[s]) * width;
      if (!file_.write(staging_.data() + offset * width, run[s] * width, where)) return;
      written_[s] += run[s];
      offset += run[s];
    }
  }
}

SlabOrderedCopy::Merge SlabOrderedCopy::merge(int first, int last, size_t block_points) const {
  Merge m;
  m.copy_ = this;
  const size_t slabs = static_cast<size_t>(last - first + 1);
  m.block_points_ = std::max<size_t>(256, block_points / std::max<size_t>(slabs, 1));
  for (int s = first; s <= last; ++s) {
    Merge::Cursor c;
    c.at = start_[static_cast<size_t>(s)];
    c.end = start_[static_cast<size_t>(s) + 1];
    if (c.at < c.end) m.cursors_.push_back(std::move(c));
  }
  return m;
}

bool SlabOrderedCopy::Merge::refill(Cursor& c) {
  if (c.taken < c.held) return true;
  if (c.at == c.end) return false;
  const size_t width = copy_->stride();
  const uint64_t n = std::min<uint64_t>(block_points_, c.end - c.at);
  c.block.resize(n * width);
  if (!copy_->file_.read(c.block.data(), n * width, c.at * width))
    throw std::runtime_error("streamed compare: its slab-ordered copy of an input could not be read back");
  c.at += n;
  c.held = n;
  c.taken = 0;
  return true;
}

uint64_t SlabOrderedCopy::Merge::head(const Cursor& c) const {
  return record_at(c.block.data() + c.taken * copy_->stride());
}

// The next least cursor's points from its head on, while below `bound` (the other cursors' least head) and
// in its block: one step of either merge for a whole run rather than a point. Returns the new count.
size_t SlabOrderedCopy::Merge::take_run(Cursor& c, uint64_t bound, uint8_t* out, uint64_t* records, size_t n,
                                        size_t most) const {
  const size_t width = copy_->stride(), coords = width - 8;
  const uint8_t* block = c.block.data();
  do {
    const uint8_t* p = block + c.taken * width;
    records[n] = record_at(p);
    std::memcpy(out + n * coords, p + 8, coords);
    ++n;
    ++c.taken;
  } while (n < most && c.taken < c.held && record_at(block + c.taken * width) < bound);
  return n;
}

size_t SlabOrderedCopy::Merge::next(void* xyz, uint64_t* records, size_t most) {
  auto* out = static_cast<uint8_t*>(xyz);
  if (cursors_.size() <= kLinearMerge) return next_by_scan(out, records, most);
  // The heap orders the cursors with points left by their next record; made on the first call.
  const auto later = [&](size_t a, size_t b) { return head(cursors_[a]) > head(cursors_[b]); };
  if (heap_.empty()) {
    for (size_t k = 0; k < cursors_.size(); ++k)
      if (refill(cursors_[k])) heap_.push_back(k);
    std::make_heap(heap_.begin(), heap_.end(), later);
    if (heap_.empty()) return 0;
  }
  size_t n = 0;
  while (n < most && !heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), later);
    const size_t k = heap_.back();
    Cursor& c = cursors_[k];
    // Every point of this cursor's block below the next cursor's head goes at once (all of the block where
    // one slab is left), rather than one heap step a point.
    const uint64_t bound = heap_.size() > 1 ? head(cursors_[heap_.front()]) : UINT64_MAX;
    n = take_run(c, bound, out, records, n, most);
    if (refill(c)) std::push_heap(heap_.begin(), heap_.end(), later);
    else heap_.pop_back();
  }
  return n;
}

// The merge of a few slabs (a halo's usual two to four): the least next record found by a scan of the
// cursors' heads (kept in an array, each read again only when its cursor moves), which costs less than a
// heap's steps when they are this few; and every point of the least cursor's block below the next least head
// taken at once.
size_t SlabOrderedCopy::Merge::next_by_scan(uint8_t* out, uint64_t* records, size_t most) {
  const size_t k = cursors_.size();
  if (k == 0) return 0;  // every slab asked for is empty
  uint64_t heads[kLinearMerge];
  for (size_t c = 0; c < k; ++c) {
    Cursor& cursor = cursors_[c];
    heads[c] = cursor.taken < cursor.held || refill(cursor) ? head(cursor) : UINT64_MAX;
  }
  size_t n = 0;
  while (n < most) {
    size_t least = 0;
    for (size_t c = 1; c < k; ++c) least = heads[c] < heads[least] ? c : least;
    if (heads[least] == UINT64_MAX) break;
    uint64_t next = UINT64_MAX;
    for (size_t c = 0; c < k; ++c) next = c != least && heads[c] < next ? heads[c] : next;
    Cursor& cursor = cursors_[least];
    n = take_run(cursor, next, out, records, n, most);
    heads[least] = cursor.taken < cursor.held || refill(cursor) ? head(cursor) : UINT64_MAX;
  }
  return n;
}

}  // namespace xhd
