#include "server/haptics/datagram/sealed_datagram.h"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <memory>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace ligature::haptics {
namespace {

struct CipherContextDeleter {
  void operator()(EVP_CIPHER_CTX* ctx) const { EVP_CIPHER_CTX_free(ctx); }
};
using CipherContext = std::unique_ptr<EVP_CIPHER_CTX, CipherContextDeleter>;

const unsigned char* Bytes(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

void PutLittleEndian(uint64_t v, int bytes, std::string* out) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t GetLittleEndian(std::string_view s, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t{static_cast<uint8_t>(s[at + i])} << (8 * i);
  return v;
}

// The nonce of a datagram: its direction and sequence number.
AeadNonce Nonce(const DatagramHeader& h) {
  AeadNonce nonce{};
  nonce[0] = static_cast<uint8_t>(h.direction);
  for (int i = 0; i < 8; ++i) nonce[4 + i] = static_cast<uint8_t>((h.sequence >> (8 * i)) & 0xff);
  return nonce;
}

absl::Status CryptoError(const char* what) {
  return absl::InternalError(absl::StrCat("the AEAD cipher failed: ", what));
}

}  // namespace

absl::StatusOr<SessionKey> NewSessionKey() {
  SessionKey key;
  if (RAND_bytes(key.data(), static_cast<int>(key.size())) != 1) {
    return absl::InternalError("the system's random generator failed");
  }
  return key;
}

// The cipher and key go into each context once, on its first use; later messages set the
// nonce alone.
struct AeadKey::Contexts {
  std::array<CipherContext, 2> by_use;  // kOpen, kSeal
};

AeadKey::AeadKey(const SessionKey& key) : key_(key) {}
AeadKey::~AeadKey() = default;
AeadKey::AeadKey(AeadKey&&) noexcept = default;
AeadKey& AeadKey::operator=(AeadKey&&) noexcept = default;

EVP_CIPHER_CTX* AeadKey::Context(Use use) {
  if (!contexts_) contexts_ = std::make_unique<Contexts>();
  CipherContext& ctx = contexts_->by_use[use];
  if (!ctx) {
    ctx.reset(EVP_CIPHER_CTX_new());
    if (ctx && EVP_CipherInit_ex2(ctx.get(), EVP_chacha20_poly1305(), key_.data(), nullptr,
                                  use == kSeal ? 1 : 0, nullptr) != 1) {
      ctx.reset();
    }
  }
  return ctx.get();
}

absl::StatusOr<std::string> AeadKey::Seal(const AeadNonce& nonce, std::string_view aad,
                                          std::string_view plaintext) {
  EVP_CIPHER_CTX* ctx = Context(kSeal);
  if (ctx == nullptr) return CryptoError("seal set-up");
  std::string out(plaintext.size() + kDatagramTagBytes, '\0');
  auto* data = reinterpret_cast<unsigned char*>(out.data());
  int len = 0;
  if (EVP_EncryptInit_ex2(ctx, nullptr, nullptr, nonce.data(), nullptr) != 1 ||
      EVP_EncryptUpdate(ctx, nullptr, &len, Bytes(aad), static_cast<int>(aad.size())) != 1 ||
      EVP_EncryptUpdate(ctx, data, &len, Bytes(plaintext), static_cast<int>(plaintext.size())) !=
          1 ||
      EVP_EncryptFinal_ex(ctx, data + len, &len) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, kDatagramTagBytes, data + plaintext.size()) !=
          1) {
    return CryptoError("seal");
  }
  return out;
}

absl::StatusOr<std::string> AeadKey::Open(const AeadNonce& nonce, std::string_view aad,
                                          std::string_view sealed) {
  if (sealed.size() < kDatagramTagBytes) return absl::InvalidArgumentError("sealed: too short");
  EVP_CIPHER_CTX* ctx = Context(kOpen);
  if (ctx == nullptr) return CryptoError("open set-up");
  const size_t size = sealed.size() - kDatagramTagBytes;
  std::string out(size, '\0');
  auto* data = reinterpret_cast<unsigned char*>(out.data());
  // The tag is handed over as a copy: the control call takes a non-const pointer.
  std::array<unsigned char, kDatagramTagBytes> tag;
  std::copy(sealed.end() - kDatagramTagBytes, sealed.end(), tag.begin());
  int len = 0;
  if (EVP_DecryptInit_ex2(ctx, nullptr, nullptr, nonce.data(), nullptr) != 1 ||
      EVP_DecryptUpdate(ctx, nullptr, &len, Bytes(aad), static_cast<int>(aad.size())) != 1 ||
      EVP_DecryptUpdate(ctx, data, &len, Bytes(sealed), static_cast<int>(size)) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, kDatagramTagBytes, tag.data()) != 1) {
    return CryptoError("open");
  }
  if (EVP_DecryptFinal_ex(ctx, data + len, &len) != 1) {
    return absl::UnauthenticatedError("datagram: its tag does not verify");
  }
  return out;
}

