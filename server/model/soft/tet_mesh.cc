// Tetrahedral mesh helpers, generators, the Gmsh MSH 4.1 reader and boundary extraction.

#include "server/model/soft/tet_mesh.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <numeric>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "server/base/status_macros.h"

namespace ligature {
namespace {

// Makes tet t positively oriented by swapping its last two vertices when its signed
// volume is negative.
void OrientPositive(TetMesh& mesh, int t) {
  if (TetVolume(mesh, t) < 0.0) std::swap(mesh.tets[t][2], mesh.tets[t][3]);
}

// A grid of nx * ny * nz cells over [-1, 1]^3, each cell split into the 6 Kuhn tets: one
// per ordering of the axes, each a path from one corner of the cell to the opposite one
// that steps along the axes in that order, so all six share that diagonal.
//
// Without mirroring, every cell uses the same diagonal direction, so a face between two
// cells is cut by the same diagonal on both sides. With mirroring, the cells of each half
// along an axis step away from the centre along that axis: with even counts, the split of
// the positive octant reflected into the others. It stays conforming (a face between two
// cells is split according to the directions along the face, which both cells share,
// since the direction along an axis depends only on the cell's index on that axis) and,
// with even counts, every tet lies within one ordering of |x|, |y|, |z|, which is what a
// map that depends on the largest coordinate needs to be smooth on each tet.
//
// Tets are oriented positively on the grid itself; a mapped grid keeps that orientation
// as long as the map does.
TetMesh KuhnGrid(int nx, int ny, int nz, bool mirror_octants) {
  nx = std::max(nx, 1);
  ny = std::max(ny, 1);
  nz = std::max(nz, 1);
  const std::array<int, 3> n = {nx, ny, nz};
  TetMesh mesh;
  const auto index = [&](const std::array<int, 3>& c) {
    return c[0] + (nx + 1) * (c[1] + (ny + 1) * c[2]);
  };
  mesh.vertices.reserve(static_cast<size_t>(nx + 1) * (ny + 1) * (nz + 1));
  for (int k = 0; k <= nz; ++k) {
    for (int j = 0; j <= ny; ++j) {
      for (int i = 0; i <= nx; ++i) {
        mesh.vertices.emplace_back(-1.0 + 2.0 * i / nx, -1.0 + 2.0 * j / ny,
                                   -1.0 + 2.0 * k / nz);
      }
    }
  }
  static constexpr std::array<std::array<int, 3>, 6> kOrders = {
      {{0, 1, 2}, {1, 2, 0}, {2, 0, 1}, {0, 2, 1}, {1, 0, 2}, {2, 1, 0}}};
  mesh.tets.reserve(static_cast<size_t>(6) * nx * ny * nz);
  for (int k = 0; k < nz; ++k) {
    for (int j = 0; j < ny; ++j) {
      for (int i = 0; i < nx; ++i) {
        const std::array<int, 3> cell = {i, j, k};
        // Per axis: the path's first corner and its step (+1, or -1 in a mirrored
        // negative half).
        std::array<int, 3> first, step;
        for (int a = 0; a < 3; ++a) {
          const bool reversed = mirror_octants && 2 * cell[a] < n[a];
          first[a] = reversed ? cell[a] + 1 : cell[a];
          step[a] = reversed ? -1 : 1;
        }
        for (const std::array<int, 3>& order : kOrders) {
          std::array<int, 3> c = first;
          std::array<int, 4> tet;
          tet[0] = index(c);
          for (int s = 0; s < 3; ++s) {
            c[order[s]] += step[order[s]];
            tet[s + 1] = index(c);
          }
          mesh.tets.push_back(tet);
          OrientPositive(mesh, static_cast<int>(mesh.tets.size()) - 1);
        }
      }
    }
  }
  return mesh;
}

// Splits the prism with bottom triangle (p0, p1, p2) and top (p0 + up, p1 + up, p2 + up)
// (indices; the top vertices all have larger indices) into 3 tets. Every quad face is
// cut by the diagonal through its smallest vertex index, a rule both prisms sharing the
// face apply alike, and which never yields the one cyclic choice a prism cannot be split
// under. Tets are appended positively oriented.
void SplitPrism(std::array<int, 3> p, int up, TetMesh& mesh) {
  // Rotate so that p[0] is the smallest index (the top is p + up, so it is the overall
  // smallest); the diagonals of both quads at p[0] then start at p[0].
  while (p[0] > p[1] || p[0] > p[2]) std::rotate(p.begin(), p.begin() + 1, p.end());
  const int q0 = p[0] + up, q1 = p[1] + up, q2 = p[2] + up;
  mesh.tets.push_back({p[0], q0, q1, q2});
  // The remaining pyramid from p[0] over the quad (p1, p2, q2, q1).
  if (std::min(p[1], q2) < std::min(p[2], q1)) {
    mesh.tets.push_back({p[0], p[1], p[2], q2});
    mesh.tets.push_back({p[0], p[1], q2, q1});
  } else {
    mesh.tets.push_back({p[0], p[1], p[2], q1});
    mesh.tets.push_back({p[0], p[2], q2, q1});
  }
  for (int t = static_cast<int>(mesh.tets.size()) - 3; t < static_cast<int>(mesh.tets.size());
       ++t) {
    OrientPositive(mesh, t);
  }
}

// ---- Gmsh MSH 4.1 reading -------------------------------------------------------------

// One whitespace-separated word of the file and the line it is on.
struct Token {
  std::string_view text;
  int line = 0;
};

// Splits the text into words, remembering their lines (elements are one per line).
std::vector<Token> Tokenize(std::string_view text) {
  std::vector<Token> tokens;
  int line = 1;
  size_t i = 0;
  while (i < text.size()) {
    const char ch = text[i];
    if (ch == '\n') {
      ++line;
      ++i;
    } else if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v') {
      ++i;
    } else {
      const size_t start = i;
      while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
      tokens.push_back({text.substr(start, i - start), line});
    }
  }
  return tokens;
}

absl::string_view ToAbsl(std::string_view s) { return absl::string_view(s.data(), s.size()); }

// A cursor over the tokens of one section, producing errors that name the section.
class SectionReader {
 public:
  SectionReader(const std::vector<Token>& tokens, size_t& pos, std::string section)
      : tokens_(tokens), pos_(pos), section_(std::move(section)) {}

