// MemoryBudget: the only way the engine takes memory for buffered data.
//
// A map task buffers input (held by reference) until it has to write; the budget decides when.
// When a reservation fails, the writer spills what it holds and tries again. The host chooses
// the budget: a fixed number of bytes (FixedMemoryBudget), or its own accounting (a JVM task's
// TaskMemoryManager) behind HostMemoryBudget's callbacks. Scratch that does not grow with the
// data (codec contexts, encode buffers) is outside the budget and documented where it lives.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>

namespace sluice {

class MemoryBudget {
 public:
  virtual ~MemoryBudget() = default;

  /// Reserves `bytes` and returns true, or returns false and reserves nothing.
  virtual bool TryReserve(int64_t bytes) = 0;
  /// Reserves `bytes` even beyond the limit (for the one input batch a writer must hold after
  /// spilling everything else); the excess shows in peak().
  virtual void ForceReserve(int64_t bytes) = 0;
  /// Returns `bytes` previously reserved.
  virtual void Release(int64_t bytes) = 0;

  /// Returns the bytes reserved now, and the most ever reserved at once.
  virtual int64_t reserved() const = 0;
  virtual int64_t peak() const = 0;
};

/// A budget of a fixed number of bytes, shareable by several writers (thread-safe).
class FixedMemoryBudget final : public MemoryBudget {
 public:
  /// A budget of `limit` bytes; a negative limit means unlimited.
  explicit FixedMemoryBudget(int64_t limit) : limit_(limit) {}

  bool TryReserve(int64_t bytes) override;
  void ForceReserve(int64_t bytes) override;
  void Release(int64_t bytes) override;
  int64_t reserved() const override { return reserved_.load(std::memory_order_relaxed); }
  int64_t peak() const override { return peak_.load(std::memory_order_relaxed); }
  int64_t limit() const { return limit_; }

 private:
  void NotePeak(int64_t now);

  const int64_t limit_;
  std::atomic<int64_t> reserved_{0};
  std::atomic<int64_t> peak_{0};
};

/// A budget kept by the host. `acquire(bytes)` returns how many bytes the host granted (Spark's
/// TaskMemoryManager may grant less, after asking other consumers to spill); a partial grant is
/// handed back with `release` and the reservation fails. `release(bytes)` returns memory.
class HostMemoryBudget final : public MemoryBudget {
 public:
  HostMemoryBudget(std::function<int64_t(int64_t)> acquire, std::function<void(int64_t)> release)
      : acquire_(std::move(acquire)), release_(std::move(release)) {}

  bool TryReserve(int64_t bytes) override;
  void ForceReserve(int64_t bytes) override;
  void Release(int64_t bytes) override;
  int64_t reserved() const override { return reserved_; }
  int64_t peak() const override { return peak_; }

 private:
  std::function<int64_t(int64_t)> acquire_;
  std::function<void(int64_t)> release_;
  int64_t reserved_ = 0;
  int64_t peak_ = 0;
  int64_t forced_ = 0;  // reserved beyond what the host granted
};

}  // namespace sluice
