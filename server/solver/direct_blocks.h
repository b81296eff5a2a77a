#pragma once
// The bilateral blocks of a Gauss-Seidel solve (joints' anchors, orientations and axes)
// solved together and exactly: their compliance matrix W_gg = H_g C H_g^T, sparse wherever
// bodies share no block, is factored once per solve (sparse LDL^T; its fill-reducing
// ordering is kept while the joints' bodies stay the same) and each sweep then finds the
// force changes that take all of their violations to zero at once, given what the other
// blocks do. A chain of links then holds its length whatever its length and mass ratios,
// where sweeping block by block needs about as many sweeps as it has links and loses
// ground under heavy ends.
//
// Redundant blocks (a closed loop of hinges constrains some directions twice) would make
// W_gg singular; a block whose pivot vanishes is left to the sweeps, and the others stay
// exact.

#include <Eigen/SparseCholesky>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/functional/function_ref.h"
#include "server/constraint/constraint_rows.h"

namespace ligature {

class DirectBlocks {
 public:
  DirectBlocks() = default;
  // The factorization is scratch of one solve: a copy holds none and takes no block until
  // its next Prepare.
  DirectBlocks(const DirectBlocks&) {}
  DirectBlocks& operator=(const DirectBlocks&) {
    members_.clear();
    member_.clear();
    pattern_.clear();
    slots_.clear();
    return *this;
  }

  // C H^T of one side of a block (0: body a, 1: body b), 6 x 3.
  using Response = absl::FunctionRef<const Eigen::Matrix<double, 6, 3>&(uint32_t block, int side)>;

  // Takes the blocks `eligible` says may join (bilateral blocks on bodies with their own
  // compliance) and factors their W_gg; members() lists those that joined.
  void Prepare(const ConstraintRows& rows, absl::FunctionRef<bool(uint32_t)> eligible,
               Response response);

  // One exact step: the members' force changes that cancel their violations (violation_free
  // plus J dq) are added to their forces and handed to `apply` to move the bodies. Returns
  // the largest violation cancelled.
  double Step(ConstraintRows& rows, const std::vector<Vec6>& dq,
              absl::FunctionRef<void(uint32_t block, const Vec3& df)> apply);

  bool empty() const { return members_.empty(); }
  const std::vector<uint32_t>& members() const { return members_; }
  // Per block of the last Prepare: whether it is a member.
  bool IsMember(uint32_t block) const { return block < member_.size() && member_[block]; }

 private:
  bool Factor(const ConstraintRows& rows, Response response, std::optional<uint32_t>* redundant);

  std::vector<uint32_t> members_;
  std::vector<int> offset_;  // per member, its first row in W_gg
  std::vector<char> member_;
  // The members' bodies and sizes in order, which decide W_gg's pattern.
  struct PatternKey {
    uint32_t body_a;
    uint32_t body_b;
    uint32_t dim;
    bool operator==(const PatternKey&) const = default;
  };
  // Kept from the last factorization: its pattern, W_gg, where each entry of the fixed
  // order adds into W_gg's values, and the symbolic factorization.
  std::vector<PatternKey> pattern_;
  Eigen::SparseMatrix<double> w_;
  std::vector<int> slots_;
  std::vector<Eigen::Triplet<double>> entries_;  // scratch
  std::vector<double> values_;                   // scratch
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> factor_;
  Eigen::VectorXd rhs_;
  Eigen::VectorXd solution_;
};

}  // namespace ligature
