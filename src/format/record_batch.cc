#include "sluice/format/record_batch.h"

namespace sluice {

RecordBatch RecordBatch::Slice(int64_t start, int64_t count) const {
  std::vector<ArrayData> sliced;
  sliced.reserve(columns_.size());
  for (const auto& column : columns_) sliced.push_back(column.Slice(start, count));
  return RecordBatch(schema_, count, std::move(sliced), owners_);
}

RecordBatch::Storage RecordBatch::TakeStorage(RecordBatch&& batch) {
  Storage storage{std::move(batch.columns_), std::move(batch.owners_)};
  storage.owners.clear();
  // The moved-from vectors are empty already: assigning a new batch would only run their
  // destructors and a temporary's.
  batch.schema_.reset();
  batch.num_rows_ = 0;
  return storage;
}

int64_t RecordBatch::ReferencedBytes() const {
  int64_t total = 0;
  for (const auto& column : columns_) total += sluice::ReferencedBytes(column);
  return total;
}

}  // namespace sluice
