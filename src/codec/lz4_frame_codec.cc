// LZ4 frame codec: every buffer is one complete LZ4 frame, as Arrow IPC's LZ4_FRAME codec
// requires (pyarrow, arrow-rs and Arrow Java read it). One LZ4F context per compressor and one
// per decompressor serve every buffer: LZ4F allocates its tables and block buffers on first
// use and keeps them, so a warm context allocates nothing. (The decompressor reads most frames
// itself, lz4_frame_reader_internal.h, and makes its LZ4F context only for the others.)
//
// A frame compressed against a dictionary is written here rather than by LZ4F. The format lets
// every independent block of it refer to the dictionary (LZ4F's decoder, and `lz4 -d -D FILE`,
// start each block from it); the header does not name it (no dictionary id), as `lz4 -D FILE`
// writes frames too. LZ4F would compress every block in dictionary mode, which is markedly
// slower (DEVELOPING.md, "The Schema dictionary on by default"), yet only the start of the
// input gains: the Schema message a compact segment starts with is a copy of the dictionary. So
// the first block covers the dictionary's length of input and is compressed against it; the
// blocks after it are compressed on their own, and decode the same whether a decoder gives
// them the dictionary or not. An input of at most twice the dictionary's length is one block:
// a second block would cost its header and the matches it could not make, for little time.
#define LZ4F_STATIC_LINKING_ONLY  // LZ4F_decompress_usingDict (stable since liblz4 1.10)
#include <lz4.h>
#include <lz4frame.h>
#include <xxhash.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "compression_internal.h"
#include "lz4_frame_reader_internal.h"
#include "sluice/base/bit_ops.h"

namespace sluice::internal {

namespace {

constexpr std::string_view kCodecName = "lz4 frame";

// Frame preferences, chosen for shuffle buffers of a few bytes to a few MiB:
// - 64 KiB blocks. Whoever reads a frame allocates buffers of its block size (twice, plus 128 KiB
//   of history for linked blocks), so small blocks keep every reader's memory small whatever
//   the buffer size. LZ4F also decodes a block straight into the caller's output only while a
//   whole block of room remains; the tail goes through its internal buffer and one more copy,
//   so for readers that use LZ4F a small block bounds that copy to 64 KiB per buffer (Sluice
//   reads such frames directly, see lz4_frame_reader_internal.h). The price is a 4-byte header
//   per 64 KiB (0.006%).
// - Independent blocks. Each 64 KiB block starts without history, which changes nothing for
//   buffers up to 64 KiB (most of a shuffle's) and did not hurt larger string columns either
//   (DEVELOPING.md, "Figures behind the constants"). Linked blocks also make liblz4 1.9.4 calloc
//   a 64 KiB history buffer in every LZ4F_compressBegin, because LZ4F_compressEnd drops it (lz4
//   issue 1157, fixed in 1.10): that made tiny buffers many times slower and broke "a warm
//   context allocates nothing". Readers of independent blocks also keep no 128 KiB history.
// - Content size recorded. 8 bytes per frame buy a check inside LZ4F that the frame decodes to
//   exactly what its header says, and let any tool (`lz4 -l`, a reader without Arrow's length
//   prefix) size the output from the frame alone. A buffer whose frame does not shrink it is
//   stored raw by the IPC encoder, so the cost never exceeds 8 bytes per compressed buffer.
// - No block or content checksum. Spark's partition checksums (ADLER32, CRC32C) already cover
//   every byte of the data file, and decompression checks lengths exactly; an xxHash32 of every
//   byte would cost a sizeable share of LZ4's speed for no new guarantee.
// - Level 0: LZ4's fast mode with acceleration 1. Levels of 3 and above switch to LZ4HC, an
//   order of magnitude slower, which a shuffle never wants.
// - autoFlush: every update emits whole blocks, so the context keeps no input of its own.
LZ4F_preferences_t FramePreferences(int64_t content_size) {
  LZ4F_preferences_t preferences = {};
  preferences.frameInfo.blockSizeID = LZ4F_max64KB;
  preferences.frameInfo.blockMode = LZ4F_blockIndependent;
  preferences.frameInfo.contentChecksumFlag = LZ4F_noContentChecksum;
  preferences.frameInfo.blockChecksumFlag = LZ4F_noBlockChecksum;
  preferences.frameInfo.frameType = LZ4F_frame;
  preferences.frameInfo.contentSize = static_cast<unsigned long long>(content_size);
  preferences.compressionLevel = 0;
  preferences.autoFlush = 1;
  return preferences;
}

class Lz4FrameCompressor final : public Compressor {
 public:
  // `stream` is null without a dictionary.
  Lz4FrameCompressor(LZ4F_cctx* context, LZ4_stream_t* stream, std::span<const uint8_t> dictionary)
      : context_(context), stream_(stream), dictionary_(dictionary.begin(), dictionary.end()) {}
  ~Lz4FrameCompressor() override {
    LZ4F_freeCompressionContext(context_);
    LZ4_freeStream(stream_);
  }
  Lz4FrameCompressor(const Lz4FrameCompressor&) = delete;
  Lz4FrameCompressor& operator=(const Lz4FrameCompressor&) = delete;