  absl::Status Error(std::string_view problem) const {
    return absl::InvalidArgumentError(
        absl::StrCat("Gmsh MSH: $", section_, ": ", ToAbsl(problem)));
  }

  // The next token of the section; a section marker or the end of the text means the
  // section is cut short.
  absl::StatusOr<Token> Next(std::string_view what) {
    if (pos_ >= tokens_.size() || tokens_[pos_].text.starts_with('$')) {
      return Error(absl::StrCat("truncated section (expected ", ToAbsl(what), ", found ",
                                pos_ >= tokens_.size()
                                    ? std::string("end of file")
                                    : absl::StrCat("'", ToAbsl(tokens_[pos_].text), "'"),
                                ")"));
    }
    return tokens_[pos_++];
  }

  absl::StatusOr<int64_t> Int(std::string_view what) {
    absl::StatusOr<Token> t = Next(what);
    if (!t.ok()) return t.status();
    int64_t value = 0;
    if (!absl::SimpleAtoi(ToAbsl(t->text), &value)) {
      return Error(absl::StrCat("line ", t->line, ": bad ", ToAbsl(what), " '",
                                ToAbsl(t->text), "'"));
    }
    return value;
  }

  // A count: an integer >= 0 that is not absurdly larger than the rest of the file.
  absl::StatusOr<int64_t> Count(std::string_view what) {
    absl::StatusOr<int64_t> n = Int(what);
    if (!n.ok()) return n.status();
    if (*n < 0 || static_cast<uint64_t>(*n) > tokens_.size()) {
      return Error(absl::StrCat("bad ", ToAbsl(what), " ", *n));
    }
    return n;
  }

