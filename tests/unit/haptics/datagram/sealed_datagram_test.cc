#include "server/haptics/datagram/sealed_datagram.h"

#include <gtest/gtest.h>

#include <string>

namespace ligature::haptics {
namespace {

std::string FromHex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

SessionKey DatagramKey(uint8_t first) {
  SessionKey key;
  for (size_t i = 0; i < key.size(); ++i) key[i] = static_cast<uint8_t>(first + i);
  return key;
}

// RFC 8439, section 2.8.2: the AEAD_CHACHA20_POLY1305 test vector.
struct Rfc8439Vector {
  SessionKey key = DatagramKey(0x80);
  AeadNonce nonce = {0x07, 0x00, 0x00, 0x00, 0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47};
  std::string aad = FromHex("50515253c0c1c2c3c4c5c6c7");
  std::string plaintext =
      "Ladies and Gentlemen of the class of '99: If I could offer you only one tip for the "
      "future, sunscreen would be it.";
  std::string sealed = FromHex(
      "d31a8d34648e60db7b86afbc53ef7ec2a4aded51296e08fea9e2b5a736ee62d63dbea45e8ca96712"
      "82fafb69da92728b1a71de0a9e060b2905d6a5b67ecd3b3692ddbd7f2d778b8c9803aee328091b58"
      "fab324e4fad675945585808b4831d7bc3ff4def08e4b7a9de576d26586cec64b6116"
      "1ae10b594f09e26a7e902ecbd0600691");
};

TEST(SealedDatagramTest, CipherMatchesRfc8439Vector) {
  const Rfc8439Vector v;
  const absl::StatusOr<std::string> sealed = AeadSeal(v.key, v.nonce, v.aad, v.plaintext);
  ASSERT_TRUE(sealed.ok()) << sealed.status();
  EXPECT_EQ(*sealed, v.sealed);
  const absl::StatusOr<std::string> opened = AeadOpen(v.key, v.nonce, v.aad, v.sealed);
  ASSERT_TRUE(opened.ok()) << opened.status();
  EXPECT_EQ(*opened, v.plaintext);
}

// A key keeps its cipher contexts from message to message: after other nonces, other
// lengths and a forged message that failed to open, it still seals and opens the RFC's
// vector exactly.
TEST(SealedDatagramTest, AKeyUsedManyTimesStillMatchesRfc8439Vector) {
  const Rfc8439Vector v;
  AeadKey key(v.key);
  for (uint8_t i = 0; i < 20; ++i) {
    AeadNonce nonce{};
    nonce[11] = i;
    const std::string text(i, static_cast<char>('a' + i));
    const absl::StatusOr<std::string> sealed = key.Seal(nonce, "aad", text);
    ASSERT_TRUE(sealed.ok()) << sealed.status();
    std::string forged = *sealed;
    forged.back() = static_cast<char>(forged.back() ^ 1);
    EXPECT_EQ(key.Open(nonce, "aad", forged).status().code(), absl::StatusCode::kUnauthenticated);
    const absl::StatusOr<std::string> opened = key.Open(nonce, "aad", *sealed);
    ASSERT_TRUE(opened.ok()) << opened.status();
    EXPECT_EQ(*opened, text);
  }
  const absl::StatusOr<std::string> sealed = key.Seal(v.nonce, v.aad, v.plaintext);
  ASSERT_TRUE(sealed.ok()) << sealed.status();
  EXPECT_EQ(*sealed, v.sealed);
  const absl::StatusOr<std::string> opened = key.Open(v.nonce, v.aad, v.sealed);
  ASSERT_TRUE(opened.ok()) << opened.status();
  EXPECT_EQ(*opened, v.plaintext);
}

TEST(SealedDatagramTest, RoundTripKeepsHeaderTimestampAndPayload) {
  const SessionKey key = DatagramKey(1);
  const DatagramHeader header{Direction::kToClient, 0xdeadbeef, 0x0102030405060708ull};
  const std::string payload("force\0bytes", 11);
  const absl::StatusOr<std::string> bytes = SealDatagram(key, header, -123456789, payload);
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(bytes->size(), kDatagramOverhead + payload.size());
  // The payload travels sealed: it does not appear in the clear.
  EXPECT_EQ(bytes->find("force"), std::string::npos);
  const absl::StatusOr<OpenedDatagram> opened = OpenDatagram(key, *bytes);
  ASSERT_TRUE(opened.ok()) << opened.status();
  EXPECT_EQ(opened->header.direction, Direction::kToClient);
  EXPECT_EQ(opened->header.session, 0xdeadbeefu);
  EXPECT_EQ(opened->header.sequence, 0x0102030405060708ull);
  EXPECT_EQ(opened->timestamp_ns, -123456789);
  EXPECT_EQ(opened->payload, payload);
}

// Every single-bit change of a datagram, header included, makes it fail to open: as
// malformed where the version or reserved bytes change or the direction becomes unknown,
// and on its tag everywhere else (the direction's low bit turns it into the other
// direction's).
TEST(SealedDatagramTest, EveryChangedBitIsRefused) {
  const SessionKey key = DatagramKey(2);
  const absl::StatusOr<std::string> bytes =
      SealDatagram(key, {Direction::kToServer, 7, 42}, 1000, "pose");
  ASSERT_TRUE(bytes.ok());
  for (size_t bit = 0; bit < 8 * bytes->size(); ++bit) {
    std::string changed = *bytes;
    changed[bit / 8] = static_cast<char>(changed[bit / 8] ^ (1 << (bit % 8)));
    const bool readable = bit >= 32 || bit == 8;
    EXPECT_EQ(OpenDatagram(key, changed).status().code(),
              readable ? absl::StatusCode::kUnauthenticated : absl::StatusCode::kInvalidArgument)
        << "bit " << bit;
  }
}

TEST(SealedDatagramTest, AnotherKeyOrDirectionDoesNotOpen) {
  const absl::StatusOr<std::string> bytes =
      SealDatagram(DatagramKey(3), {Direction::kToServer, 7, 5}, 0, "pose");
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(OpenDatagram(DatagramKey(4), *bytes).status().code(),
            absl::StatusCode::kUnauthenticated);
  // The same bytes sent back the other way (a reflected datagram).
  std::string reflected = *bytes;
  reflected[1] = static_cast<char>(Direction::kToClient);
  EXPECT_EQ(OpenDatagram(DatagramKey(3), reflected).status().code(),
            absl::StatusCode::kUnauthenticated);
}

TEST(SealedDatagramTest, MalformedDatagramsNameWhatIsWrong) {
  const SessionKey key = DatagramKey(5);
  const absl::StatusOr<std::string> bytes = SealDatagram(key, {Direction::kToServer, 1, 1}, 0, "");
  ASSERT_TRUE(bytes.ok());
  // Every shorter prefix.
  for (size_t n = 0; n < bytes->size(); ++n) {
    const absl::Status s = OpenDatagram(key, bytes->substr(0, n)).status();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << n;
    EXPECT_NE(s.message().find("datagram"), std::string::npos) << s;
  }
  std::string version = *bytes;
  version[0] = 9;
  EXPECT_NE(ReadDatagramHeader(version).status().message().find("datagram.version"),
            std::string::npos);
  std::string direction = *bytes;
  direction[1] = 2;
  EXPECT_NE(ReadDatagramHeader(direction).status().message().find("datagram.direction"),
            std::string::npos);
  std::string zero = *bytes;
  zero[8] = 0;
  EXPECT_NE(ReadDatagramHeader(zero).status().message().find("datagram.sequence"),
            std::string::npos);
  // Too long a payload is refused when sealing, naming it.
  const absl::Status long_payload =
      SealDatagram(key, {Direction::kToServer, 1, 2}, 0, std::string(kMaxDatagramPayload + 1, 'x'))
          .status();
  EXPECT_EQ(long_payload.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(long_payload.message().find("payload"), std::string::npos);
  EXPECT_TRUE(
      SealDatagram(key, {Direction::kToServer, 1, 3}, 0, std::string(kMaxDatagramPayload, 'x'))
          .ok());
}

// Two datagrams with the same payload under one key differ throughout their sealed part: the
// sequence number makes each nonce new.
TEST(SealedDatagramTest, EachSequenceNumberSealsAnew) {
  const SessionKey key = DatagramKey(6);
  const absl::StatusOr<std::string> a = SealDatagram(key, {Direction::kToServer, 1, 1}, 0, "same");
  const absl::StatusOr<std::string> b = SealDatagram(key, {Direction::kToServer, 1, 2}, 0, "same");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(a->substr(kDatagramHeaderBytes), b->substr(kDatagramHeaderBytes));
}

TEST(SealedDatagramTest, NewKeysDiffer) {
  const absl::StatusOr<SessionKey> a = NewSessionKey(), b = NewSessionKey();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(*a, *b);
}

}  // namespace
}  // namespace ligature::haptics