  CompressionCodec codec() const override { return CompressionCodec::kLz4Frame; }

  int64_t MaxCompressedSize(int64_t input_size) const override {
    if (input_size < 0) input_size = 0;
    const LZ4F_preferences_t preferences = FramePreferences(input_size);
    // Against a dictionary, the first block ends where the dictionary's length does: one block
    // header more than LZ4F's blocks of 64 KiB.
    return static_cast<int64_t>(
               LZ4F_compressFrameBound(static_cast<size_t>(input_size), &preferences)) +
           (stream_ != nullptr ? kBlockHeaderBytes : 0);
  }

  Result<int64_t> Compress(const uint8_t* input, int64_t input_size, uint8_t* output,
                           int64_t output_capacity) override {
    SLUICE_RETURN_NOT_OK(CheckCompressArguments(kCodecName, input, input_size, output,
                                                output_capacity, MaxCompressedSize(input_size)));
    if (stream_ != nullptr) return CompressAgainstDictionary(input, input_size, output);
    const LZ4F_preferences_t preferences = FramePreferences(input_size);
    const size_t capacity = static_cast<size_t>(output_capacity);
    // Begin resets the context, whatever state an earlier failure left it in.
    size_t written = LZ4F_compressBegin(context_, output, capacity, &preferences);
    if (LZ4F_isError(written)) return Failure("starting a frame", written);
    if (input_size > 0) {
      LZ4F_compressOptions_t options = {};
      // The input stays put until the frame ends, so LZ4F never copies any of it aside.
      options.stableSrc = 1;
      const size_t block_bytes =
          LZ4F_compressUpdate(context_, output + written, capacity - written, input,
                              static_cast<size_t>(input_size), &options);
      if (LZ4F_isError(block_bytes)) return Failure("compressing blocks", block_bytes);
      written += block_bytes;
    }
    const size_t end_bytes =
        LZ4F_compressEnd(context_, output + written, capacity - written, nullptr);
    if (LZ4F_isError(end_bytes)) return Failure("ending the frame", end_bytes);
    return static_cast<int64_t>(written + end_bytes);
  }

 private:
  static constexpr int64_t kBlockHeaderBytes = 4;
  static constexpr int64_t kMaxBlockBytes = int64_t{64} << 10;  // LZ4F_max64KB
  static constexpr uint32_t kStoredRawBit = 0x80000000u;

  static Status Failure(std::string_view step, size_t code) {
    return Status::Invalid(kCodecName, " compression failed ", step, ": ", LZ4F_getErrorName(code));
  }

  // The frame FramePreferences describes (independent 64 KiB blocks, the content size, no
  // checksums), its first block compressed against the dictionary (see the file comment).
  // The output has room for MaxCompressedSize(input_size) bytes.
  int64_t CompressAgainstDictionary(const uint8_t* input, int64_t input_size, uint8_t* output) {
    uint8_t* out = output;
    bits::StoreUnaligned<uint32_t>(out, kLz4FrameMagic);
    uint8_t* descriptor = out + 4;
    descriptor[0] = 0x40 | 0x20 | 0x08;  // version 1, independent blocks, content size
    descriptor[1] = 0x40;                // 64 KiB blocks
    bits::StoreUnaligned<uint64_t>(descriptor + 2, static_cast<uint64_t>(input_size));
    descriptor[10] = static_cast<uint8_t>(XXH32(descriptor, 10, 0) >> 8);
    out = descriptor + 11;
    const auto dictionary_size = static_cast<int64_t>(dictionary_.size());
    const int64_t first_block =
        std::min(input_size <= 2 * dictionary_size ? input_size : dictionary_size, kMaxBlockBytes);
    if (first_block > 0) {
      LZ4_loadDict(stream_, reinterpret_cast<const char*>(dictionary_.data()),
                   static_cast<int>(dictionary_.size()));
      const int compressed = LZ4_compress_fast_continue(
          stream_, reinterpret_cast<const char*>(input),
          reinterpret_cast<char*>(out + kBlockHeaderBytes), static_cast<int>(first_block),
          static_cast<int>(first_block - 1), 1);
      out = AppendBlock(input, first_block, compressed, out);
    }
    for (int64_t done = first_block; done < input_size;) {
      const int64_t block = std::min(kMaxBlockBytes, input_size - done);
      const int compressed =
          LZ4_compress_fast_extState(stream_, reinterpret_cast<const char*>(input + done),
                                     reinterpret_cast<char*>(out + kBlockHeaderBytes),
                                     static_cast<int>(block), static_cast<int>(block - 1), 1);
      out = AppendBlock(input + done, block, compressed, out);
      done += block;
    }
    bits::StoreUnaligned<uint32_t>(out, 0);  // the end mark
    return out + 4 - output;
  }

