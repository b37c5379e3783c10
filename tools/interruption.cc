#include "interruption.h"

#include <signal.h>

#include <atomic>
#include <csignal>
#include <cstring>
#include <string>

namespace sluice::cli {

namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

volatile std::sig_atomic_t received_signal = 0;

void RecordSignal(int signal_number) {
  if (received_signal != 0) {
    // The second one: the default action, now.
    ::signal(signal_number, SIG_DFL);
    ::raise(signal_number);
    return;
  }
  received_signal = signal_number;
}

}  // namespace

void InstallInterruptionHandlers() {
  static std::atomic<bool> installed{false};
  if (installed.exchange(true)) return;
  struct sigaction action;
  std::memset(&action, 0, sizeof(action));
  action.sa_handler = RecordSignal;
  sigemptyset(&action.sa_mask);
  // No SA_RESTART: a blocking read of standard input returns EINTR, so it can stop.
  action.sa_flags = 0;
  for (int signal_number : kSignals) ::sigaction(signal_number, &action, nullptr);
}

int InterruptingSignal() {
  return received_signal;
}

Status CheckInterrupted() {
  const int signal_number = received_signal;
  if (signal_number == 0) return Status::OK();
  return Status::Cancelled("interrupted by ",
                           sigabbrev_np(signal_number) != nullptr
                               ? std::string("SIG") + sigabbrev_np(signal_number)
                               : "signal " + std::to_string(signal_number),
                           "; nothing was committed");
}

int ExitCodeFor(const Status& status, int otherwise) {
  if (status.code() == StatusCode::kCancelled && received_signal != 0) return 128 + received_signal;
  return otherwise;
}

}  // namespace sluice::cli
