#include "server/host/asset_store.h"

#include <openssl/evp.h>

#include <bit>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "server/host/snapshot_files.h"
#include "server/scene/scene_proto.h"

namespace ligature {
namespace {

constexpr char kAssetPrefix[] = "assets/";
constexpr char kAssetFileSuffix[] = ".asset";
constexpr size_t kMaxDisplayName = 256;

// SHA-256 over bytes fed little-endian, as a lower-case hex string.
class Sha256 {
 public:
  Sha256() : ctx_(EVP_MD_CTX_new(), EVP_MD_CTX_free) {
    EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr);
  }
  void Add(uint64_t v, int bytes) {
    unsigned char out[8];
    for (int i = 0; i < bytes; ++i) out[i] = static_cast<unsigned char>(v >> (8 * i));
    EVP_DigestUpdate(ctx_.get(), out, static_cast<size_t>(bytes));
  }
  std::string Hex() {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int size = 0;
    EVP_DigestFinal_ex(ctx_.get(), digest, &size);
    std::string hex;
    for (unsigned int i = 0; i < size; ++i)
      absl::StrAppend(&hex, absl::Hex(digest[i], absl::kZeroPad2));
    return hex;
  }

 private:
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx_;
};

}  // namespace

std::string AssetNameOf(const TriangleMesh& mesh) {
  Sha256 sha;
  sha.Add(mesh.vertices.size(), 8);
  for (const Vec3& v : mesh.vertices) {
    for (int i = 0; i < 3; ++i) sha.Add(std::bit_cast<uint64_t>(v[i]), 8);
  }
  sha.Add(mesh.triangles.size(), 8);
  for (const auto& t : mesh.triangles) {
    for (const int i : t) sha.Add(static_cast<uint32_t>(i), 4);
  }
  return absl::StrCat(kAssetPrefix, sha.Hex());
}

std::string AssetStore::PathOf(const std::string& name) const {
  const std::string hex(absl::StripPrefix(name, kAssetPrefix));
  return (std::filesystem::path(options_.dir) / (hex + kAssetFileSuffix)).string();
}

void AssetStore::Load(std::vector<std::string>* problems) {
  if (options_.dir.empty()) return;
  std::error_code ec;
  std::filesystem::directory_iterator it(options_.dir, ec);
  if (ec) {
    problems->push_back(absl::StrCat("cannot list ", options_.dir, ": ", ec.message()));
    return;
  }
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (ec) break;
    const std::string path = it->path().string();
    const std::string file = it->path().filename().string();
    if (!absl::EndsWith(file, kAssetFileSuffix) || absl::StartsWith(file, ".")) continue;
    // The file holds the asset as uploaded; it must rebuild to the name it is filed under.
    auto bytes = ReadWholeFile(path);
    v1::Asset stored;
    if (!bytes.ok() || !stored.ParseFromString(*bytes)) {
      problems->push_back(absl::StrCat(path, ": cannot be read as an asset"));
      continue;
    }
    auto mesh = MeshAssetFromProto(stored.mesh(), stored.name(), "mesh");
    if (!mesh.ok()) {
      problems->push_back(absl::StrCat(path, ": ", mesh.status().message()));
      continue;
    }
    if (AssetNameOf(*(*mesh)->mesh) != stored.name() || PathOf(stored.name()) != path) {
      problems->push_back(absl::StrCat(path, ": its contents do not match its name"));
      continue;
    }
    absl::MutexLock lock(&mu_);
    if (assets_.emplace(stored.name(), StoredAsset{*mesh, stored.display_name()}).second) {
      bytes_ += MeshAssetBytes(**mesh);
    }
  }
}

absl::StatusOr<StoredAsset> AssetStore::Upload(const v1::Asset& asset) {
  if (asset.display_name().size() > kMaxDisplayName) {
    return absl::InvalidArgumentError(
        absl::StrCat("asset.display_name: at most ", kMaxDisplayName, " bytes"));
  }
  // Checked and built outside the lock; the name comes from what was built.
  auto mesh = TriangleMeshFromProto(asset.mesh(), "asset.mesh");
  if (!mesh.ok()) return mesh.status();
  StoredAsset out{std::make_shared<const MeshAsset>(MeshAsset{AssetNameOf(**mesh), *mesh}),
                  asset.display_name()};
  const std::string& name = out.mesh->name;
  const uint64_t size = MeshAssetBytes(*out.mesh);

  // Already stored, or too big for what is left.
  {
    absl::MutexLock lock(&mu_);
    auto found = assets_.find(name);
    if (found != assets_.end()) return found->second;
    if (bytes_ + size > options_.max_bytes) {
      return absl::ResourceExhaustedError(
          absl::StrCat("asset.mesh: ", size, " bytes of geometry do not fit: the store holds ",
                       bytes_, " of ", options_.max_bytes));
    }
  }

  // Kept on disk before it is visible, so a stored asset survives a restart.
  if (!options_.dir.empty()) {
    v1::Asset file;
    file.set_name(name);
    file.set_display_name(out.display_name);
    *file.mutable_mesh() = asset.mesh();
    const std::filesystem::path path(PathOf(name));
    auto written =
        WriteFileAtomically(options_.dir, path.filename().string(), file.SerializeAsString());
    if (!written.ok()) return written.status();
  }
  absl::MutexLock lock(&mu_);
  auto [it, inserted] = assets_.emplace(name, out);
  if (inserted) bytes_ += size;
  return it->second;
}

absl::StatusOr<StoredAsset> AssetStore::Get(const std::string& name) const {
  absl::MutexLock lock(&mu_);
  auto found = assets_.find(name);
  if (found == assets_.end()) {
    return absl::NotFoundError(absl::StrCat("no asset \"", name, "\" is stored"));
  }
  return found->second;
}

std::vector<StoredAsset> AssetStore::List() const {
  absl::MutexLock lock(&mu_);
  std::vector<StoredAsset> out;
  out.reserve(assets_.size());
  for (const auto& [name, asset] : assets_) out.push_back(asset);
  return out;
}

absl::Status AssetStore::Delete(const std::string& name) {
  {
    absl::MutexLock lock(&mu_);
    auto found = assets_.find(name);
    if (found == assets_.end()) {
      return absl::NotFoundError(absl::StrCat("no asset \"", name, "\" is stored"));
    }
    bytes_ -= MeshAssetBytes(*found->second.mesh);
    assets_.erase(found);
  }
  if (!options_.dir.empty()) std::remove(PathOf(name).c_str());
  return absl::OkStatus();
}

MeshAssetLookup AssetStore::Lookup() const {
  return [this](const std::string& name) -> std::shared_ptr<const MeshAsset> {
    auto found = Get(name);
    return found.ok() ? found->mesh : nullptr;
  };
}

uint64_t AssetStore::bytes() const {
  absl::MutexLock lock(&mu_);
  return bytes_;
}

}  // namespace ligature
