#include "rss_sampler.h"

#include <unistd.h>

#include <cstdio>

namespace sluice::cli {

RssSampler::RssSampler(std::chrono::milliseconds interval)
    : interval_(interval), start_(std::chrono::steady_clock::now()) {
  samples_.push_back({0.0, CurrentRss()});
  thread_ = std::thread([this] { Run(); });
}

RssSampler::~RssSampler() {
  Stop();
}

void RssSampler::Stop() {
  if (!thread_.joinable()) return;
  stop_.store(true);
  thread_.join();
  samples_.push_back(
      {std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(),
       CurrentRss()});
}

void RssSampler::Run() {
  while (!stop_.load()) {
    std::this_thread::sleep_for(interval_);
    samples_.push_back(
        {std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(),
         CurrentRss()});
  }
}

int64_t RssSampler::CurrentRss() {
  std::FILE* file = std::fopen("/proc/self/statm", "r");
  if (file == nullptr) return 0;
  long long total_pages = 0;
  long long resident_pages = 0;
  const int read = std::fscanf(file, "%lld %lld", &total_pages, &resident_pages);
  std::fclose(file);
  if (read != 2) return 0;
  return static_cast<int64_t>(resident_pages) * ::sysconf(_SC_PAGESIZE);
}

}  // namespace sluice::cli
