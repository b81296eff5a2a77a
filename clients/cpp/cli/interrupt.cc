#include "clients/cpp/cli/interrupt.h"

#include <pthread.h>

#include <cstdlib>

namespace ligature::client::cli {

InterruptStopper::InterruptStopper() {
  sigemptyset(&signals_);
  sigaddset(&signals_, SIGINT);
  sigaddset(&signals_, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals_, &previous_mask_);
  // Started after blocking, so the helper inherits the mask and only takes the signals
  // through sigtimedwait.
  waiter_ = std::jthread([this](std::stop_token stop) { WaitForSignals(stop); });
}

InterruptStopper::~InterruptStopper() {
  waiter_.request_stop();
  waiter_.join();
  pthread_sigmask(SIG_SETMASK, &previous_mask_, nullptr);
}

// Polls with a short timeout so that the destructor can end the thread without sending it
// a signal of its own.
void InterruptStopper::WaitForSignals(std::stop_token stop) {
  const timespec poll = {.tv_sec = 0, .tv_nsec = 100'000'000};
  while (!stop.stop_requested()) {
    const int signal = sigtimedwait(&signals_, nullptr, &poll);
    if (signal <= 0) continue;  // timeout or EINTR
    if (source_.stop_requested()) std::_Exit(128 + signal);
    source_.request_stop();
  }
}

}  // namespace ligature::client::cli
