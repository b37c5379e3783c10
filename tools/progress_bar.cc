#include "progress_bar.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace sluice::cli {

namespace {

// Redraws at most every 100 ms: smooth to the eye, and the cost stays far below the work.
constexpr std::chrono::milliseconds kRedrawInterval{100};
constexpr int kBarWidth = 24;

bool ProgressWanted() {
  const char* setting = std::getenv("SLUICE_PROGRESS");
  if (setting != nullptr && std::strcmp(setting, "0") == 0) return false;
  if (setting != nullptr && std::strcmp(setting, "1") == 0) return true;
  return isatty(STDERR_FILENO) == 1;
}

}  // namespace

ProgressBar::ProgressBar(std::string label, int64_t total, std::string unit)
    : label_(std::move(label)),
      total_(total),
      unit_(std::move(unit)),
      enabled_(ProgressWanted()),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

ProgressBar::~ProgressBar() {
  Finish();
}

std::string ProgressBar::FormatCount(double count) {
  char text[32];
  if (count >= 1e9) {
    std::snprintf(text, sizeof(text), "%.1fG", count / 1e9);
  } else if (count >= 1e6) {
    std::snprintf(text, sizeof(text), "%.1fM", count / 1e6);
  } else if (count >= 1e4) {
    std::snprintf(text, sizeof(text), "%.0fk", count / 1e3);
  } else {
    std::snprintf(text, sizeof(text), "%.0f", count);
  }
  return text;
}

std::string ProgressBar::FormatDuration(double seconds) {
  const int64_t whole = static_cast<int64_t>(std::llround(std::max(seconds, 0.0)));
  char text[32];
  if (whole >= 3600) {
    std::snprintf(text, sizeof(text), "%lld:%02lld:%02lld", static_cast<long long>(whole / 3600),
                  static_cast<long long>(whole / 60 % 60), static_cast<long long>(whole % 60));
  } else {
    std::snprintf(text, sizeof(text), "%lld:%02lld", static_cast<long long>(whole / 60),
                  static_cast<long long>(whole % 60));
  }
  return text;
}

void ProgressBar::Update(int64_t done) {
  done_ = done;
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_draw_ < kRedrawInterval) return;
  last_draw_ = now;
  Draw();
}

void ProgressBar::Draw() {
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double rate = seconds > 0 ? static_cast<double>(done_) / seconds : 0.0;
  std::string line = "\r" + label_ + "  ";
  if (total_ > 0) {
    const double fraction = std::min(1.0, static_cast<double>(done_) / static_cast<double>(total_));
    const int filled = static_cast<int>(fraction * kBarWidth);
    line += "[" + std::string(filled, '#') + std::string(kBarWidth - filled, '.') + "]";
    char percent[16];
    std::snprintf(percent, sizeof(percent), " %3d%%", static_cast<int>(fraction * 100));
    line += percent;
    line += "  " + FormatCount(static_cast<double>(done_)) + "/" +
            FormatCount(static_cast<double>(total_)) + " " + unit_;
  } else {
    line += FormatCount(static_cast<double>(done_)) + " " + unit_;
  }
  line += "  " + FormatCount(rate) + " " + unit_ + "/s";
  if (total_ > 0 && rate > 0 && done_ < total_) {
    line += "  ETA " + FormatDuration(static_cast<double>(total_ - done_) / rate);
  }
  line += "\x1b[K";  // erase what a longer previous line left
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressBar::Finish() {
  if (!drawn_) return;
  std::fputs("\r\x1b[K", stderr);
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace sluice::cli
