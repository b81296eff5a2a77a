#pragma once
// Where a watch hub takes a world's frames from: the world's own host in ligatured, or, in a
// viewer gateway, the frames another server publishes.

#include <cstdint>
#include <memory>
#include <optional>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "server/host/world_host.h"
#include "server/rpc/published_frame.h"

namespace ligature {

class FrameSource {
 public:
  virtual ~FrameSource() = default;
  // Waits up to `timeout` for a publication whose version is not `seen`, then returns the
  // newest (null before the first). Once the source has ended, sets `ended` to the status
  // its streams end with.
  virtual std::shared_ptr<const PublishedFrame> WaitForFrame(
      uint64_t seen, absl::Duration timeout, std::optional<absl::Status>* ended) = 0;
};

// A world host's publications. Called by one hub thread at a time.
class HostFrameSource final : public FrameSource {
 public:
  explicit HostFrameSource(std::shared_ptr<WorldHost> host) : host_(std::move(host)) {}
  std::shared_ptr<const PublishedFrame> WaitForFrame(uint64_t seen, absl::Duration timeout,
                                                     std::optional<absl::Status>* ended) override;

 private:
  const std::shared_ptr<WorldHost> host_;
  std::shared_ptr<const PublishedFrame> current_;  // the last publication returned
};

}  // namespace ligature
