// zstd codec: every buffer is one complete zstd frame, as Arrow IPC's ZSTD codec requires. One
// ZSTD_CCtx per compressor and one ZSTD_DCtx per decompressor serve every buffer.
//
// A compression context sizes its workspace for the largest frame it has made and keeps it, so a
// warm context allocates nothing. One zstd heuristic remains: a workspace more than 3 times what
// the current frames need for 128 frames in a row is freed and made again at the smaller size
// (it would otherwise pin memory after one big buffer); a task alternating big and small
// buffers never triggers it. Decompression is single-pass into the caller's output, so the
// context needs no window buffer and never allocates, whatever window a frame declares.
//
// A dictionary is loaded into the context once, as raw content (what `zstd -D FILE` does with a
// file that is not a trained dictionary), and stays for every frame.
#define ZSTD_STATIC_LINKING_ONLY  // ZSTD_*_loadDictionary_advanced, to say "raw content"
#include <zstd.h>

#include <iterator>
#include <memory>
#include <span>
#include <string_view>
#include <utility>

#include "compression_internal.h"

namespace sluice::internal {

namespace {

constexpr std::string_view kCodecName = "zstd";

class ZstdCompressor final : public Compressor {
 public:
  explicit ZstdCompressor(ZSTD_CCtx* context) : context_(context) {}
  ~ZstdCompressor() override { ZSTD_freeCCtx(context_); }
  ZstdCompressor(const ZstdCompressor&) = delete;
  ZstdCompressor& operator=(const ZstdCompressor&) = delete;

  CompressionCodec codec() const override { return CompressionCodec::kZstd; }

  int64_t MaxCompressedSize(int64_t input_size) const override {
    if (input_size < 0) input_size = 0;
    return static_cast<int64_t>(ZSTD_compressBound(static_cast<size_t>(input_size)));
  }

  Result<int64_t> Compress(const uint8_t* input, int64_t input_size, uint8_t* output,
                           int64_t output_capacity) override {
    SLUICE_RETURN_NOT_OK(CheckCompressArguments(kCodecName, input, input_size, output,
                                                output_capacity, MaxCompressedSize(input_size)));
    // ZSTD_compress2 starts a new frame with the context's parameters (set once in Make) and
    // records the input size in the frame header.
    const size_t written = ZSTD_compress2(context_, output, static_cast<size_t>(output_capacity),
                                          input, static_cast<size_t>(input_size));
    if (ZSTD_isError(written)) {
      return Status::Invalid("zstd compression failed: ", ZSTD_getErrorName(written));
    }
    return static_cast<int64_t>(written);
  }

 private:
  ZSTD_CCtx* context_;
};

class ZstdDecompressor final : public Decompressor {
 public:
  explicit ZstdDecompressor(ZSTD_DCtx* context) : context_(context) {}
  ~ZstdDecompressor() override { ZSTD_freeDCtx(context_); }
  ZstdDecompressor(const ZstdDecompressor&) = delete;
  ZstdDecompressor& operator=(const ZstdDecompressor&) = delete;

  CompressionCodec codec() const override { return CompressionCodec::kZstd; }

  Status Decompress(const uint8_t* input, int64_t input_size, uint8_t* output,
                    int64_t output_size) override {
    SLUICE_RETURN_NOT_OK(
        CheckDecompressArguments(kCodecName, input, input_size, output, output_size));
    // Exactly one frame: ZSTD_decompressDCtx would also accept several frames back to back,
    // which no Arrow writer makes for one buffer, and which would hide trailing bytes.
    const size_t frame_size = ZSTD_findFrameCompressedSize(input, static_cast<size_t>(input_size));
    if (ZSTD_isError(frame_size)) {
      return Status::Corrupt("zstd decompression: no complete frame in the ", input_size,
                             " input bytes: ", ZSTD_getErrorName(frame_size));
    }
    if (static_cast<int64_t>(frame_size) != input_size) {
      return Status::Corrupt("zstd decompression: ", input_size - static_cast<int64_t>(frame_size),
                             " bytes follow the end of the frame at input byte ", frame_size);
    }
    // The header's content size, when the writer recorded it, rejects a wrong length up front.
    const unsigned long long declared_size =
        ZSTD_getFrameContentSize(input, static_cast<size_t>(input_size));
    if (declared_size != ZSTD_CONTENTSIZE_UNKNOWN && declared_size != ZSTD_CONTENTSIZE_ERROR &&
        declared_size != static_cast<unsigned long long>(output_size)) {
      return Status::Corrupt("zstd decompression: the frame header declares ", declared_size,
                             " bytes, expected ", output_size);
    }
    // ZSTD_decompressDCtx starts afresh on every call, so a failed call leaves nothing behind.
    const size_t decoded = ZSTD_decompressDCtx(context_, output_size == 0 ? &no_output_ : output,
                                               static_cast<size_t>(output_size), input,
                                               static_cast<size_t>(input_size));
    if (ZSTD_isError(decoded)) {
      return Status::Corrupt("zstd decompression failed (expected ", output_size, " bytes from ",
                             input_size, "): ", ZSTD_getErrorName(decoded));
    }
    if (static_cast<int64_t>(decoded) != output_size) {
      return Status::Corrupt("zstd decompression: the frame decodes to ", decoded,
                             " bytes, expected ", output_size);
    }
    return Status::OK();
  }

