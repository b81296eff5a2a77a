#pragma once
// The haptics tests' world: a probe over a floor, its session's open message and poses, and
// a fixture whose server holds that world as worlds/hw.

#include <cstdint>
#include <string>

#include "ligature/v1/haptics_service.pb.h"
#include "ligature/v1/scene.pb.h"
#include "server/haptics/device_pose.h"
#include "tests/integration/server_fixture.h"

namespace ligature::testing {

// Ground plane and a 50 g probe sphere 2 cm above it, ticking at 100 Hz.
inline v1::Scene ProbeScene() {
  v1::Scene scene;
  scene.mutable_settings()->set_rate_hz(100);
  v1::Body* ground = scene.add_bodies();
  ground->set_id("ground");
  ground->set_kind(v1::BODY_KIND_STATIC);
  ground->mutable_shape()->mutable_plane();
  v1::Body* probe = scene.add_bodies();
  probe->set_id("probe");
  probe->mutable_shape()->mutable_sphere()->set_radius(0.01);
  probe->mutable_material()->set_mass(0.05);
  probe->mutable_pose()->mutable_position()->set_y(0.03);
  v1::Body* post = scene.add_bodies();
  post->set_id("post");
  post->set_kind(v1::BODY_KIND_STATIC);
  post->mutable_shape()->mutable_box()->mutable_half_extents()->set_x(0.1);
  post->mutable_shape()->mutable_box()->mutable_half_extents()->set_y(0.1);
  post->mutable_shape()->mutable_box()->mutable_half_extents()->set_z(0.1);
  post->mutable_pose()->mutable_position()->set_x(2);
  return scene;
}

inline v1::HapticOpen OpenFor(const std::string& tool, bool remote = false) {
  v1::HapticOpen open;
  open.set_world("worlds/hw");
  open.set_tool_body_id(tool);
  open.set_device_id("dev-1");
  open.set_mode(remote ? v1::HAPTIC_MODE_REMOTE : v1::HAPTIC_MODE_SERVER);
  return open;
}

inline haptics::DevicePose PoseAt(uint64_t seq, double y) {
  haptics::DevicePose p;
  p.sequence = seq;
  p.client_time = seq * 1e-3;
  p.position = Vec3(0, y, 0);
  return p;
}

class ProbeWorldTest : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    v1::World w;
    ASSERT_TRUE(CreateWorld("hw", ProbeScene(), &w).ok());
  }
};

}  // namespace ligature::testing