  absl::StatusOr<double> Double(std::string_view what) {
    absl::StatusOr<Token> t = Next(what);
    if (!t.ok()) return t.status();
    double value = 0.0;
    if (!absl::SimpleAtod(ToAbsl(t->text), &value) || !std::isfinite(value)) {
      return Error(absl::StrCat("line ", t->line, ": bad ", ToAbsl(what), " '",
                                ToAbsl(t->text), "'"));
    }
    return value;
  }

  // Whether more tokens follow on the given line, before any section marker.
  bool MoreOnLine(int line) const {
    return pos_ < tokens_.size() && tokens_[pos_].line == line &&
           !tokens_[pos_].text.starts_with('$');
  }

  // The section's end marker must follow.
  absl::Status End() {
    const std::string marker = absl::StrCat("$End", section_);
    if (pos_ >= tokens_.size()) return Error(absl::StrCat("missing ", marker));
    if (tokens_[pos_].text != marker) {
      return Error(absl::StrCat("missing ", marker, " (found '", ToAbsl(tokens_[pos_].text),
                                "' on line ", tokens_[pos_].line, ")"));
    }
    ++pos_;
    return absl::OkStatus();
  }

 private:
  const std::vector<Token>& tokens_;
  size_t& pos_;
  std::string section_;
};

// $MeshFormat: "version file-type data-size"; only 4.1 ASCII (file-type 0) is read.
absl::Status ReadMeshFormat(SectionReader& r) {
  absl::StatusOr<Token> version = r.Next("version");
  if (!version.ok()) return version.status();
  if (version->text != "4.1") {
    return r.Error(absl::StrCat("unsupported version ", ToAbsl(version->text),
                                " (only 4.1 is read)"));
  }
  int64_t file_type = 0;
  LIGATURE_ASSIGN_OR_RETURN(file_type, r.Int("file type"));
  if (file_type != 0) {
    return r.Error("binary files are not supported (file type must be 0, ASCII)");
  }
  int64_t data_size = 0;
  LIGATURE_ASSIGN_OR_RETURN(data_size, r.Int("data size"));
  (void)data_size;
  return r.End();
}

// The first line of $Nodes and $Elements: "numEntityBlocks count minTag maxTag" (the tag
// range is not needed: tags are mapped as they come).
absl::Status ReadSectionHeader(SectionReader& r, const std::string& what, int64_t* blocks,
                               int64_t* total) {
  LIGATURE_ASSIGN_OR_RETURN(*blocks, r.Count("entity block count"));
  LIGATURE_ASSIGN_OR_RETURN(*total, r.Count(absl::StrCat(what, " count")));
  for (const char* bound : {"minimum ", "maximum "}) {
    if (auto tag = r.Int(absl::StrCat(bound, what, " tag")); !tag.ok()) return tag.status();
  }
  return absl::OkStatus();
}

// $Nodes: "numEntityBlocks numNodes minTag maxTag", then per block "entityDim entityTag
// parametric numNodesInBlock", the block's node tags, then their coordinates (x y z, plus
// entityDim parametric coordinates when parametric is 1). Tags map to file order.
absl::Status ReadNodes(SectionReader& r, std::vector<Vec3>& nodes,
                       absl::flat_hash_map<int64_t, int>& tag_to_node) {
  int64_t blocks = 0, total = 0;
  if (absl::Status s = ReadSectionHeader(r, "node", &blocks, &total); !s.ok()) return s;
  nodes.reserve(static_cast<size_t>(total));
  std::vector<int64_t> tags;
  for (int64_t b = 0; b < blocks; ++b) {
    int64_t dim = 0, entity = 0, parametric = 0, count = 0;
    LIGATURE_ASSIGN_OR_RETURN(dim, r.Int("entity dimension"));
    LIGATURE_ASSIGN_OR_RETURN(entity, r.Int("entity tag"));
    LIGATURE_ASSIGN_OR_RETURN(parametric, r.Int("parametric flag"));
    LIGATURE_ASSIGN_OR_RETURN(count, r.Count("nodes in block"));
    (void)entity;
    if (dim < 0 || dim > 3) return r.Error(absl::StrCat("bad entity dimension ", dim));
    tags.clear();
    for (int64_t n = 0; n < count; ++n) {
      int64_t tag = 0;
      LIGATURE_ASSIGN_OR_RETURN(tag, r.Int("node tag"));
      if (!tag_to_node.emplace(tag, static_cast<int>(nodes.size() + tags.size())).second) {
        return r.Error(absl::StrCat("duplicate node tag ", tag));
      }
      tags.push_back(tag);
    }
    const int64_t extra = parametric != 0 ? dim : 0;
    for (int64_t n = 0; n < count; ++n) {
      Vec3 x;
      for (int c = 0; c < 3; ++c) {
        LIGATURE_ASSIGN_OR_RETURN(x[c], r.Double("coordinate"));
      }
      for (int64_t c = 0; c < extra; ++c) {
        double u = 0.0;
        LIGATURE_ASSIGN_OR_RETURN(u, r.Double("parametric coordinate"));
        (void)u;
      }
      nodes.push_back(x);
    }
  }
  if (static_cast<int64_t>(nodes.size()) != total) {
    return r.Error(absl::StrCat("the header says ", total, " nodes, the blocks hold ",
                                nodes.size()));
  }
  return r.End();
}

// $Elements: "numEntityBlocks numElements minTag maxTag", then per block "entityDim
// entityTag elementType numElementsInBlock" and one element per line (its tag, then its
// node tags). Type 4 (4-node tetrahedron) is kept as node tag quadruples; the rest of
// the elements are skipped line by line, so any element type is accepted.
absl::Status ReadElements(SectionReader& r, std::vector<std::array<int64_t, 5>>& tets) {
  int64_t blocks = 0, total = 0;
  if (absl::Status s = ReadSectionHeader(r, "element", &blocks, &total); !s.ok()) return s;
  int64_t seen = 0;
  for (int64_t b = 0; b < blocks; ++b) {
    int64_t dim = 0, entity = 0, type = 0, count = 0;
    LIGATURE_ASSIGN_OR_RETURN(dim, r.Int("entity dimension"));
    LIGATURE_ASSIGN_OR_RETURN(entity, r.Int("entity tag"));
    LIGATURE_ASSIGN_OR_RETURN(type, r.Int("element type"));
    LIGATURE_ASSIGN_OR_RETURN(count, r.Count("elements in block"));
    (void)dim;
    (void)entity;
    for (int64_t e = 0; e < count; ++e) {
      absl::StatusOr<Token> tag_token = r.Next("element tag");
      if (!tag_token.ok()) return tag_token.status();
      int64_t tag = 0;
      if (!absl::SimpleAtoi(ToAbsl(tag_token->text), &tag)) {
        return r.Error(absl::StrCat("line ", tag_token->line, ": bad element tag '",
                                    ToAbsl(tag_token->text), "'"));
      }
      std::array<int64_t, 5> tet = {tag, 0, 0, 0, 0};
      int nodes = 0;
      while (r.MoreOnLine(tag_token->line)) {
        int64_t node = 0;
        LIGATURE_ASSIGN_OR_RETURN(node, r.Int("element node tag"));
        if (type == 4 && nodes < 4) tet[1 + nodes] = node;
        ++nodes;
      }
      if (nodes == 0) {
        return r.Error(absl::StrCat("line ", tag_token->line, ": element ", tag,
                                    " has no nodes (truncated section?)"));
      }
      if (type == 4) {
        if (nodes != 4) {
          return r.Error(absl::StrCat("line ", tag_token->line, ": tetrahedron ", tag,
                                      " has ", nodes, " nodes, expected 4"));
        }
        tets.push_back(tet);
      }
      ++seen;
    }
  }
  if (seen != total) {
    return r.Error(
        absl::StrCat("the header says ", total, " elements, the blocks hold ", seen));
  }
  return r.End();
}

#undef ASSIGN_OR_RETURN_

// The three vertex indices of a face, sorted: the key that matches a face between tets.
std::array<int, 3> SortedFace(std::array<int, 3> f) {
  std::sort(f.begin(), f.end());
  return f;
}

// The four faces of a positively oriented tet (a, b, c, d), each ordered so that its
// right-hand normal points out of the tet.
std::array<std::array<int, 3>, 4> OutwardFaces(const std::array<int, 4>& t) {
  return {{{t[1], t[2], t[3]}, {t[0], t[3], t[2]}, {t[0], t[1], t[3]}, {t[0], t[2], t[1]}}};
}

}  // namespace

