#pragma once
// A real ligatured (ServerTest) publishing the frames of chosen worlds to a real nats-server
// on a free loopback port; the server stops before the broker.

#include <string>
#include <vector>

#include "tests/integration/server_fixture.h"
#include "tests/support/nats_broker.h"

namespace ligature::testing {

class PublishingServerTest : public ServerTest {
 protected:
  explicit PublishingServerTest(std::vector<std::string> published)
      : published_(std::move(published)) {}
  void Customize(ServerOptions* options) override {
    port_ = FreePort();
    ASSERT_TRUE(broker_.Start(port_)) << "nats-server did not start";
    url_ = "nats://127.0.0.1:" + std::to_string(port_);
    options->publish.url = url_;
    options->publish.worlds = published_;
  }
  void TearDown() override {
    ServerTest::TearDown();
    server_.reset();
  }

  const std::vector<std::string> published_;
  Broker broker_;
  int port_ = 0;
  std::string url_;
};

}  // namespace ligature::testing
