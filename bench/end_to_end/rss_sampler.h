// RssSampler: the process's resident memory sampled over time by a background thread, for the
// benchmark report's memory-over-time figure.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <utility>
#include <vector>

namespace sluice::cli {

class RssSampler {
 public:
  struct Sample {
    double seconds = 0;     // since Start()
    int64_t rss_bytes = 0;  // resident set size
  };

  /// Starts sampling every `interval`.
  explicit RssSampler(std::chrono::milliseconds interval);
  /// Stops sampling (also done by the destructor).
  ~RssSampler();
  void Stop();

  /// Returns the samples; call after Stop().
  const std::vector<Sample>& samples() const { return samples_; }

  /// Returns the resident set size now, from /proc/self/statm (0 when unreadable).
  static int64_t CurrentRss();

 private:
  void Run();

  std::chrono::milliseconds interval_;
  std::chrono::steady_clock::time_point start_;
  std::atomic<bool> stop_{false};
  std::vector<Sample> samples_;
  std::thread thread_;
};

}  // namespace sluice::cli
