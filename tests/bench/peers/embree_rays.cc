#include "tests/bench/peers/embree_rays.h"

#include <embree3/rtcore.h>

#include <chrono>
#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace ligature::bench {
namespace {

using Clock = std::chrono::steady_clock;

// The body ids the top scene gives its geometries.
constexpr unsigned kTerrainId = 0;  // the instance of the terrain's scene
constexpr unsigned kSpheresId = 1;
constexpr unsigned kBoxesId = 2;

// A box's 12 triangles over its corners (corner c at +-half by bits x, y, z of c). Embree
// (built without back-face culling) meets them from either side; rays start outside every
// solid, so the first hit is where the ray enters.
constexpr unsigned kBoxTriangles[12][3] = {{0, 4, 6}, {0, 6, 2}, {1, 3, 7}, {1, 7, 5},
                                           {0, 1, 5}, {0, 5, 4}, {2, 6, 7}, {2, 7, 3},
                                           {0, 2, 3}, {0, 3, 1}, {4, 5, 7}, {4, 7, 6}};

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

class EmbreeRays : public RayCaster {
 public:
  explicit EmbreeRays(const RayScene& scene) : scene_(scene) {}

  ~EmbreeRays() override {
    if (top_ != nullptr) rtcReleaseScene(top_);
    if (terrain_ != nullptr) rtcReleaseScene(terrain_);
    if (device_ != nullptr) rtcReleaseDevice(device_);
  }

  // The device on one thread; the terrain in its own scene, committed once (its BVH, like
  // our mesh's tree and Bullet's, is built with the mesh); the top scene holding an
  // instance of it, every sphere and every box, committed in each batch.
  absl::Status Init() {
    device_ = rtcNewDevice("threads=1");
    if (device_ == nullptr) return absl::InternalError("embree: rtcNewDevice failed");
    rtcSetDeviceErrorFunction(
        device_,
        [](void* self, RTCError, const char* message) {
          std::string& error = static_cast<EmbreeRays*>(self)->error_;
          if (error.empty()) error = message;
        },
        this);
    const Clock::time_point start = Clock::now();
    terrain_ = rtcNewScene(device_);
    RTCGeometry mesh = rtcNewGeometry(device_, RTC_GEOMETRY_TYPE_TRIANGLE);
    auto* v = static_cast<float*>(rtcSetNewGeometryBuffer(mesh, RTC_BUFFER_TYPE_VERTEX, 0,
                                                          RTC_FORMAT_FLOAT3, 3 * sizeof(float),
                                                          scene_.vertices.size()));
    for (const Vec3& p : scene_.vertices) {
      *v++ = static_cast<float>(p.x());
      *v++ = static_cast<float>(p.y());
      *v++ = static_cast<float>(p.z());
    }
    auto* index = static_cast<unsigned*>(
        rtcSetNewGeometryBuffer(mesh, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3,
                                3 * sizeof(unsigned), scene_.indices.size() / 3));
    for (const uint32_t i : scene_.indices) *index++ = i;
    rtcCommitGeometry(mesh);
    rtcAttachGeometry(terrain_, mesh);
    rtcReleaseGeometry(mesh);
    rtcCommitScene(terrain_);
    terrain_build_ms_ = MsSince(start);

    top_ = rtcNewScene(device_);
    RTCGeometry instance = rtcNewGeometry(device_, RTC_GEOMETRY_TYPE_INSTANCE);
    rtcSetGeometryInstancedScene(instance, terrain_);
    const float identity[12] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0};
    rtcSetGeometryTransform(instance, 0, RTC_FORMAT_FLOAT3X4_COLUMN_MAJOR, identity);
    rtcCommitGeometry(instance);
    rtcAttachGeometryByID(top_, instance, kTerrainId);
    rtcReleaseGeometry(instance);

    for (size_t k = 0; k < scene_.solids.size(); ++k) {
      (scene_.solids[k].is_box ? box_body_ : sphere_body_).push_back(static_cast<int>(k) + 1);
    }
    spheres_ = rtcNewGeometry(device_, RTC_GEOMETRY_TYPE_SPHERE_POINT);
    sphere_vertices_ = static_cast<float*>(
        rtcSetNewGeometryBuffer(spheres_, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT4,
                                4 * sizeof(float), sphere_body_.size()));
    boxes_ = rtcNewGeometry(device_, RTC_GEOMETRY_TYPE_TRIANGLE);
    box_vertices_ = static_cast<float*>(
        rtcSetNewGeometryBuffer(boxes_, RTC_BUFFER_TYPE_VERTEX, 0, RTC_FORMAT_FLOAT3,
                                3 * sizeof(float), 8 * box_body_.size()));
    auto* box_index = static_cast<unsigned*>(
        rtcSetNewGeometryBuffer(boxes_, RTC_BUFFER_TYPE_INDEX, 0, RTC_FORMAT_UINT3,
                                3 * sizeof(unsigned), 12 * box_body_.size()));
    for (size_t b = 0; b < box_body_.size(); ++b) {
      for (const auto& t : kBoxTriangles) {
        for (const unsigned c : t) *box_index++ = static_cast<unsigned>(8 * b) + c;
      }
    }
    WriteSolids();
    rtcCommitGeometry(spheres_);
    rtcCommitGeometry(boxes_);
    rtcAttachGeometryByID(top_, spheres_, kSpheresId);
    rtcAttachGeometryByID(top_, boxes_, kBoxesId);
    rtcReleaseGeometry(spheres_);
    rtcReleaseGeometry(boxes_);
    rtcCommitScene(top_);
    if (rtcGetDeviceError(device_) != RTC_ERROR_NONE) {
      return absl::InternalError(absl::StrCat("embree: building the scene failed: ", error_));
    }
    return absl::OkStatus();
  }

