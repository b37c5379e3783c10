// Fuzzes the decompressors with untrusted bytes, through contexts reused across inputs as a
// reader reuses them, and checks that whatever they accept survives a round trip.
//
// Input layout: byte 0 picks the codec (value % 2: lz4 frame, zstd) and the mode
// ((value / 2) % 2: 0 decompresses the payload, 1 compresses it and decompresses the result);
// bytes 1..4 are the expected decompressed size (little-endian, modulo 1 MiB + 1, which keeps
// each run fast while covering multi-block frames); the rest is the payload.
#include <lz4frame.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "sluice/base/check.h"
#include "sluice/codec/compression.h"

namespace {

constexpr size_t kHeaderSize = 5;
constexpr size_t kReferenceRoom = 64 << 10;
constexpr uint32_t kMaxExpectedSize = 1 << 20;
constexpr sluice::CompressionCodec kCodecs[] = {sluice::CompressionCodec::kLz4Frame,
                                                sluice::CompressionCodec::kZstd};

struct Contexts {
  std::unique_ptr<sluice::Compressor> compressor;
  std::unique_ptr<sluice::Decompressor> decompressor;
};

Contexts& ContextsFor(size_t index) {
  static Contexts contexts[std::size(kCodecs)] = {};
  Contexts& chosen = contexts[index];
  if (chosen.compressor == nullptr) {
    chosen.compressor = sluice::Compressor::Make(kCodecs[index]).ValueOrDie();
    chosen.decompressor = sluice::Decompressor::Make(kCodecs[index]).ValueOrDie();
  }
  return chosen;
}

// Decodes `frame` with a fresh LZ4F context, as the reference the decompressor's own frame reader
// must agree with: returns whether LZ4F finishes the frame exactly, filling `output`.
bool Lz4fDecodes(const uint8_t* frame, size_t frame_size, std::vector<uint8_t>* output) {
  LZ4F_dctx* context = nullptr;
  SLUICE_CHECK(!LZ4F_isError(LZ4F_createDecompressionContext(&context, LZ4F_VERSION)),
               "cannot make an LZ4F context");
  // With room to spare: LZ4F stops once the output is full, before blocks that decode to
  // nothing and the end mark.
  std::vector<uint8_t> decoded_bytes(output->size() + kReferenceRoom);
  size_t decoded = decoded_bytes.size();
  size_t consumed = frame_size;
  const size_t hint =
      LZ4F_decompress(context, decoded_bytes.data(), &decoded, frame, &consumed, nullptr);
  LZ4F_freeDecompressionContext(context);
  if (LZ4F_isError(hint) || hint != 0 || decoded != output->size() || consumed != frame_size) {
    return false;
  }
  std::copy(decoded_bytes.begin(), decoded_bytes.begin() + static_cast<std::ptrdiff_t>(decoded),
            output->begin());
  return true;
}

// Compresses `input` and checks that it decodes back to the same bytes.
void CheckRoundTrip(Contexts& contexts, const uint8_t* input, size_t size) {
  std::vector<uint8_t> compressed(
      static_cast<size_t>(contexts.compressor->MaxCompressedSize(static_cast<int64_t>(size))));
  const auto compressed_size =
      contexts.compressor->Compress(input, static_cast<int64_t>(size), compressed.data(),
                                    static_cast<int64_t>(compressed.size()));
  SLUICE_CHECK(compressed_size.ok(), compressed_size.status().ToString().c_str());
  std::vector<uint8_t> decoded(size);
  const sluice::Status status = contexts.decompressor->Decompress(
      compressed.data(), *compressed_size, decoded.data(), static_cast<int64_t>(size));
  SLUICE_CHECK(status.ok(), status.ToString().c_str());
  SLUICE_CHECK(size == 0 || std::memcmp(decoded.data(), input, size) == 0,
               "round trip changed the bytes");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < kHeaderSize) return 0;
  const size_t codec_index = data[0] % std::size(kCodecs);
  const bool compress_first = (data[0] / std::size(kCodecs)) % 2 == 1;
  uint32_t expected_size = 0;
  for (int i = 0; i < 4; ++i) expected_size |= static_cast<uint32_t>(data[1 + i]) << (8 * i);
  expected_size %= kMaxExpectedSize + 1;
  const uint8_t* payload = data + kHeaderSize;
  const size_t payload_size = size - kHeaderSize;
  Contexts& contexts = ContextsFor(codec_index);

  if (compress_first) {
    CheckRoundTrip(contexts, payload, payload_size);
    return 0;
  }
  std::vector<uint8_t> output(expected_size);
  const sluice::Status status = contexts.decompressor->Decompress(
      payload, static_cast<int64_t>(payload_size), output.data(), expected_size);
  // Bad bytes are Corrupt, nothing else.
  SLUICE_CHECK(status.ok() || status.IsCorrupt(), status.ToString().c_str());
  // The lz4 decompressor reads frames itself; LZ4F must accept exactly what it accepts, with
  // the same bytes.
  if (kCodecs[codec_index] == sluice::CompressionCodec::kLz4Frame && payload_size > 0) {
    std::vector<uint8_t> reference(expected_size);
    const bool reference_ok = Lz4fDecodes(payload, payload_size, &reference);
    SLUICE_CHECK(reference_ok == status.ok(), "the lz4 frame reader and LZ4F disagree");
    SLUICE_CHECK(!status.ok() || reference == output, "the lz4 frame reader and LZ4F decode apart");
  }
  // What decodes must survive being compressed and decoded again.
  if (status.ok()) CheckRoundTrip(contexts, output.data(), output.size());
  return 0;
}
