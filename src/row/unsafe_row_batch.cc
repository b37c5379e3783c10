#include "sluice/row/unsafe_row_batch.h"

#include "sluice/base/bit_ops.h"

namespace sluice {

void UnsafeRowBatch::RowPointers(std::vector<const uint8_t*>* rows) const {
  rows->resize(offsets.size());
  for (size_t i = 0; i < offsets.size(); ++i) (*rows)[i] = bytes.data() + offsets[i];
}

void UnsafeRowBatch::Clear() {
  bytes.Clear();
  offsets.clear();
  sizes.clear();
}

Status SplitFramedRows(const uint8_t* data, int64_t size, std::vector<const uint8_t*>* rows,
                       std::vector<int32_t>* sizes) {
  constexpr int64_t kPrefixBytes = 4;
  int64_t position = 0;
  while (position < size) {
    if (size - position < kPrefixBytes) {
      return Status::Corrupt("UnsafeRow stream, byte offset ", position, ": expected a 4-byte ",
                             "row size, found ", size - position, " bytes before the end");
    }
    const auto row_size =
        static_cast<int32_t>(bits::FromBigEndian32(bits::LoadUnaligned<uint32_t>(data + position)));
    if (row_size < 0 || row_size > size - position - kPrefixBytes) {
      return Status::Corrupt("UnsafeRow stream, byte offset ", position, ": row size ", row_size,
                             " does not fit in the ", size - position - kPrefixBytes,
                             " bytes that follow");
    }
    rows->push_back(data + position + kPrefixBytes);
    sizes->push_back(row_size);
    position += kPrefixBytes + row_size;
  }
  return Status::OK();
}

}  // namespace sluice
