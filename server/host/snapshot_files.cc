// Snapshot files: atomic writes, listing, and loading the newest valid one per world.

#include "server/host/snapshot_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "server/host/world_manager.h"
#include "server/snapshot/world_snapshot.h"

namespace ligature {
namespace {

constexpr char kSuffix[] = ".snap";

absl::Status Errno(const std::string& what, const std::string& path) {
  return absl::InternalError(absl::StrCat(what, " ", path, ": ", std::strerror(errno)));
}

std::string FileName(const std::string& world_id, uint64_t tick) {
  return absl::StrFormat("%s.%020u%s", world_id, tick, kSuffix);
}

// Writes all of `bytes` to a new file at `path` and fsyncs it.
absl::Status WriteAndSync(const std::string& path, std::string_view bytes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Errno("cannot create", path);
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      absl::Status s = Errno("cannot write", path);
      ::close(fd);
      return s;
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    absl::Status s = Errno("cannot fsync", path);
    ::close(fd);
    return s;
  }
  if (::close(fd) != 0) return Errno("cannot close", path);
  return absl::OkStatus();
}

absl::Status SyncDirectory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Errno("cannot open directory", dir);
  const int r = ::fsync(fd);
  ::close(fd);
  if (r != 0) return Errno("cannot fsync directory", dir);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<SnapshotFile>> ListSnapshotFiles(const std::string& dir) {
  static const std::regex kName("([a-z0-9][a-z0-9_-]{0,62})\\.([0-9]{20})\\.snap");
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec);
  if (ec) return absl::NotFoundError(absl::StrCat("cannot list ", dir, ": ", ec.message()));
  std::vector<SnapshotFile> files;
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (ec) break;
    const std::string name = it->path().filename().string();
    std::smatch m;
    if (!std::regex_match(name, m, kName)) continue;
    SnapshotFile f;
    f.world_id = m[1].str();
    if (!absl::SimpleAtoi(m[2].str(), &f.tick)) continue;
    f.path = it->path().string();
    files.push_back(std::move(f));
  }
  std::sort(files.begin(), files.end(), [](const SnapshotFile& a, const SnapshotFile& b) {
    return a.world_id != b.world_id ? a.world_id < b.world_id : a.tick > b.tick;
  });
  return files;
}

absl::StatusOr<std::string> WriteFileAtomically(const std::string& dir,
                                                const std::string& name,
                                                std::string_view bytes) {
  const std::string final_path = (std::filesystem::path(dir) / name).string();
  // A dot name never matches a final name, so a torn temporary file is never loaded.
  const std::string temp_path = (std::filesystem::path(dir) / ("." + name + ".tmp")).string();
  if (absl::Status s = WriteAndSync(temp_path, bytes); !s.ok()) {
    ::unlink(temp_path.c_str());
    return s;
  }
  if (::rename(temp_path.c_str(), final_path.c_str()) != 0) {
    absl::Status s = Errno("cannot rename to", final_path);
    ::unlink(temp_path.c_str());
    return s;
  }
  if (absl::Status s = SyncDirectory(dir); !s.ok()) return s;
  return final_path;
}

absl::StatusOr<std::string> WriteSnapshotFile(const std::string& dir,
                                              const std::string& world_id, uint64_t tick,
                                              std::string_view bytes, int keep) {
  auto final_path = WriteFileAtomically(dir, FileName(world_id, tick), bytes);
  if (!final_path.ok()) return final_path.status();
  // Older files of this world beyond the newest `keep`.
  absl::StatusOr<std::vector<SnapshotFile>> files = ListSnapshotFiles(dir);
  if (!files.ok()) return files.status();
  int kept = 0;
  for (const SnapshotFile& f : *files) {
    if (f.world_id != world_id) continue;
    if (++kept > std::max(keep, 1)) ::unlink(f.path.c_str());
  }
  return final_path;
}

absl::Status RemoveSnapshotFiles(const std::string& dir, const std::string& world_id) {
  absl::StatusOr<std::vector<SnapshotFile>> files = ListSnapshotFiles(dir);
  if (!files.ok()) return files.status();
  for (const SnapshotFile& f : *files) {
    if (f.world_id == world_id) ::unlink(f.path.c_str());
  }
  return SyncDirectory(dir);
}

int RemoveTemporaryFiles(const std::string& dir) {
  static const std::regex kTemporary("\\.[a-z0-9][a-z0-9_-]{0,62}\\.[0-9]{20}\\.snap\\.tmp");
  std::error_code ec;
  int removed = 0;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (std::regex_match(it->path().filename().string(), kTemporary) &&
        ::unlink(it->path().c_str()) == 0) {
      ++removed;
    }
  }
  return removed;
}

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open ", path));
  std::ostringstream out;
  out << in.rdbuf();
  if (in.bad()) return absl::InternalError(absl::StrCat("cannot read ", path));
  return out.str();
}

std::vector<LoadedWorld> LoadNewestSnapshots(const std::string& dir, const WorldLimits& limits,
                                             std::vector<std::string>* problems) {
  std::vector<LoadedWorld> loaded;
  absl::StatusOr<std::vector<SnapshotFile>> files = ListSnapshotFiles(dir);
  if (!files.ok()) {
    problems->push_back(std::string(files.status().message()));
    return loaded;
  }
  // Files are newest first within a world: the first that loads wins.
  for (const SnapshotFile& f : *files) {
    if (!loaded.empty() && loaded.back().world_id == f.world_id) continue;
    absl::StatusOr<std::string> bytes = ReadWholeFile(f.path);
    absl::StatusOr<std::unique_ptr<World>> world =
        bytes.ok() ? WorldFromSnapshotBytes(*bytes, WorldName(f.world_id), limits)
                   : absl::StatusOr<std::unique_ptr<World>>(bytes.status());
    if (!world.ok()) {
      problems->push_back(absl::StrCat(f.path, ": skipped: ", world.status().message()));
      continue;
    }
    loaded.push_back({f.world_id, std::move(*world), f.path});
  }
  return loaded;
}

}  // namespace ligature