absl::StatusOr<std::string> AeadSeal(const SessionKey& key, const AeadNonce& nonce,
                                     std::string_view aad, std::string_view plaintext) {
  return AeadKey(key).Seal(nonce, aad, plaintext);
}

absl::StatusOr<std::string> AeadOpen(const SessionKey& key, const AeadNonce& nonce,
                                     std::string_view aad, std::string_view sealed) {
  return AeadKey(key).Open(nonce, aad, sealed);
}

absl::StatusOr<std::string> SealDatagram(AeadKey& key, const DatagramHeader& header,
                                         int64_t timestamp_ns, std::string_view payload) {
  if (payload.size() > kMaxDatagramPayload) {
    return absl::InvalidArgumentError(
        absl::StrCat("payload: ", payload.size(), " bytes, more than ", kMaxDatagramPayload));
  }
  std::string out;
  out.reserve(kDatagramOverhead + payload.size());
  out.push_back(static_cast<char>(kDatagramVersion));
  out.push_back(static_cast<char>(header.direction));
  PutLittleEndian(0, 2, &out);
  PutLittleEndian(header.session, 4, &out);
  PutLittleEndian(header.sequence, 8, &out);
  std::string plaintext;
  plaintext.reserve(8 + payload.size());
  PutLittleEndian(static_cast<uint64_t>(timestamp_ns), 8, &plaintext);
  plaintext.append(payload);
  absl::StatusOr<std::string> sealed = key.Seal(Nonce(header), out, plaintext);
  if (!sealed.ok()) return sealed.status();
  out.append(*sealed);
  return out;
}

absl::StatusOr<DatagramHeader> ReadDatagramHeader(std::string_view bytes) {
  if (bytes.size() < kDatagramOverhead) {
    return absl::InvalidArgumentError(
        absl::StrCat("datagram: ", bytes.size(), " bytes, fewer than ", kDatagramOverhead));
  }
  if (bytes.size() > kDatagramOverhead + kMaxDatagramPayload) {
    return absl::InvalidArgumentError(absl::StrCat("datagram: ", bytes.size(), " bytes, more than ",
                                                   kDatagramOverhead + kMaxDatagramPayload));
  }
  if (static_cast<uint8_t>(bytes[0]) != kDatagramVersion) {
    return absl::InvalidArgumentError(absl::StrCat(
        "datagram.version: ", static_cast<uint8_t>(bytes[0]), ", not ", kDatagramVersion));
  }
  const uint8_t direction = static_cast<uint8_t>(bytes[1]);
  if (direction > static_cast<uint8_t>(Direction::kToClient)) {
    return absl::InvalidArgumentError(absl::StrCat("datagram.direction: unknown ", direction));
  }
  if (GetLittleEndian(bytes, 2, 2) != 0) {
    return absl::InvalidArgumentError("datagram.reserved: not zero");
  }
  DatagramHeader h;
  h.direction = static_cast<Direction>(direction);
  h.session = static_cast<uint32_t>(GetLittleEndian(bytes, 4, 4));
  h.sequence = GetLittleEndian(bytes, 8, 8);
  if (h.sequence == 0) return absl::InvalidArgumentError("datagram.sequence: 0 is never sent");
  return h;
}

absl::StatusOr<std::string> SealDatagram(const SessionKey& key, const DatagramHeader& header,
                                         int64_t timestamp_ns, std::string_view payload) {
  AeadKey keyed(key);
  return SealDatagram(keyed, header, timestamp_ns, payload);
}

absl::StatusOr<OpenedDatagram> OpenDatagram(AeadKey& key, std::string_view bytes) {
  absl::StatusOr<DatagramHeader> header = ReadDatagramHeader(bytes);
  if (!header.ok()) return header.status();
  absl::StatusOr<std::string> plaintext = key.Open(
      Nonce(*header), bytes.substr(0, kDatagramHeaderBytes), bytes.substr(kDatagramHeaderBytes));
  if (!plaintext.ok()) return plaintext.status();
  OpenedDatagram out;
  out.header = *header;
  out.timestamp_ns = static_cast<int64_t>(GetLittleEndian(*plaintext, 0, 8));
  out.payload = plaintext->substr(8);
  return out;
}

absl::StatusOr<OpenedDatagram> OpenDatagram(const SessionKey& key, std::string_view bytes) {
  AeadKey keyed(key);
  return OpenDatagram(keyed, bytes);
}

}  // namespace ligature::haptics
