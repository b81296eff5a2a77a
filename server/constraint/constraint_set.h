#pragma once
// User constraints of a world (joints and curve constraints), in creation order
// (swap-removed), looked up by id.

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "server/constraint/joint.h"

namespace ligature {

class ConstraintSet {
 public:
  void Add(Joint joint);
  void Remove(const std::string& id);
  bool Contains(const std::string& id) const { return index_.contains(id); }
  const Joint* Find(const std::string& id) const;
  Joint* FindMutable(const std::string& id);
  // Removes every constraint on `body` and returns their ids.
  std::vector<std::string> RemoveAttachedTo(BodyHandle body);
  int size() const { return static_cast<int>(joints_.size()); }

  std::vector<Joint>& joints() { return joints_; }
  const std::vector<Joint>& joints() const { return joints_; }

 private:
  std::vector<Joint> joints_;
  absl::flat_hash_map<std::string, size_t> index_;
};

}  // namespace ligature