// (b - a) . ((c - a) x (d - a)) / 6.
double SignedVolume(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) {
  return (b - a).dot((c - a).cross(d - a)) / 6.0;
}

double TetVolume(const TetMesh& mesh, int t) {
  const std::array<int, 4>& v = mesh.tets[t];
  return SignedVolume(mesh.vertices[v[0]], mesh.vertices[v[1]], mesh.vertices[v[2]],
                      mesh.vertices[v[3]]);
}

double MeshVolume(const TetMesh& mesh) {
  double volume = 0.0;
  for (int t = 0; t < static_cast<int>(mesh.tets.size()); ++t) volume += TetVolume(mesh, t);
  return volume;
}

// The unit grid scaled to the half extents; scaling by positive factors keeps the
// orientation.
TetMesh MakeBoxMesh(const Vec3& half_extents, int nx, int ny, int nz) {
  TetMesh mesh = KuhnGrid(nx, ny, nz, /*mirror_octants=*/false);
  for (Vec3& v : mesh.vertices) v = v.cwiseProduct(half_extents);
  return mesh;
}

// A disc triangulated as a fan around the centre and quads between rings (each cut along
// the same diagonal), extruded layer by layer; vertex index = level * per_level + index
// in the disc, so the top of each prism is its bottom plus per_level.
TetMesh MakeCylinderMesh(double radius, double half_height, int radial, int around,
                         int layers) {
  radial = std::max(radial, 1);
  around = std::max(around, 3);
  layers = std::max(layers, 1);
  const int per_level = 1 + radial * around;
  const auto ring = [&](int i, int j) { return 1 + (i - 1) * around + (j % around); };

  TetMesh mesh;
  mesh.vertices.reserve(static_cast<size_t>(per_level) * (layers + 1));
  for (int k = 0; k <= layers; ++k) {
    const double z = -half_height + 2.0 * half_height * k / layers;
    mesh.vertices.emplace_back(0.0, 0.0, z);
    for (int i = 1; i <= radial; ++i) {
      const double r = radius * i / radial;
      for (int j = 0; j < around; ++j) {
        const double phi = 2.0 * std::numbers::pi * j / around;
        mesh.vertices.emplace_back(r * std::cos(phi), r * std::sin(phi), z);
      }
    }
  }

  std::vector<std::array<int, 3>> disc;
  disc.reserve(static_cast<size_t>(around) * (2 * radial - 1));
  for (int j = 0; j < around; ++j) {
    disc.push_back({0, ring(1, j), ring(1, j + 1)});
    for (int i = 1; i < radial; ++i) {
      disc.push_back({ring(i, j), ring(i, j + 1), ring(i + 1, j + 1)});
      disc.push_back({ring(i, j), ring(i + 1, j + 1), ring(i + 1, j)});
    }
  }
  mesh.tets.reserve(disc.size() * 3 * layers);
  for (int k = 0; k < layers; ++k) {
    for (const std::array<int, 3>& tri : disc) {
      SplitPrism({tri[0] + k * per_level, tri[1] + k * per_level, tri[2] + k * per_level},
                 per_level, mesh);
    }
  }
  return mesh;
}

