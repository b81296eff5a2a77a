#include "server/haptics/datagram/datagram_endpoint.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ligature::haptics {
namespace {

SessionKey EndpointKey(uint8_t first) {
  SessionKey key;
  for (size_t i = 0; i < key.size(); ++i) key[i] = static_cast<uint8_t>(first + 3 * i);
  return key;
}

// Ten poses sent in order but received out of order, with one replayed: only those newer
// than every one taken before are taken, the replay is dropped and counted.
TEST(DatagramEndpointTest, NewestWinsAndReplaysAreDropped) {
  DatagramSender client(EndpointKey(1), 77, Direction::kToServer);
  DatagramReceiver server(EndpointKey(1), 77, Direction::kToServer);
  std::vector<std::string> sent;
  for (int i = 0; i < 10; ++i) {
    const absl::StatusOr<std::string> d = client.Seal(1000 * i, "pose " + std::to_string(i));
    ASSERT_TRUE(d.ok()) << d.status();
    sent.push_back(*d);
  }
  EXPECT_EQ(client.sent(), 10u);
  std::vector<std::string> taken;
  for (int i : {0, 2, 1, 3, 3, 6, 4, 9, 8}) {
    if (auto d = server.Receive(sent[i])) taken.push_back(d->payload);
  }
  EXPECT_EQ(taken, (std::vector<std::string>{"pose 0", "pose 2", "pose 3", "pose 6", "pose 9"}));
  const DatagramCounts& c = server.counts();
  EXPECT_EQ(c.taken, 5u);
  EXPECT_EQ(c.replayed, 1u);
  EXPECT_EQ(c.stale, 3u);  // 1, 4 and 8 came after a newer one
  EXPECT_EQ(c.forged + c.malformed + c.wrong_session, 0u);
}

// A datagram with a bad tag, one sealed with another session's key, and one of another
// session or sent back the other way are each dropped and counted, never taken; none of them
// moves the window, so the genuine datagrams after them are still taken.
TEST(DatagramEndpointTest, ForgedAndForeignDatagramsAreDroppedAndCounted) {
  const SessionKey key = EndpointKey(2);
  DatagramSender client(key, 5, Direction::kToServer);
  DatagramReceiver server(key, 5, Direction::kToServer);
  // A bad tag on a datagram far ahead: it must not push the genuine ones out of the window.
  DatagramSender ahead(key, 5, Direction::kToServer);
  for (int i = 0; i < 500; ++i) ASSERT_TRUE(ahead.Seal(0, "x").ok());
  std::string forged = *ahead.Seal(0, "steal");
  forged.back() = static_cast<char>(forged.back() ^ 1);
  EXPECT_FALSE(server.Receive(forged));
  // Another session's key, with this session's number.
  DatagramSender other_key(EndpointKey(3), 5, Direction::kToServer);
  EXPECT_FALSE(server.Receive(*other_key.Seal(0, "other key")));
  // Another session, and the server's own direction (a reflected force).
  DatagramSender other_session(key, 6, Direction::kToServer);
  EXPECT_FALSE(server.Receive(*other_session.Seal(0, "other session")));
  DatagramSender reflected(key, 5, Direction::kToClient);
  EXPECT_FALSE(server.Receive(*reflected.Seal(0, "reflected")));
  EXPECT_FALSE(server.Receive("not a datagram"));
  const std::optional<OpenedDatagram> genuine = server.Receive(*client.Seal(42, "genuine"));
  ASSERT_TRUE(genuine);
  EXPECT_EQ(genuine->payload, "genuine");
  EXPECT_EQ(genuine->timestamp_ns, 42);
  const DatagramCounts& c = server.counts();
  EXPECT_EQ(c.forged, 2u);
  EXPECT_EQ(c.wrong_session, 2u);
  EXPECT_EQ(c.malformed, 1u);
  EXPECT_EQ(c.taken, 1u);
}

TEST(DatagramEndpointTest, ATooLongPayloadUsesNoSequenceNumber) {
  DatagramSender sender(EndpointKey(4), 1, Direction::kToClient);
  EXPECT_FALSE(sender.Seal(0, std::string(kMaxDatagramPayload + 1, 'x')).ok());
  EXPECT_EQ(sender.sent(), 0u);
  DatagramReceiver receiver(EndpointKey(4), 1, Direction::kToClient);
  const std::optional<OpenedDatagram> d = receiver.Receive(*sender.Seal(0, "force"));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->header.sequence, 1u);
}

}  // namespace
}  // namespace ligature::haptics
