#include "server/constraint/contact_cache.h"

#include <algorithm>
#include <tuple>
#include <utility>

namespace ligature {
namespace {
// Two contacts closer than this in body A's frame are the same contact (m).
constexpr double kMatchDistance = 0.02;
}  // namespace

// The map of this tick starts empty but sized for as many pairs as the last one held: a
// large map's clear() gives its storage back, and growing it again pair by pair would
// rehash it several times every tick.
void ContactCache::BeginTick() {
  std::swap(previous_, current_);
  std::swap(previous_entries_, current_entries_);
  current_.clear();
  current_.reserve(previous_.size());
  current_entries_.clear();
}

Vec3 ContactCache::Lookup(BodyHandle a, BodyHandle b, const Vec3& local_a) const {
  auto it = previous_.find(Key(a, b));
  if (it == previous_.end()) return Vec3::Zero();
  const PairEntries& p = it->second;
  // A reused slot belongs to another body: its forces mean nothing here.
  if (p.generation_a != a.generation || p.generation_b != b.generation) return Vec3::Zero();
  double best = kMatchDistance * kMatchDistance;
  Vec3 force = Vec3::Zero();
  for (uint32_t i = p.first; i < p.first + p.count; ++i) {
    const double d2 = (previous_entries_[i].local_a - local_a).squaredNorm();
    if (d2 < best) {
      best = d2;
      force = previous_entries_[i].force;
    }
  }
  return force;
}

void ContactCache::Store(BodyHandle a, BodyHandle b, const Vec3& local_a, const Vec3& force) {
  auto [it, inserted] = current_.try_emplace(Key(a, b));
  PairEntries& p = it->second;
  if (inserted) p.first = static_cast<uint32_t>(current_entries_.size());
  p.generation_a = a.generation;
  p.generation_b = b.generation;
  if (p.count >= kMaxPerPair) return;
  // A pair stored again after others: its run moves to the end of the list first.
  if (p.first + p.count != current_entries_.size()) {
    const uint32_t old_first = p.first;
    p.first = static_cast<uint32_t>(current_entries_.size());
    for (uint32_t i = 0; i < p.count; ++i) {
      const Entry moved = current_entries_[old_first + i];
      current_entries_.push_back(moved);
    }
  }
  current_entries_.push_back({local_a, force});
  ++p.count;
}

std::vector<ContactCache::Saved> ContactCache::Save(const RigidBodies& bodies) const {
  std::vector<std::tuple<uint32_t, uint32_t, const PairEntries*>> pairs;
  for (const auto& [key, pair] : current_) {
    const BodyHandle a{static_cast<uint32_t>(key >> 32), pair.generation_a};
    const BodyHandle b{static_cast<uint32_t>(key & 0xffffffffu), pair.generation_b};
    if (!bodies.IsValid(a) || !bodies.IsValid(b)) continue;
    pairs.emplace_back(bodies.Index(a), bodies.Index(b), &pair);
  }
  std::sort(pairs.begin(), pairs.end(), [](const auto& x, const auto& y) {
    return std::pair(std::get<0>(x), std::get<1>(x)) < std::pair(std::get<0>(y), std::get<1>(y));
  });
  std::vector<Saved> out;
  for (const auto& [a, b, pair] : pairs) {
    for (uint32_t k = pair->first; k < pair->first + pair->count; ++k) {
      out.push_back({a, b, current_entries_[k].local_a, current_entries_[k].force});
    }
  }
  return out;
}

void ContactCache::Restore(const RigidBodies& bodies, const std::vector<Saved>& saved) {
  for (const Saved& c : saved) {
    Store(bodies.HandleAt(c.body_a), bodies.HandleAt(c.body_b), c.local_a, c.force);
  }
}

}  // namespace ligature