// The cube [-1, 1]^3 mapped onto the unit ball by p -> p |p|_inf / |p|_2, which moves
// each point along its ray from the centre so that the cube's surfaces |p|_inf = c become
// spheres of radius c; then scaled by the radius. On each region where one coordinate is
// the largest in magnitude the map is smooth, with Jacobian determinant
// (|p|_inf / |p|_2)^3 >= 3^(-3/2), and the octant-mirrored split keeps every tet inside
// one such region. The map is homogeneous of degree one, so the image of the k-th cell
// from the centre has the same shape at every resolution: tets near the centre are as
// good at fine resolutions as at coarse ones, and further out the map is ever closer to
// affine over a cell.
TetMesh MakeSphereMesh(double radius, int resolution) {
  resolution = std::max(resolution, 1);
  const int cells = 2 * resolution;
  TetMesh mesh = KuhnGrid(cells, cells, cells, /*mirror_octants=*/true);
  for (Vec3& v : mesh.vertices) {
    const double norm = v.norm();
    if (norm > 0.0) v *= radius * v.cwiseAbs().maxCoeff() / norm;
  }
  return mesh;
}

// Reads the sections in order; $MeshFormat must be first. Tets are then resolved from
// node tags to compact vertex indices (only the nodes tets use, in file order).
absl::StatusOr<TetMesh> ReadGmshMsh41(std::string_view text) {
  const std::vector<Token> tokens = Tokenize(text);
  size_t pos = 0;
  if (tokens.empty() || tokens[0].text != "$MeshFormat") {
    return absl::InvalidArgumentError(
        "Gmsh MSH: the file must start with a $MeshFormat section");
  }
  std::vector<Vec3> nodes;
  absl::flat_hash_map<int64_t, int> tag_to_node;
  std::vector<std::array<int64_t, 5>> tet_tags;  // element tag, 4 node tags
  bool have_nodes = false, have_elements = false;
  while (pos < tokens.size()) {
    const Token header = tokens[pos++];
    if (!header.text.starts_with('$') || header.text.starts_with("$End")) {
      return absl::InvalidArgumentError(
          absl::StrCat("Gmsh MSH: line ", header.line, ": expected a section, found '",
                       ToAbsl(header.text), "'"));
    }
    const std::string name(header.text.substr(1));
    SectionReader reader(tokens, pos, name);
    absl::Status status;
    if (name == "MeshFormat") {
      status = ReadMeshFormat(reader);
    } else if (name == "Nodes") {
      if (have_nodes) return reader.Error("repeated section");
      have_nodes = true;
      status = ReadNodes(reader, nodes, tag_to_node);
    } else if (name == "Elements") {
      if (have_elements) return reader.Error("repeated section");
      have_elements = true;
      status = ReadElements(reader, tet_tags);
    } else {
      // Any other section is skipped up to its end marker.
      const std::string marker = absl::StrCat("$End", name);
      while (pos < tokens.size() && tokens[pos].text != marker) ++pos;
      if (pos == tokens.size()) return reader.Error(absl::StrCat("missing ", marker));
      ++pos;
    }
    if (!status.ok()) return status;
  }
  if (!have_nodes) return absl::InvalidArgumentError("Gmsh MSH: no $Nodes section");
  if (!have_elements) return absl::InvalidArgumentError("Gmsh MSH: no $Elements section");
  if (tet_tags.empty()) {
    return absl::InvalidArgumentError(
        "Gmsh MSH: $Elements: no tetrahedra (element type 4) in the file");
  }

  TetMesh mesh;
  std::vector<int> node_to_vertex(nodes.size(), -1);
  mesh.tets.reserve(tet_tags.size());
  for (const std::array<int64_t, 5>& e : tet_tags) {
    std::array<int, 4> tet;
    for (int c = 0; c < 4; ++c) {
      const auto it = tag_to_node.find(e[1 + c]);
      if (it == tag_to_node.end()) {
        return absl::InvalidArgumentError(absl::StrCat("Gmsh MSH: $Elements: tetrahedron ",
                                                       e[0], " references unknown node tag ",
                                                       e[1 + c]));
      }
      tet[c] = it->second;
    }
    mesh.tets.push_back(tet);
  }
  // Vertices in file order of the nodes, keeping only those the tets use.
  for (const std::array<int, 4>& tet : mesh.tets) {
    for (int n : tet) node_to_vertex[n] = 0;
  }
  for (size_t n = 0; n < nodes.size(); ++n) {
    if (node_to_vertex[n] < 0) continue;
    node_to_vertex[n] = static_cast<int>(mesh.vertices.size());
    mesh.vertices.push_back(nodes[n]);
  }
  for (std::array<int, 4>& tet : mesh.tets) {
    for (int& n : tet) n = node_to_vertex[n];
  }
  for (int t = 0; t < static_cast<int>(mesh.tets.size()); ++t) {
    if (TetVolume(mesh, t) == 0.0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Gmsh MSH: $Elements: tetrahedron ", tet_tags[t][0], " is degenerate (zero volume)"));
    }
    OrientPositive(mesh, t);
  }
  return mesh;
}

