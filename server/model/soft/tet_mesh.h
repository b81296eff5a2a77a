#pragma once
// Tetrahedral meshes: the volume discretization soft bodies are built on. A mesh is a
// list of vertices and a list of tetrahedra (four vertex indices each), always positively
// oriented: (b - a) . ((c - a) x (d - a)) > 0 for a tet (a, b, c, d).
//
// Provided here: signed volumes, generators for a box, a cylinder and a sphere at a chosen
// resolution (conforming: two tets meet along a whole shared face, or not at all), a
// reader for Gmsh's MSH 4.1 ASCII format, and the extraction of the boundary surface
// (outward-oriented triangles, each tagged with its tet) used for rendering and contact.

#include <array>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "server/math/types.h"

namespace ligature {

struct TetMesh {
  std::vector<Vec3> vertices;
  std::vector<std::array<int, 4>> tets;  // indices into vertices, positively oriented
};

// Signed volume of the tet a, b, c, d: positive for a positively oriented tet.
double SignedVolume(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d);

// Signed volume of tet t: positive for a positively oriented tet.
double TetVolume(const TetMesh& mesh, int t);

// Sum of the signed volumes of all tets.
double MeshVolume(const TetMesh& mesh);

// The box [-h, h] (h = half_extents, componentwise) as a grid of nx * ny * nz cells, each
// split into 6 tets along its main diagonal (the Kuhn split; the same in every cell, so
// neighbouring cells share matching faces). Counts below 1 are taken as 1.
TetMesh MakeBoxMesh(const Vec3& half_extents, int nx, int ny, int nz);

// A cylinder along z, centred at the origin: radius `radius`, z in [-half_height,
// half_height]. The cross-section is a disc of `radial` rings of `around` points each
// (plus the centre), triangulated, and extruded over `layers` layers; each triangular
// prism is split into 3 tets. Counts are clamped to radial >= 1, around >= 3, layers >= 1.
// The cross-section is the inscribed polygon, so the volume approaches pi r^2 2h from
// below as `around` grows.
TetMesh MakeCylinderMesh(double radius, double half_height, int radial, int around,
                         int layers);

// A ball of radius `radius` centred at the origin: a cube grid of 2 * resolution cells
// per side (48 resolution^3 tets), split like the box but mirrored per octant, mapped
// onto the ball radially (each point moved along its ray from the centre, so the cube's
// surface lands on the sphere). Resolution below 1 is taken as 1. The volume approaches
// 4/3 pi r^3 from below as the resolution grows.
TetMesh MakeSphereMesh(double radius, int resolution);

// Reads a Gmsh MSH 4.1 ASCII file. $MeshFormat must come first and say version 4.1,
// ASCII; $Nodes (sparse tags allowed) and $Elements are read; other sections are skipped.
// Only 4-node tetrahedra (element type 4) are kept; other elements (points, lines,
// triangles, ...) are ignored. The mesh keeps only the nodes the tets use, in file order.
// Negatively oriented tets are flipped. Errors are INVALID_ARGUMENT and name the section
// and the problem.
absl::StatusOr<TetMesh> ReadGmshMsh41(std::string_view text);

// The boundary of a tet mesh: the faces that belong to exactly one tet, with the outward
// normal by the right-hand rule (counter-clockwise seen from outside), and for each the
// tet it belongs to.
struct SurfaceMesh {
  std::vector<std::array<int, 3>> triangles;  // indices into the tet mesh's vertices
  std::vector<int> triangle_tet;              // triangle_tet[i]: the tet of triangle i
};

// Faces are matched by their sorted vertex triple; the order of the result follows the
// tets and their faces, so it is deterministic.
SurfaceMesh ExtractBoundary(const TetMesh& mesh);

// The vertices of the surface's triangles, sorted, each once.
std::vector<int> SurfaceVertices(const SurfaceMesh& surface);

// The number of connected pieces of the mesh: tets are joined when they share a vertex (a
// cut separates pieces by giving each side its own copies of the vertices).
int CountPieces(const TetMesh& mesh);

}  // namespace ligature