 private:
  ZSTD_DCtx* context_;
  uint8_t no_output_ = 0;
};

}  // namespace

namespace {

Status DictionaryFailure(std::string_view step, size_t code) {
  return Status::OutOfMemory("cannot load a zstd dictionary into a ", step,
                             " context: ", ZSTD_getErrorName(code));
}

}  // namespace

Result<std::unique_ptr<Compressor>> MakeZstdCompressor(int level,
                                                       std::span<const uint8_t> dictionary) {
  ZSTD_CCtx* context = ZSTD_createCCtx();
  if (context == nullptr) return Status::OutOfMemory("cannot make a zstd compression context");
  std::unique_ptr<ZstdCompressor> compressor;
  try {
    compressor = std::make_unique<ZstdCompressor>(context);
  } catch (...) {
    ZSTD_freeCCtx(context);
    throw;
  }
  // Content size on (8 bytes at most) so readers can check lengths from the frame alone;
  // checksum off: Spark's partition checksums cover the bytes, and lengths are checked exactly.
  const ZSTD_cParameter parameters[] = {ZSTD_c_compressionLevel, ZSTD_c_contentSizeFlag,
                                        ZSTD_c_checksumFlag};
  const int values[] = {level, 1, 0};
  for (size_t i = 0; i < std::size(parameters); ++i) {
    const size_t code = ZSTD_CCtx_setParameter(context, parameters[i], values[i]);
    if (ZSTD_isError(code)) {
      return Status::Invalid("cannot set zstd parameter ", static_cast<int>(parameters[i]), " to ",
                             values[i], ": ", ZSTD_getErrorName(code));
    }
  }
  if (!dictionary.empty()) {
    const size_t code = ZSTD_CCtx_loadDictionary_advanced(
        context, dictionary.data(), dictionary.size(), ZSTD_dlm_byCopy, ZSTD_dct_rawContent);
    if (ZSTD_isError(code)) return DictionaryFailure("compression", code);
    // Searched beside the frame's own matches (attached), not copied into the frame's tables,
    // where at the fast levels the dictionary's positions crowd out the frame's own: fewer
    // bytes for every small segment measured (DEVELOPING.md, "A template batch").
    const size_t attach =
        ZSTD_CCtx_setParameter(context, ZSTD_c_forceAttachDict, ZSTD_dictForceAttach);
    if (ZSTD_isError(attach)) return DictionaryFailure("compression", attach);
  }
  return std::unique_ptr<Compressor>(std::move(compressor));
}

Result<std::unique_ptr<Decompressor>> MakeZstdDecompressor(std::span<const uint8_t> dictionary) {
  ZSTD_DCtx* context = ZSTD_createDCtx();
  if (context == nullptr) return Status::OutOfMemory("cannot make a zstd decompression context");
  std::unique_ptr<ZstdDecompressor> decompressor;
  try {
    decompressor = std::make_unique<ZstdDecompressor>(context);
  } catch (...) {
    ZSTD_freeDCtx(context);
    throw;
  }
  if (!dictionary.empty()) {
    const size_t code = ZSTD_DCtx_loadDictionary_advanced(
        context, dictionary.data(), dictionary.size(), ZSTD_dlm_byCopy, ZSTD_dct_rawContent);
    if (ZSTD_isError(code)) return DictionaryFailure("decompression", code);
  }
  return std::unique_ptr<Decompressor>(std::move(decompressor));
}

}  // namespace sluice::internal