  // Finishes the block of `size` input bytes whose compressed form (`compressed` bytes, 0 when
  // it did not shrink) is after the block header at `out`: the header, or the bytes stored raw.
  static uint8_t* AppendBlock(const uint8_t* input, int64_t size, int compressed, uint8_t* out) {
    if (compressed > 0) {
      bits::StoreUnaligned<uint32_t>(out, static_cast<uint32_t>(compressed));
      return out + kBlockHeaderBytes + compressed;
    }
    bits::StoreUnaligned<uint32_t>(out, static_cast<uint32_t>(size) | kStoredRawBit);
    std::memcpy(out + kBlockHeaderBytes, input, static_cast<size_t>(size));
    return out + kBlockHeaderBytes + size;
  }

  static constexpr uint32_t kLz4FrameMagic = 0x184D2204;

  LZ4F_cctx* context_;
  LZ4_stream_t* stream_;             // null without a dictionary
  std::vector<uint8_t> dictionary_;  // what stream_ is loaded with
};

class Lz4FrameDecompressor final : public Decompressor {
 public:
  explicit Lz4FrameDecompressor(std::span<const uint8_t> dictionary)
      : dictionary_(dictionary.begin(), dictionary.end()) {}
  ~Lz4FrameDecompressor() override { LZ4F_freeDecompressionContext(context_); }
  Lz4FrameDecompressor(const Lz4FrameDecompressor&) = delete;
  Lz4FrameDecompressor& operator=(const Lz4FrameDecompressor&) = delete;

  CompressionCodec codec() const override { return CompressionCodec::kLz4Frame; }

  Status Decompress(const uint8_t* input, int64_t input_size, uint8_t* output,
                    int64_t output_size) override {
    return DecompressWithRoom(input, input_size, output, output_size, output_size);
  }

