// VerifiedLayout: lets the decoder verify a RecordBatch message's flatbuffer once per layout
// instead of once per block.
//
// The flatbuffers verifier reads a message's structure only: the root offset, each table's
// vtable and offset to it, the fields' offsets, vector lengths, union types and the like. It
// never reads the values that change from block to block in one stream: the batch length, the
// body length, and the field nodes and buffer entries (vectors of structs). So a message that
// has the same size as one the verifier accepted, and the same bytes everywhere except at those
// values, would be accepted too, and costs a few comparisons instead of a verifier pass (about
// 500 instructions, most of a small block's fixed cost).
//
// The learning side proves that the value bytes are disjoint from every byte the verifier
// reads; a crafted message whose vectors overlap its own tables is never learned, so it is
// verified again every time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace sluice::fb {
struct Message;
}

namespace sluice::ipc {

/// Bytes [begin, end) of a message's metadata.
struct ByteRange {
  size_t begin = 0;
  size_t end = 0;

  bool operator==(const ByteRange&) const = default;
};

/// The ranges of [0, size) outside every `masked` range, in order, or nothing when a masked
/// range overlaps a `structural` one or another masked one, or lies outside [0, size).
std::optional<std::vector<ByteRange>> RangesOutside(const std::vector<ByteRange>& structural,
                                                    std::vector<ByteRange> masked, size_t size);

class VerifiedLayout {
 public:
  /// Remembers the layout of `metadata[0..size)`, which the verifier accepted as `message`,
  /// when it is a RecordBatch message without custom metadata whose value bytes share no byte
  /// with its structure; otherwise keeps the layout it had.
  void Learn(const uint8_t* metadata, size_t size, const fb::Message& message);

  /// Whether `metadata[0..size)` has the remembered layout: the same size, and the same bytes
  /// outside the values, so that the verifier would accept it.
  bool Matches(const uint8_t* metadata, size_t size) const;

 private:
  std::vector<uint8_t> bytes_;
  std::vector<uint32_t> compared_words_;  // where the 8-byte words Matches compares start
};

}  // namespace sluice::ipc
