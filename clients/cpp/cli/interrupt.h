#pragma once
// Turning Ctrl-C into a cooperative stop request.

#include <signal.h>

#include <stop_token>
#include <thread>

namespace ligature::client::cli {

// While alive, SIGINT and SIGTERM do not terminate the process but request a stop on
// token(); a second signal ends the process at once (exit code 128 + signal).
//
// The signals are blocked in the constructing thread and received by a helper thread with
// sigtimedwait, which avoids doing any work in a signal handler. Threads created later
// inherit the blocked mask, so construct this before anything that starts threads (such
// as a gRPC channel); a thread that already exists and does not block the signals would
// still receive their default action.
class InterruptStopper {
 public:
  InterruptStopper();
  // Stops the helper thread and restores the constructing thread's signal mask; a signal
  // that arrives in between is then delivered normally.
  ~InterruptStopper();

  InterruptStopper(const InterruptStopper&) = delete;
  InterruptStopper& operator=(const InterruptStopper&) = delete;

  std::stop_token token() const { return source_.get_token(); }

 private:
  void WaitForSignals(std::stop_token stop);

  std::stop_source source_;
  sigset_t signals_;
  sigset_t previous_mask_;
  std::jthread waiter_;
};

}  // namespace ligature::client::cli
