// Snappy codec: every buffer is one raw snappy block (a varint of the uncompressed length, then
// literals and copies), with no framing. Snappy is not an Arrow IPC codec; only Sluice reads
// segments that use it.
//
// Snappy keeps no context between calls. Decompression allocates nothing. Compression allocates
// its working memory inside snappy on every call (a hash table of up to 32 KiB plus scratch of
// about twice min(input, 64 KiB), so at most about 170 KiB): snappy's public API has no way to
// pass it in, so this is the one codec whose warm compressor still allocates.
#include <snappy.h>

#include <cstdint>
#include <limits>
#include <memory>

#include "compression_internal.h"

namespace sluice::internal {

namespace {

constexpr std::string_view kCodecName = "snappy";

// The block header is a 32-bit varint, so a block holds less than 4 GiB.
constexpr int64_t kMaxSnappyInputSize = std::numeric_limits<uint32_t>::max();

const char* AsChars(const uint8_t* bytes) {
  return reinterpret_cast<const char*>(bytes);
}

class SnappyCompressor final : public Compressor {
 public:
  CompressionCodec codec() const override { return CompressionCodec::kSnappy; }

  int64_t MaxCompressedSize(int64_t input_size) const override {
    if (input_size < 0) input_size = 0;
    return static_cast<int64_t>(snappy::MaxCompressedLength(static_cast<size_t>(input_size)));
  }

  Result<int64_t> Compress(const uint8_t* input, int64_t input_size, uint8_t* output,
                           int64_t output_capacity) override {
    SLUICE_RETURN_NOT_OK(CheckCompressArguments(kCodecName, input, input_size, output,
                                                output_capacity, MaxCompressedSize(input_size)));
    if (input_size > kMaxSnappyInputSize) {
      return Status::Invalid("snappy compresses at most ", kMaxSnappyInputSize,
                             " bytes per buffer, got ", input_size);
    }
    static constexpr uint8_t kNoInput = 0;
    size_t written = 0;
    snappy::RawCompress(AsChars(input_size == 0 ? &kNoInput : input),
                        static_cast<size_t>(input_size), reinterpret_cast<char*>(output), &written);
    return static_cast<int64_t>(written);
  }
};

class SnappyDecompressor final : public Decompressor {
 public:
  CompressionCodec codec() const override { return CompressionCodec::kSnappy; }

  Status Decompress(const uint8_t* input, int64_t input_size, uint8_t* output,
                    int64_t output_size) override {
    SLUICE_RETURN_NOT_OK(
        CheckDecompressArguments(kCodecName, input, input_size, output, output_size));
    size_t declared_size = 0;
    if (!snappy::GetUncompressedLength(AsChars(input), static_cast<size_t>(input_size),
                                       &declared_size)) {
      return Status::Corrupt("snappy decompression: the ", input_size,
                             " input bytes do not start with a valid length");
    }
    if (static_cast<uint64_t>(declared_size) != static_cast<uint64_t>(output_size)) {
      return Status::Corrupt("snappy decompression: the block declares ", declared_size,
                             " bytes, expected ", output_size);
    }
    // RawUncompress writes at most the declared length and fails unless the input, all of it,
    // decodes to exactly that length.
    if (!snappy::RawUncompress(AsChars(input), static_cast<size_t>(input_size),
                               reinterpret_cast<char*>(output_size == 0 ? &no_output_ : output))) {
      return Status::Corrupt("snappy decompression: the ", input_size,
                             " input bytes are not a valid block of ", output_size, " bytes");
    }
    return Status::OK();
  }

 private:
  uint8_t no_output_ = 0;
};

}  // namespace

Result<std::unique_ptr<Compressor>> MakeSnappyCompressor() {
  return std::unique_ptr<Compressor>(new SnappyCompressor());
}

Result<std::unique_ptr<Decompressor>> MakeSnappyDecompressor() {
  return std::unique_ptr<Decompressor>(new SnappyDecompressor());
}

}  // namespace sluice::internal
