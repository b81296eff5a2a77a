#pragma once
// The sealed datagrams of the haptic UDP channel: each carries one pose (client to server)
// or one force (server to client) as opaque bytes, authenticated and encrypted with
// ChaCha20-Poly1305 (RFC 8439) under the session's key.
//
// Layout (integers little-endian):
//    0  version (1)                      in the clear, authenticated
//    1  direction (1): 0 to the server, 1 to the client
//    2  reserved (2), zero
//    4  session (4)
//    8  sequence (8), per direction, from 1 up
//   16  sealed: the sender's timestamp (8, ns), then the payload
//  end  tag (16)
// The nonce is the direction (4 bytes) and the sequence (8): unique under one key while each
// sender counts its sequence up, so a session must never seal two datagrams of one direction
// with one sequence number. The clear header is the associated data, so a datagram whose
// header was changed (or sent back the other way) does not open.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace ligature::haptics {

inline constexpr size_t kSessionKeyBytes = 32;
using SessionKey = std::array<uint8_t, kSessionKeyBytes>;

inline constexpr uint8_t kDatagramVersion = 1;
inline constexpr size_t kDatagramHeaderBytes = 16;
inline constexpr size_t kDatagramTagBytes = 16;
// Header, timestamp and tag around the payload.
inline constexpr size_t kDatagramOverhead = kDatagramHeaderBytes + 8 + kDatagramTagBytes;
// A payload fits one datagram of IPv6's minimum MTU with room for the UDP and IP headers.
inline constexpr size_t kMaxDatagramPayload = 1232 - kDatagramOverhead;

enum class Direction : uint8_t { kToServer = 0, kToClient = 1 };

struct DatagramHeader {
  Direction direction = Direction::kToServer;
  uint32_t session = 0;
  uint64_t sequence = 0;
};

struct OpenedDatagram {
  DatagramHeader header;
  int64_t timestamp_ns = 0;  // the sender's clock when it sealed the datagram
  std::string payload;
};

// A fresh random key from the system's generator (OpenSSL's RAND_bytes).
absl::StatusOr<SessionKey> NewSessionKey();

// ChaCha20-Poly1305 (RFC 8439, section 2.8) with a 12-byte nonce: the ciphertext followed by
// the 16-byte tag.
absl::StatusOr<std::string> AeadSeal(const SessionKey& key, const std::array<uint8_t, 12>& nonce,
                                     std::string_view aad, std::string_view plaintext);
// The plaintext of ciphertext-and-tag `sealed`; UNAUTHENTICATED when the tag does not verify
// (a changed byte, other associated data, another key or nonce).
absl::StatusOr<std::string> AeadOpen(const SessionKey& key, const std::array<uint8_t, 12>& nonce,
                                     std::string_view aad, std::string_view sealed);

// A datagram of `header` carrying the timestamp and payload (at most kMaxDatagramPayload
// bytes; INVALID_ARGUMENT naming `payload` beyond it).
absl::StatusOr<std::string> SealDatagram(const SessionKey& key, const DatagramHeader& header,
                                         int64_t timestamp_ns, std::string_view payload);
// The clear header alone, to find the session's key: INVALID_ARGUMENT naming what is wrong
// for a datagram too short or too long, of another version, with an unknown direction or
// non-zero reserved bytes, or with sequence 0.
absl::StatusOr<DatagramHeader> ReadDatagramHeader(std::string_view bytes);
// The header, timestamp and payload of an authentic datagram: INVALID_ARGUMENT as
// ReadDatagramHeader, UNAUTHENTICATED when its tag does not verify under `key`.
absl::StatusOr<OpenedDatagram> OpenDatagram(const SessionKey& key, std::string_view bytes);

}  // namespace ligature::haptics
