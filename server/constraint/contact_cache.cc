#include "server/constraint/contact_cache.h"

namespace ligature {
namespace {
// Two contacts closer than this in body A's frame are the same contact (m).
constexpr double kMatchDistance = 0.02;
}  // namespace

void ContactCache::BeginTick() {
  std::swap(previous_, current_);
  current_.clear();
}

Vec3 ContactCache::Lookup(BodyHandle a, BodyHandle b, const Vec3& local_a) const {
  auto it = previous_.find(Key(a, b));
  if (it == previous_.end()) return Vec3::Zero();
  const PairEntries& p = it->second;
  // A reused slot belongs to another body: its forces mean nothing here.
  if (p.generation_a != a.generation || p.generation_b != b.generation) return Vec3::Zero();
  double best = kMatchDistance * kMatchDistance;
  Vec3 force = Vec3::Zero();
  for (int i = 0; i < p.count; ++i) {
    const double d2 = (p.entries[i].local_a - local_a).squaredNorm();
    if (d2 < best) {
      best = d2;
      force = p.entries[i].force;
    }
  }
  return force;
}

void ContactCache::Store(BodyHandle a, BodyHandle b, const Vec3& local_a, const Vec3& force) {
  PairEntries& p = current_[Key(a, b)];
  p.generation_a = a.generation;
  p.generation_b = b.generation;
  if (p.count < static_cast<int>(p.entries.size())) p.entries[p.count++] = {local_a, force};
}

}  // namespace ligature
