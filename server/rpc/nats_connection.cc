#include "server/rpc/nats_connection.h"

#include "absl/strings/str_cat.h"

namespace ligature {

absl::Status ValidateNatsOptions(const std::string& url, const std::string& subject_prefix) {
  if (url.rfind("nats://", 0) != 0 || url.size() <= 7) {
    return absl::InvalidArgumentError("nats_url: must be nats://host:port");
  }
  // Subjects are the prefix's tokens and a world's id, which is one token.
  if (subject_prefix.empty() || subject_prefix.find_first_of(" \t*>") != std::string::npos ||
      subject_prefix.front() == '.' || subject_prefix.back() == '.') {
    return absl::InvalidArgumentError(
        "nats_subject_prefix: must be dot-separated tokens without spaces or wildcards");
  }
  return absl::OkStatus();
}

absl::StatusOr<natsConnection*> ConnectNats(const std::string& url, int reconnect_buffer_bytes) {
  natsOptions* options = nullptr;
  if (natsOptions_Create(&options) != NATS_OK) {
    return absl::InternalError("nats: cannot create the client's options");
  }
  natsStatus status = natsOptions_SetURL(options, url.c_str());
  if (status == NATS_OK) status = natsOptions_SetMaxReconnect(options, -1);
  if (status == NATS_OK) status = natsOptions_SetReconnectWait(options, 500);
  if (status == NATS_OK && reconnect_buffer_bytes > 0) {
    status = natsOptions_SetReconnectBufSize(options, reconnect_buffer_bytes);
  }
  if (status == NATS_OK) {
    status = natsOptions_SetRetryOnFailedConnect(options, true, nullptr, nullptr);
  }
  natsConnection* connection = nullptr;
  if (status == NATS_OK) {
    status = natsConnection_Connect(&connection, options);
    if (status == NATS_NOT_YET_CONNECTED) status = NATS_OK;
  }
  natsOptions_Destroy(options);
  if (status != NATS_OK) {
    return absl::InvalidArgumentError(
        absl::StrCat("nats_url: ", url, ": ", natsStatus_GetText(status)));
  }
  return connection;
}

}  // namespace ligature