  // Per batch: the solids' vertices written from their poses (as a new frame's would be)
  // and the top scene committed (its BVH rebuilt), then rtcIntersect1 per ray.
  void Batch(const RaySet& rays, std::vector<RayAnswer>* answers) override {
    const Clock::time_point start = Clock::now();
    WriteSolids();
    rtcUpdateGeometryBuffer(spheres_, RTC_BUFFER_TYPE_VERTEX, 0);
    rtcUpdateGeometryBuffer(boxes_, RTC_BUFFER_TYPE_VERTEX, 0);
    rtcCommitGeometry(spheres_);
    rtcCommitGeometry(boxes_);
    rtcCommitScene(top_);
    commit_ms_ = MsSince(start);
    RTCIntersectContext context;
    rtcInitIntersectContext(&context);
    const float far = static_cast<float>(rays.max_distance);
    for (size_t i = 0; i < rays.origins.size(); ++i) {
      const Vec3& o = rays.origins[i];
      const Vec3& d = rays.directions[i];
      RTCRayHit rh;
      rh.ray.org_x = static_cast<float>(o.x());
      rh.ray.org_y = static_cast<float>(o.y());
      rh.ray.org_z = static_cast<float>(o.z());
      rh.ray.dir_x = static_cast<float>(d.x());
      rh.ray.dir_y = static_cast<float>(d.y());
      rh.ray.dir_z = static_cast<float>(d.z());
      rh.ray.tnear = 0.0f;
      rh.ray.tfar = far;
      rh.ray.time = 0.0f;
      rh.ray.mask = std::numeric_limits<unsigned>::max();
      rh.ray.id = 0;
      rh.ray.flags = 0;
      rh.hit.geomID = RTC_INVALID_GEOMETRY_ID;
      rh.hit.instID[0] = RTC_INVALID_GEOMETRY_ID;
      rtcIntersect1(top_, &context, &rh);
      RayAnswer& answer = (*answers)[i];
      answer = RayAnswer{};
      if (rh.hit.geomID == RTC_INVALID_GEOMETRY_ID) continue;
      answer.distance = rh.ray.tfar;
      if (rh.hit.instID[0] != RTC_INVALID_GEOMETRY_ID) {
        answer.body = 0;
      } else if (rh.hit.geomID == kSpheresId) {
        answer.body = sphere_body_[rh.hit.primID];
      } else {
        answer.body = box_body_[rh.hit.primID / 12];
      }
    }
  }

  std::string Notes() const override {
    char figures[96];
    std::snprintf(figures, sizeof(figures), "terrain BVH %.3g ms untimed, top commit %.3g ms",
                  terrain_build_ms_, commit_ms_);
    return absl::StrCat(
        "embree: device threads=1, single precision; the terrain in its own scene (default "
        "build quality; ",
        figures,
        " per batch), instanced in a top scene with the spheres "
        "(RTC_GEOMETRY_TYPE_SPHERE_POINT) and the boxes (12 triangles each); per batch the "
        "solids' vertices rewritten and the top scene committed, then rtcIntersect1 per ray");
  }

 private:
  // Sphere centres and radii, and box corners from their poses, into Embree's buffers.
  void WriteSolids() {
    float* s = sphere_vertices_;
    float* b = box_vertices_;
    for (const RaySolid& solid : scene_.solids) {
      if (!solid.is_box) {
        const Vec3& c = solid.pose.position;
        *s++ = static_cast<float>(c.x());
        *s++ = static_cast<float>(c.y());
        *s++ = static_cast<float>(c.z());
        *s++ = static_cast<float>(solid.radius);
        continue;
      }
      for (int c = 0; c < 8; ++c) {
        const Vec3 local((c & 1) ? solid.half.x() : -solid.half.x(),
                         (c & 2) ? solid.half.y() : -solid.half.y(),
                         (c & 4) ? solid.half.z() : -solid.half.z());
        const Vec3 p = solid.pose.Apply(local);
        *b++ = static_cast<float>(p.x());
        *b++ = static_cast<float>(p.y());
        *b++ = static_cast<float>(p.z());
      }
    }
  }

  const RayScene& scene_;
  RTCDevice device_ = nullptr;
  RTCScene terrain_ = nullptr;
  RTCScene top_ = nullptr;
  RTCGeometry spheres_ = nullptr;  // owned by top_
  RTCGeometry boxes_ = nullptr;    // owned by top_
  float* sphere_vertices_ = nullptr;
  float* box_vertices_ = nullptr;
  std::vector<int> sphere_body_;  // per sphere primitive: its body
  std::vector<int> box_body_;     // per box (12 primitives): its body
  double terrain_build_ms_ = 0.0;
  double commit_ms_ = 0.0;
  std::string error_;  // the device's first error message
};

}  // namespace

bool EmbreePeerAvailable() { return true; }

std::string EmbreePeerName() { return absl::StrCat("embree-", RTC_VERSION_STRING); }

absl::StatusOr<std::unique_ptr<RayCaster>> MakeEmbreeRays(const RayScene& scene) {
  auto rays = std::make_unique<EmbreeRays>(scene);
  const absl::Status status = rays->Init();
  if (!status.ok()) return status;
  return std::unique_ptr<RayCaster>(std::move(rays));
}

}  // namespace ligature::bench
