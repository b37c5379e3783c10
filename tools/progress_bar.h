// ProgressBar: one line on stderr showing how far a long operation is, its rate and its ETA.
//
//   write  [##############..........]  58%  5.8M/10M rows  2.1M rows/s  ETA 0:02
//
// It draws only when stderr is a terminal (so piped or redirected runs stay quiet), at most ten
// times a second, and erases itself when finished. SLUICE_PROGRESS=0 turns it off, =1 forces it
// on (for a terminal that isatty does not recognise).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace sluice::cli {

class ProgressBar {
 public:
  /// `label` starts the line; `total` is the amount of work in `unit`s (0 when unknown: the bar
  /// then shows the count and rate only).
  ProgressBar(std::string label, int64_t total, std::string unit);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  /// Returns true when the bar draws (stderr is a terminal).
  bool enabled() const { return enabled_; }
  /// Records that `done` units of work are finished and redraws when it is time.
  void Update(int64_t done);
  /// Changes the label (for work made of named steps).
  void set_label(std::string label) { label_ = std::move(label); }
  /// Changes the total (for work whose size becomes known late).
  void set_total(int64_t total) { total_ = total; }
  /// Erases the line. Called by the destructor too.
  void Finish();

  /// Returns "1.2M", "340k", "17": a count for people.
  static std::string FormatCount(double count);
  /// Returns "1:05:03", "4:07" or "0:02".
  static std::string FormatDuration(double seconds);

 private:
  void Draw();

  std::string label_;
  int64_t total_;
  std::string unit_;
  bool enabled_;
  bool drawn_ = false;
  int64_t done_ = 0;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace sluice::cli
