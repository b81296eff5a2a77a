#include "server/constraint/contact_cache.h"

#include <gtest/gtest.h>

namespace ligature {
namespace {

const BodyHandle kA{3, 1};
const BodyHandle kB{8, 4};
const Vec3 kLocal(0.1, -0.25, 0.05);
const Vec3 kForce(12.0, -1.5, 0.75);

// A contact stored during a tick is found in the next tick within 2 cm (in A's frame).
TEST(ContactCacheTest, LookupMatchesWithinTwoCentimetres) {
  ContactCache cache;
  cache.BeginTick();
  cache.Store(kA, kB, kLocal, kForce);
  cache.BeginTick();
  EXPECT_EQ(cache.Lookup(kA, kB, kLocal), kForce);
  EXPECT_EQ(cache.Lookup(kA, kB, kLocal + Vec3(0.019, 0.0, 0.0)), kForce);
  EXPECT_EQ(cache.Lookup(kA, kB, kLocal + Vec3(0.0, -0.011, 0.011)), kForce);  // 1.56 cm
}

// Beyond 2 cm it is another contact: no warm start.
TEST(ContactCacheTest, LookupMissesBeyondTwoCentimetres) {
  ContactCache cache;
  cache.Store(kA, kB, kLocal, kForce);
  cache.BeginTick();
  EXPECT_TRUE(cache.Lookup(kA, kB, kLocal + Vec3(0.021, 0.0, 0.0)).isZero());
  EXPECT_TRUE(cache.Lookup(kA, kB, kLocal + Vec3(0.015, 0.015, 0.0)).isZero());  // 2.12 cm
}

// Of several stored contacts of a pair the nearest one answers.
TEST(ContactCacheTest, NearestEntryWins) {
  ContactCache cache;
  cache.Store(kA, kB, Vec3(0.0, 0.0, 0.0), Vec3(1, 0, 0));
  cache.Store(kA, kB, Vec3(0.015, 0.0, 0.0), Vec3(2, 0, 0));
  cache.Store(kA, kB, Vec3(0.5, 0.0, 0.0), Vec3(3, 0, 0));
  cache.BeginTick();
  EXPECT_EQ(cache.Lookup(kA, kB, Vec3(0.005, 0, 0)), Vec3(1, 0, 0));
  EXPECT_EQ(cache.Lookup(kA, kB, Vec3(0.010, 0, 0)), Vec3(2, 0, 0));
  EXPECT_EQ(cache.Lookup(kA, kB, Vec3(0.49, 0, 0)), Vec3(3, 0, 0));
}

// A slot reused by another body (new generation, on either side) does not inherit forces.
TEST(ContactCacheTest, MissAfterGenerationChange) {
  ContactCache cache;
  cache.Store(kA, kB, kLocal, kForce);
  cache.BeginTick();
  EXPECT_TRUE(cache.Lookup({kA.slot, kA.generation + 1}, kB, kLocal).isZero());
  EXPECT_TRUE(cache.Lookup(kA, {kB.slot, kB.generation + 1}, kLocal).isZero());
  EXPECT_EQ(cache.Lookup(kA, kB, kLocal), kForce);
}

// Pairs are keyed by both slots in order: another pair, or the same pair swapped, misses.
TEST(ContactCacheTest, PairsAreDistinct) {
  ContactCache cache;
  cache.Store(kA, kB, kLocal, kForce);
  cache.BeginTick();
  EXPECT_TRUE(cache.Lookup(kB, kA, kLocal).isZero());
  EXPECT_TRUE(cache.Lookup(kA, BodyHandle{9, 4}, kLocal).isZero());
}

// BeginTick rotates: what is stored is visible only after the next BeginTick, and only for
// one tick.
TEST(ContactCacheTest, BeginTickRotation) {
  ContactCache cache;
  cache.Store(kA, kB, kLocal, kForce);
  EXPECT_TRUE(cache.Lookup(kA, kB, kLocal).isZero());  // not yet
  cache.BeginTick();
  EXPECT_EQ(cache.Lookup(kA, kB, kLocal), kForce);
  // Storing a new value this tick does not change what is looked up this tick.
  cache.Store(kA, kB, kLocal, 2.0 * kForce);
  EXPECT_EQ(cache.Lookup(kA, kB, kLocal), kForce);
  cache.BeginTick();
  EXPECT_EQ(cache.Lookup(kA, kB, kLocal), 2.0 * kForce);
  cache.BeginTick();  // nothing stored in the previous tick
  EXPECT_TRUE(cache.Lookup(kA, kB, kLocal).isZero());
}

}  // namespace
}  // namespace ligature