  Status DecompressWithRoom(const uint8_t* input, int64_t input_size, uint8_t* output,
                            int64_t output_size, int64_t writable_size) override {
    SLUICE_RETURN_NOT_OK(
        CheckDecompressArguments(kCodecName, input, input_size, output, output_size));
    // LZ4F wants a real destination even when there is no room in it.
    uint8_t* destination = output_size == 0 ? &no_output_ : output;
    // Frames without checksums (Sluice's, pyarrow's) decode straight into the output.
    SLUICE_ASSIGN_OR_RAISE(
        const Lz4FrameRead read,
        ReadLz4Frame(input, input_size, destination, output_size,
                     output_size == 0 ? 0 : std::max(writable_size, output_size), dictionary_));
    if (read == Lz4FrameRead::kDecoded) return Status::OK();
    // The rest (frames with checksums or a dictionary id: Arrow Java's, for one) through LZ4F,
    // which verifies them.
    if (context_ == nullptr) {
      const size_t code = LZ4F_createDecompressionContext(&context_, LZ4F_VERSION);
      if (LZ4F_isError(code)) {
        context_ = nullptr;
        return Status::OutOfMemory("cannot make an lz4 frame decompression context: ",
                                   LZ4F_getErrorName(code));
      }
    }
    size_t decoded = static_cast<size_t>(output_size);
    size_t consumed = static_cast<size_t>(input_size);
    LZ4F_decompressOptions_t options = {};
    // The output stays put for the whole frame, so LZ4F may keep history (of linked blocks,
    // written by other encoders) in it rather than aside.
    options.stableDst = 1;
    // The whole frame and the whole output are given at once, so LZ4F either finishes the frame
    // (returns 0), stops for want of input or room (returns a size hint), or fails.
    size_t hint = LZ4F_decompress_usingDict(context_, destination, &decoded, input, &consumed,
                                            dictionary_.data(), dictionary_.size(), &options);
    // LZ4F stops once the output is full, before blocks that decode to nothing and before the
    // end mark; the rest of the frame is asked for with one byte of room, which a frame that
    // decodes to more than the expected size fills.
    while (!LZ4F_isError(hint) && hint != 0 && decoded == static_cast<size_t>(output_size) &&
           consumed < static_cast<size_t>(input_size)) {
      uint8_t spare = 0;
      size_t spare_size = sizeof(spare);
      size_t more = static_cast<size_t>(input_size) - consumed;
      hint = LZ4F_decompress(context_, &spare, &spare_size, input + consumed, &more, &options);
      consumed += more;
      if (!LZ4F_isError(hint) && spare_size != 0) {
        return Failure(Status::Corrupt(kCodecName, " decompression: the frame decodes to more ",
                                       "than the expected ", output_size, " bytes"));
      }
      if (more == 0) break;  // no progress: the checks below say why
    }
    if (LZ4F_isError(hint)) {
      // LZ4F reports no position with an error.
      return Failure(Status::Corrupt(kCodecName, " decompression of ", input_size,
                                     " input bytes (expected ", output_size,
                                     " bytes out) failed: ", LZ4F_getErrorName(hint)));
    }
    const int64_t decoded_size = static_cast<int64_t>(decoded);
    const int64_t consumed_size = static_cast<int64_t>(consumed);
    if (hint != 0) {
      if (consumed_size == input_size && decoded_size < output_size) {
        return Failure(Status::Corrupt(kCodecName, " decompression: the ", input_size,
                                       " input bytes end inside the frame after decoding ",
                                       decoded_size, " of the expected ", output_size,
                                       " bytes (truncated)"));
      }
      return Failure(Status::Corrupt(kCodecName, " decompression: the frame does not end after ",
                                     "the expected ", output_size, " bytes (input byte ",
                                     consumed_size, " of ", input_size, ")"));
    }
    // A finished frame leaves the context ready for the next one.
    if (decoded_size != output_size) {
      return Failure(Status::Corrupt(kCodecName, " decompression: the frame decodes to ",
                                     decoded_size, " bytes, expected ", output_size));
    }
    if (consumed_size != input_size) {
      return Failure(Status::Corrupt(kCodecName, " decompression: ", input_size - consumed_size,
                                     " bytes follow the end of the frame at input byte ",
                                     consumed_size));
    }
    return Status::OK();
  }

 private:
  // Returns `status` after dropping the context; the next frame that needs LZ4F gets a new one.
  // Resetting is not enough: liblz4 1.9.4's LZ4F_resetDecompressionContext keeps the frame's
  // remaining content size, which only a header with a content size overwrites, so after a frame
  // with a content size failed midway, a later frame without one was refused ("frameSize_wrong")
  // where a fresh context decodes it (decompress_fuzz found it). A finished frame leaves nothing
  // behind, so a context is kept for as long as frames decode.
  Status Failure(Status status) {
    LZ4F_freeDecompressionContext(context_);
    context_ = nullptr;
    return status;
  }

  LZ4F_dctx* context_ = nullptr;  // made on first use
  std::vector<uint8_t> dictionary_;
  uint8_t no_output_ = 0;
};

}  // namespace

Result<std::unique_ptr<Compressor>> MakeLz4FrameCompressor(std::span<const uint8_t> dictionary) {
  if (dictionary.size() > static_cast<size_t>(INT32_MAX)) {
    return Status::Invalid("an lz4 dictionary of ", dictionary.size(), " bytes (2 GiB at most)");
  }
  LZ4_stream_t* stream = nullptr;
  if (!dictionary.empty()) {
    stream = LZ4_createStream();
    if (stream == nullptr) return Status::OutOfMemory("cannot make an lz4 stream");
  }
  LZ4F_cctx* context = nullptr;
  const size_t code = LZ4F_createCompressionContext(&context, LZ4F_VERSION);
  if (LZ4F_isError(code)) {
    LZ4_freeStream(stream);
    return Status::OutOfMemory("cannot make an lz4 frame compression context: ",
                               LZ4F_getErrorName(code));
  }
  try {
    return std::unique_ptr<Compressor>(new Lz4FrameCompressor(context, stream, dictionary));
  } catch (...) {
    LZ4F_freeCompressionContext(context);
    LZ4_freeStream(stream);
    throw;
  }
}

Result<std::unique_ptr<Decompressor>> MakeLz4FrameDecompressor(
    std::span<const uint8_t> dictionary) {
  // The LZ4F context is made when a frame first needs it (most frames never do).
  return std::unique_ptr<Decompressor>(new Lz4FrameDecompressor(dictionary));
}

}  // namespace sluice::internal
