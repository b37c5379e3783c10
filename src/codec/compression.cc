#include "sluice/codec/compression.h"

#include <charconv>
#include <cstddef>
#include <string>

#include "compression_internal.h"

namespace sluice {

namespace {

bool EqualsIgnoringCase(std::string_view text, std::string_view lower_case_name) {
  if (text.size() != lower_case_name.size()) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != lower_case_name[i]) return false;
  }
  return true;
}

// Sets `codec` to the codec called `name` (without a level); returns false for other names.
bool CodecFromName(std::string_view name, CompressionCodec* codec) {
  if (EqualsIgnoringCase(name, "none")) {
    *codec = CompressionCodec::kNone;
  } else if (EqualsIgnoringCase(name, "lz4") || EqualsIgnoringCase(name, "lz4_frame")) {
    *codec = CompressionCodec::kLz4Frame;
  } else if (EqualsIgnoringCase(name, "zstd")) {
    *codec = CompressionCodec::kZstd;
  } else {
    return false;
  }
  return true;
}

Status CheckZstdLevel(int level) {
  if (level < internal::kMinZstdLevel || level > internal::kMaxZstdLevel) {
    return Status::Invalid("zstd level ", level, " is outside the supported range ",
                           internal::kMinZstdLevel, "..", internal::kMaxZstdLevel);
  }
  return Status::OK();
}

}  // namespace

std::string_view CompressionCodecName(CompressionCodec codec) {
  switch (codec) {
    case CompressionCodec::kNone:
      return "none";
    case CompressionCodec::kLz4Frame:
      return "lz4";
    case CompressionCodec::kZstd:
      return "zstd";
  }
  return "unknown";
}

Result<CompressionCodec> ParseCompressionCodec(std::string_view text, int* level) {
  const size_t colon = text.find(':');
  const std::string_view name = text.substr(0, colon);
  CompressionCodec codec = CompressionCodec::kNone;
  if (EqualsIgnoringCase(name, "snappy")) {
    return Status::Invalid(
        "compression codec '", text,
        "' is not offered: Arrow IPC knows only LZ4_FRAME and ZSTD, "
        "and an Arrow reader that does not know a codec may read its bytes as values (Arrow Java "
        "does); use lz4 (as fast) or zstd");
  }
  if (!CodecFromName(name, &codec)) {
    return Status::Invalid("unknown compression codec '", text,
                           "': expected none, lz4, lz4_frame, zstd or zstd:LEVEL");
  }
  if (colon == std::string_view::npos) return codec;

  if (codec != CompressionCodec::kZstd) {
    return Status::Invalid("compression codec '", text, "': only zstd takes a level");
  }
  const std::string_view level_text = text.substr(colon + 1);
  int parsed_level = 0;
  const char* end = level_text.data() + level_text.size();
  const auto [stop, error] = std::from_chars(level_text.data(), end, parsed_level);
  if (level_text.empty() || error == std::errc::invalid_argument || stop != end) {
    return Status::Invalid("compression codec '", text, "': level '", level_text,
                           "' is not an integer");
  }
  if (error == std::errc::result_out_of_range || parsed_level < internal::kMinZstdLevel ||
      parsed_level > internal::kMaxZstdLevel) {
    return Status::Invalid("compression codec '", text, "': level ", level_text,
                           " is outside zstd's range ", internal::kMinZstdLevel, "..",
                           internal::kMaxZstdLevel);
  }
  if (level != nullptr) *level = parsed_level;
  return codec;
}

Result<std::unique_ptr<Compressor>> Compressor::Make(CompressionCodec codec, int level,
                                                     std::span<const uint8_t> dictionary) {
  switch (codec) {
    case CompressionCodec::kNone:
      return Status::Invalid(
          "codec none has no compressor: store buffers as they are (plain Arrow IPC without "
          "BodyCompression)");
    case CompressionCodec::kLz4Frame:
      return internal::MakeLz4FrameCompressor(dictionary);
    case CompressionCodec::kZstd:
      SLUICE_RETURN_NOT_OK(CheckZstdLevel(level));
      return internal::MakeZstdCompressor(level, dictionary);
  }
  return Status::Invalid("unknown compression codec value ", static_cast<int>(codec));
}

Result<std::unique_ptr<Decompressor>> Decompressor::Make(CompressionCodec codec,
                                                         std::span<const uint8_t> dictionary) {
  switch (codec) {
    case CompressionCodec::kNone:
      return Status::Invalid(
          "codec none has no decompressor: buffers of plain Arrow IPC are read as they are");
    case CompressionCodec::kLz4Frame:
      return internal::MakeLz4FrameDecompressor(dictionary);
    case CompressionCodec::kZstd:
      return internal::MakeZstdDecompressor(dictionary);
  }
  return Status::Invalid("unknown compression codec value ", static_cast<int>(codec));
}

namespace internal {

Status CheckCompressArguments(std::string_view codec_name, const uint8_t* input, int64_t input_size,
                              const uint8_t* output, int64_t output_capacity, int64_t bound) {
  if (input_size < 0 || output_capacity < 0) {
    return Status::Invalid(codec_name, " compression: negative size (input ", input_size,
                           " bytes, output capacity ", output_capacity, " bytes)");
  }
  if ((input == nullptr && input_size > 0) || output == nullptr) {
    return Status::Invalid(codec_name, " compression: missing input or output buffer");
  }
  if (output_capacity < bound) {
    return Status::Invalid(codec_name, " compression: output capacity ", output_capacity,
                           " bytes is below the bound ", bound, " bytes for ", input_size,
                           " input bytes (see MaxCompressedSize)");
  }
  return Status::OK();
}

Status CheckDecompressArguments(std::string_view codec_name, const uint8_t* input,
                                int64_t input_size, const uint8_t* output, int64_t output_size) {
  if (input_size < 0 || output_size < 0) {
    return Status::Invalid(codec_name, " decompression: negative size (input ", input_size,
                           " bytes, expected output ", output_size, " bytes)");
  }
  if ((input == nullptr && input_size > 0) || (output == nullptr && output_size > 0)) {
    return Status::Invalid(codec_name, " decompression: missing input or output buffer");
  }
  if (input_size == 0) {
    return Status::Corrupt(codec_name, " decompression: the compressed buffer is empty, expected ",
                           "an encoding of ", output_size, " bytes");
  }
  return Status::OK();
}

}  // namespace internal

}  // namespace sluice