// Counts each face (by its sorted triple) over all tets, then keeps, in tet order, the
// faces seen once, with the orientation they have in their tet.
std::vector<int> SurfaceVertices(const SurfaceMesh& surface) {
  std::vector<int> vertices;
  vertices.reserve(3 * surface.triangles.size());
  for (const auto& tri : surface.triangles) vertices.insert(vertices.end(), tri.begin(), tri.end());
  std::sort(vertices.begin(), vertices.end());
  vertices.erase(std::unique(vertices.begin(), vertices.end()), vertices.end());
  return vertices;
}

SurfaceMesh ExtractBoundary(const TetMesh& mesh) {
  absl::flat_hash_map<std::array<int, 3>, int> face_count;
  face_count.reserve(mesh.tets.size() * 4);
  for (const std::array<int, 4>& tet : mesh.tets) {
    for (const std::array<int, 3>& f : OutwardFaces(tet)) ++face_count[SortedFace(f)];
  }
  SurfaceMesh surface;
  for (int t = 0; t < static_cast<int>(mesh.tets.size()); ++t) {
    for (const std::array<int, 3>& f : OutwardFaces(mesh.tets[t])) {
      if (face_count.at(SortedFace(f)) != 1) continue;
      surface.triangles.push_back(f);
      surface.triangle_tet.push_back(t);
    }
  }
  return surface;
}

// Union-find over tets, joining each tet to the first tet seen at each of its vertices.
int CountPieces(const TetMesh& mesh) {
  std::vector<int> parent(mesh.tets.size());
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&parent](int i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  std::vector<int> first_tet(mesh.vertices.size(), -1);
  int pieces = static_cast<int>(mesh.tets.size());
  for (int t = 0; t < static_cast<int>(mesh.tets.size()); ++t) {
    for (const int v : mesh.tets[t]) {
      if (v < 0 || static_cast<size_t>(v) >= first_tet.size()) continue;
      if (first_tet[v] < 0) {
        first_tet[v] = t;
        continue;
      }
      const int a = find(t), b = find(first_tet[v]);
      if (a != b) {
        parent[a] = b;
        --pieces;
      }
    }
  }
  return pieces;
}

}  // namespace ligature
