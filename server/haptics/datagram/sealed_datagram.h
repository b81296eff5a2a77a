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
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

struct evp_cipher_ctx_st;  // OpenSSL's EVP_CIPHER_CTX

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

using AeadNonce = std::array<uint8_t, 12>;

// ChaCha20-Poly1305 (RFC 8439, section 2.8) under one key, set up once in OpenSSL's cipher
// contexts: each message then only sets its nonce. That spares the cipher's lookup and key
// set-up per datagram, which costs several microseconds at a device's rate (caches are cold
// after a millisecond's sleep). Not thread-safe: each end of a channel holds its own.
class AeadKey {
 public:
  explicit AeadKey(const SessionKey& key);
  ~AeadKey();
  AeadKey(AeadKey&&) noexcept;
  AeadKey& operator=(AeadKey&&) noexcept;

  // The ciphertext followed by the 16-byte tag.
  absl::StatusOr<std::string> Seal(const AeadNonce& nonce, std::string_view aad,
                                   std::string_view plaintext);
  // The plaintext of ciphertext-and-tag `sealed`; UNAUTHENTICATED when the tag does not
  // verify (a changed byte, other associated data, another key or nonce).
  absl::StatusOr<std::string> Open(const AeadNonce& nonce, std::string_view aad,
                                   std::string_view sealed);

 private:
  struct Contexts;
  enum Use { kOpen = 0, kSeal = 1 };
  // The keyed context for `use`, made on first use; null when OpenSSL fails.
  evp_cipher_ctx_st* Context(Use use);

  SessionKey key_;
  std::unique_ptr<Contexts> contexts_;  // made on first use
};

// One-off forms of AeadKey's Seal and Open.
absl::StatusOr<std::string> AeadSeal(const SessionKey& key, const AeadNonce& nonce,
                                     std::string_view aad, std::string_view plaintext);
absl::StatusOr<std::string> AeadOpen(const SessionKey& key, const AeadNonce& nonce,
                                     std::string_view aad, std::string_view sealed);

// A datagram of `header` carrying the timestamp and payload (at most kMaxDatagramPayload
// bytes; INVALID_ARGUMENT naming `payload` beyond it).
absl::StatusOr<std::string> SealDatagram(AeadKey& key, const DatagramHeader& header,
                                         int64_t timestamp_ns, std::string_view payload);
absl::StatusOr<std::string> SealDatagram(const SessionKey& key, const DatagramHeader& header,
                                         int64_t timestamp_ns, std::string_view payload);
// The clear header alone, to find the session's key: INVALID_ARGUMENT naming what is wrong
// for a datagram too short or too long, of another version, with an unknown direction or
// non-zero reserved bytes, or with sequence 0.
absl::StatusOr<DatagramHeader> ReadDatagramHeader(std::string_view bytes);
// The header, timestamp and payload of an authentic datagram: INVALID_ARGUMENT as
// ReadDatagramHeader, UNAUTHENTICATED when its tag does not verify under `key`.
absl::StatusOr<OpenedDatagram> OpenDatagram(AeadKey& key, std::string_view bytes);
absl::StatusOr<OpenedDatagram> OpenDatagram(const SessionKey& key, std::string_view bytes);

}  // namespace ligature::haptics
