// The client's datagram link: bad offers are refused naming the field; a link speaks to a
// server's end of the channel (a socket sealing with the session's key) both ways.

#include "clients/cpp/haptic_datagrams.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "server/haptics/clock.h"

namespace ligature::client {
namespace {

v1::HapticDatagramOffer GoodOffer(int port) {
  v1::HapticDatagramOffer offer;
  offer.set_port(port);
  offer.set_key(std::string(haptics::kSessionKeyBytes, '\x5a'));
  offer.set_session(77);
  return offer;
}

void ExpectRefusedNaming(const v1::HapticDatagramOffer& offer, const std::string& host,
                         const std::string& field) {
  auto link = HapticDatagramLink::Connect(host, offer);
  ASSERT_FALSE(link.ok()) << field;
  EXPECT_EQ(link.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(link.status().message().find(field), std::string::npos) << link.status();
}

TEST(HapticDatagramLinkTest, BadOffersAreRefusedNamingTheField) {
  v1::HapticDatagramOffer offer = GoodOffer(0);
  ExpectRefusedNaming(offer, "127.0.0.1", "opened.datagrams.port");
  offer = GoodOffer(70000);
  ExpectRefusedNaming(offer, "127.0.0.1", "opened.datagrams.port");
  offer = GoodOffer(5000);
  offer.set_key(std::string(31, 'k'));
  ExpectRefusedNaming(offer, "127.0.0.1", "opened.datagrams.key");
  offer = GoodOffer(5000);
  offer.set_session(0);
  ExpectRefusedNaming(offer, "127.0.0.1", "opened.datagrams.session");
  ExpectRefusedNaming(GoodOffer(5000), "no-such-host.invalid", "datagram_host");
}

// A UDP socket on loopback standing in for the server's port.
struct FakePort {
  FakePort() {
    fd = socket(AF_INET, SOCK_DGRAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
    socklen_t n = sizeof(a);
    getsockname(fd, reinterpret_cast<sockaddr*>(&a), &n);
    port = ntohs(a.sin_port);
  }
  ~FakePort() { close(fd); }
  int fd = -1;
  int port = 0;
};

TEST(HapticDatagramLinkTest, SealsTowardsTheServerAndTakesOnlyTheNewestFromIt) {
  FakePort server;
  const v1::HapticDatagramOffer offer = GoodOffer(server.port);
  auto link = HapticDatagramLink::Connect("127.0.0.1", offer);
  ASSERT_TRUE(link.ok()) << link.status();
  haptics::SessionKey key;
  key.fill(0x5a);

  // The pose arrives sealed for the server, sequence 1, and opens with the offer's key.
  v1::HapticDatagram pose;
  pose.mutable_pose()->set_sequence(9);
  ASSERT_TRUE((*link)->Send(pose));
  char buf[2048];
  sockaddr_in from{};
  socklen_t from_len = sizeof(from);
  const ssize_t n =
      recvfrom(server.fd, buf, sizeof(buf), 0, reinterpret_cast<sockaddr*>(&from), &from_len);
  ASSERT_GT(n, 0);
  haptics::DatagramReceiver at_server(key, 77, haptics::Direction::kToServer);
  auto opened = at_server.Receive(std::string_view(buf, n));
  ASSERT_TRUE(opened.has_value());
  v1::HapticDatagram got;
  ASSERT_TRUE(got.ParseFromString(opened->payload));
  EXPECT_EQ(got.pose().sequence(), 9u);

  // Forces 2 then 1 (late): only 2 is taken; nothing more arrives before the deadline.
  haptics::DatagramSender to_client(key, 77, haptics::Direction::kToClient);
  std::string sealed[2];
  for (int i = 0; i < 2; ++i) {
    v1::HapticDatagram force;
    force.mutable_force()->set_sequence(i + 1);
    sealed[i] = *to_client.Seal(0, force.SerializeAsString());
  }
  for (int i : {1, 0}) {
    sendto(server.fd, sealed[i].data(), sealed[i].size(), 0, reinterpret_cast<sockaddr*>(&from),
           from_len);
  }
  auto first = (*link)->Receive(haptics::MonotonicSeconds() + 1.0);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->force().sequence(), 2u);
  EXPECT_FALSE((*link)->Receive(haptics::MonotonicSeconds() + 0.05).has_value());
  EXPECT_EQ((*link)->counts().taken, 1u);
  EXPECT_EQ((*link)->counts().stale, 1u);
}

}  // namespace
}  // namespace ligature::client
