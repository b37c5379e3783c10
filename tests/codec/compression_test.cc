#include "sluice/codec/compression.h"

#include <gtest/gtest.h>
#include <lz4frame.h>
#include <zstd.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "support/codec_cases.h"

namespace sluice {
namespace {

using testing::CodecCase;
using testing::kCodecCases;

enum class Content { kZeros, kRandom, kText, kIntegers };

std::vector<uint8_t> MakeBytes(Content content, size_t size, uint64_t seed) {
  std::vector<uint8_t> bytes(size);
  std::mt19937_64 generator(seed);
  switch (content) {
    case Content::kZeros:
      break;
    case Content::kRandom:
      for (auto& byte : bytes) byte = static_cast<uint8_t>(generator());
      break;
    case Content::kText: {
      std::string text;
      for (uint64_t i = 0; text.size() < size; ++i) {
        text += "this is string number " + std::to_string(i + seed);
      }
      if (size > 0) std::memcpy(bytes.data(), text.data(), size);
      break;
    }
    case Content::kIntegers:
      for (size_t i = 0; i < size; ++i) {
        const uint32_t value = static_cast<uint32_t>(i / 4 + seed);
        bytes[i] = static_cast<uint8_t>(value >> (8 * (i % 4)));
      }
      break;
  }
  return bytes;
}

class CompressionTest : public ::testing::TestWithParam<CodecCase> {
 protected:
  void SetUp() override {
    auto compressor = Compressor::Make(GetParam().codec, GetParam().level);
    ASSERT_TRUE(compressor.ok()) << compressor.status().ToString();
    compressor_ = std::move(compressor).ValueOrDie();
    auto decompressor = Decompressor::Make(GetParam().codec);
    ASSERT_TRUE(decompressor.ok()) << decompressor.status().ToString();
    decompressor_ = std::move(decompressor).ValueOrDie();
  }

  std::vector<uint8_t> Compress(const std::vector<uint8_t>& input) {
    std::vector<uint8_t> output(
        static_cast<size_t>(compressor_->MaxCompressedSize(static_cast<int64_t>(input.size()))));
    auto size = compressor_->Compress(input.data(), static_cast<int64_t>(input.size()),
                                      output.data(), static_cast<int64_t>(output.size()));
    EXPECT_TRUE(size.ok()) << size.status().ToString();
    output.resize(size.ok() ? static_cast<size_t>(*size) : 0);
    return output;
  }

  Status Decompress(const uint8_t* input, size_t input_size, size_t output_size,
                    std::vector<uint8_t>* output) {
    output->assign(output_size, 0xAB);
    return decompressor_->Decompress(input, static_cast<int64_t>(input_size), output->data(),
                                     static_cast<int64_t>(output_size));
  }

  Status Decompress(const std::vector<uint8_t>& input, size_t output_size,
                    std::vector<uint8_t>* output) {
    return Decompress(input.data(), input.size(), output_size, output);
  }

  void ExpectRoundTrip(const std::vector<uint8_t>& original, const std::string& what) {
    const std::vector<uint8_t> compressed = Compress(original);
    EXPECT_LE(static_cast<int64_t>(compressed.size()),
              compressor_->MaxCompressedSize(static_cast<int64_t>(original.size())));
    std::vector<uint8_t> decoded;
    const Status status = Decompress(compressed, original.size(), &decoded);
    ASSERT_TRUE(status.ok()) << what << ": " << status.ToString();
    ASSERT_TRUE(decoded == original) << what << ": decoded bytes differ";
  }

  // Checks that the decompressor still decodes a good buffer after whatever came before.
  void ExpectStillWorks() {
    const std::vector<uint8_t> original = MakeBytes(Content::kText, 70000, 99);
    ExpectRoundTrip(original, "good buffer after a bad one");
  }

  std::unique_ptr<Compressor> compressor_;
  std::unique_ptr<Decompressor> decompressor_;
};

// ---- Round trips -----------------------------------------------------------------------------

TEST_P(CompressionTest, ReportsItsCodec) {
  EXPECT_EQ(compressor_->codec(), GetParam().codec);
  EXPECT_EQ(decompressor_->codec(), GetParam().codec);
}

TEST_P(CompressionTest, RoundTripsEmptyInput) {
  ExpectRoundTrip({}, "empty");
  // No output pointer at all for zero bytes.
  const std::vector<uint8_t> compressed = Compress({});
  EXPECT_TRUE(
      decompressor_
          ->Decompress(compressed.data(), static_cast<int64_t>(compressed.size()), nullptr, 0)
          .ok());
}

TEST_P(CompressionTest, RoundTripsEveryContentAtManySizes) {
  constexpr size_t kMiB = size_t{1} << 20;
  const size_t sizes[] = {1,     2,     3,      7,      15,   16,       17,
                          100,   255,   256,    1000,   4095, 4096,     65535,
                          65536, 65537, 100000, 131073, kMiB, kMiB + 3, 4 * kMiB + 1};
  for (Content content : {Content::kZeros, Content::kRandom, Content::kText, Content::kIntegers}) {
    for (size_t size : sizes) {
      ExpectRoundTrip(
          MakeBytes(content, size, size),
          "content " + std::to_string(static_cast<int>(content)) + " size " + std::to_string(size));
    }
  }
}

TEST_P(CompressionTest, ShrinksCompressibleInput) {
  // Not kIntegers: consecutive int32 values have no 4-byte repeats for LZ4 to find.
  for (Content content : {Content::kZeros, Content::kText}) {
    const std::vector<uint8_t> original = MakeBytes(content, 100000, 1);
    EXPECT_LT(Compress(original).size(), original.size() / 2)
        << "content " << static_cast<int>(content);
  }
}

TEST_P(CompressionTest, RoundTripsManyBuffersThroughOneContext) {
  std::mt19937_64 generator(5);
  for (int i = 0; i < 300; ++i) {
    const auto content = static_cast<Content>(generator() % 4);
    // Mostly small buffers, as a shuffle block's, with an occasional large one.
    const size_t size = i % 50 == 0 ? generator() % (2 << 20) : generator() % 5000;
    ExpectRoundTrip(MakeBytes(content, size, generator()), "buffer " + std::to_string(i));
  }
}

// With a dictionary: every size, every content, many frames through one pair of contexts; the
// frames need the dictionary (a decompressor without it, or with another, fails or differs),
// and the codec's own tool would read them (LZ4F, for LZ4; zstd is its own decoder).
TEST_P(CompressionTest, RoundTripsAgainstADictionary) {
  std::vector<uint8_t> dictionary = MakeBytes(Content::kText, 3000, 7);
  auto compressor = Compressor::Make(GetParam().codec, GetParam().level, dictionary);
  ASSERT_TRUE(compressor.ok()) << compressor.status().ToString();
  auto decompressor = Decompressor::Make(GetParam().codec, dictionary);
  ASSERT_TRUE(decompressor.ok()) << decompressor.status().ToString();
  dictionary.assign(dictionary.size(), 0);  // both copied it
  auto plain = Decompressor::Make(GetParam().codec);
  ASSERT_TRUE(plain.ok());
  for (size_t size : {1, 15, 100, 2999, 3000, 17024, 65535, 65536, 65537, 200000}) {
    for (Content content : {Content::kText, Content::kRandom, Content::kIntegers}) {
      // The dictionary's text continued: matches reach into it.
      const std::vector<uint8_t> original = MakeBytes(content, size, 7);
      std::vector<uint8_t> frame(
          static_cast<size_t>((*compressor)->MaxCompressedSize(static_cast<int64_t>(size))));
      auto written = (*compressor)
                         ->Compress(original.data(), static_cast<int64_t>(size), frame.data(),
                                    static_cast<int64_t>(frame.size()));
      ASSERT_TRUE(written.ok()) << written.status().ToString();
      frame.resize(static_cast<size_t>(*written));
      std::vector<uint8_t> decoded(size);
      Status status =
          (*decompressor)
              ->Decompress(frame.data(), *written, decoded.data(), static_cast<int64_t>(size));
      ASSERT_TRUE(status.ok()) << "size " << size << ": " << status.ToString();
      ASSERT_TRUE(decoded == original) << "size " << size;
      if (content == Content::kText && size >= 100) {
        std::vector<uint8_t> without(size);
        const Status unaided = (*plain)->Decompress(frame.data(), *written, without.data(),
                                                    static_cast<int64_t>(size));
        EXPECT_TRUE(!unaided.ok() || without != original) << "size " << size;
      }
    }
  }
}

TEST_P(CompressionTest, CompressesIntoAnOutputLargerThanTheBound) {
  const std::vector<uint8_t> original = MakeBytes(Content::kText, 5000, 2);
  std::vector<uint8_t> output(static_cast<size_t>(compressor_->MaxCompressedSize(5000)) + 100);
  auto size = compressor_->Compress(original.data(), 5000, output.data(),
                                    static_cast<int64_t>(output.size()));
  ASSERT_TRUE(size.ok()) << size.status().ToString();
  std::vector<uint8_t> decoded;
  EXPECT_TRUE(Decompress(output.data(), static_cast<size_t>(*size), 5000, &decoded).ok());
  EXPECT_TRUE(decoded == original);
}

// ---- Bad arguments ---------------------------------------------------------------------------

TEST_P(CompressionTest, CompressRejectsAnOutputBelowTheBound) {
  const std::vector<uint8_t> original = MakeBytes(Content::kRandom, 1000, 3);
  std::vector<uint8_t> output(1000);
  auto size = compressor_->Compress(original.data(), 1000, output.data(), 1000);
  ASSERT_FALSE(size.ok());
  EXPECT_TRUE(size.status().IsInvalid()) << size.status().ToString();
}

TEST_P(CompressionTest, RejectsNegativeSizes) {
  uint8_t bytes[64] = {};
  auto size = compressor_->Compress(bytes, -1, bytes, 64);
  EXPECT_TRUE(size.status().IsInvalid()) << size.status().ToString();
  EXPECT_TRUE(decompressor_->Decompress(bytes, -1, bytes, 10).IsInvalid());
  EXPECT_TRUE(decompressor_->Decompress(bytes, 10, bytes, -1).IsInvalid());
  EXPECT_TRUE(decompressor_->Decompress(bytes, 10, nullptr, 5).IsInvalid());
  ExpectStillWorks();
}

// ---- Bad input -------------------------------------------------------------------------------

TEST_P(CompressionTest, EmptyInputIsCorrupt) {
  std::vector<uint8_t> decoded;
  for (size_t expected : {0u, 1u, 100u}) {
    const Status status = Decompress(nullptr, 0, expected, &decoded);
    EXPECT_TRUE(status.IsCorrupt()) << status.ToString();
  }
}

TEST_P(CompressionTest, TruncatedInputIsCorrupt) {
  for (size_t original_size : {0u, 1u, 300u, 5000u, 200000u}) {
    const std::vector<uint8_t> original = MakeBytes(Content::kText, original_size, 4);
    const std::vector<uint8_t> compressed = Compress(original);
    // Every prefix of small frames; a spread of prefixes of large ones.
    const size_t step = compressed.size() > 2000 ? compressed.size() / 500 : 1;
    std::vector<uint8_t> decoded;
    for (size_t length = 0; length < compressed.size(); length += step) {
      const Status status = Decompress(compressed.data(), length, original_size, &decoded);
      ASSERT_TRUE(status.IsCorrupt()) << "prefix of " << length << " of " << compressed.size()
                                      << " bytes: " << status.ToString();
    }
    ExpectStillWorks();
  }
}

TEST_P(CompressionTest, WrongExpectedSizeIsCorrupt) {
  for (size_t original_size : {0u, 1u, 100u, 65536u, 100000u}) {
    const std::vector<uint8_t> original = MakeBytes(Content::kIntegers, original_size, 5);
    const std::vector<uint8_t> compressed = Compress(original);
    std::vector<uint8_t> decoded;
    for (size_t expected : {original_size + 1, original_size * 2 + 1, original_size + 65536,
                            original_size / 2, original_size - 1, size_t{0}}) {
      if (expected == original_size || expected > original_size + 65536) continue;
      const Status status = Decompress(compressed, expected, &decoded);
      ASSERT_TRUE(status.IsCorrupt())
          << original_size << " bytes decoded as " << expected << ": " << status.ToString();
      EXPECT_NE(status.message().find(std::to_string(expected)), std::string::npos)
          << "the message names the expected size: " << status.message();
    }
    ExpectStillWorks();
  }
}

TEST_P(CompressionTest, TrailingBytesAreCorrupt) {
  const std::vector<uint8_t> original = MakeBytes(Content::kText, 3000, 6);
  const std::vector<uint8_t> compressed = Compress(original);
  std::vector<uint8_t> decoded;
  for (const std::vector<uint8_t>& tail :
       {std::vector<uint8_t>{0}, std::vector<uint8_t>{1, 2, 3, 4, 5, 6, 7, 8}, compressed}) {
    std::vector<uint8_t> input = compressed;
    input.insert(input.end(), tail.begin(), tail.end());
    const Status status = Decompress(input, original.size(), &decoded);
    EXPECT_TRUE(status.IsCorrupt()) << tail.size() << " trailing bytes: " << status.ToString();
  }
  ExpectStillWorks();
}

TEST_P(CompressionTest, BitFlipsAreCorruptOrDecodeToTheExpectedSize) {
  const std::vector<uint8_t> original = MakeBytes(Content::kText, 2000, 7);
  const std::vector<uint8_t> compressed = Compress(original);
  std::vector<uint8_t> decoded;
  int corrupt = 0;
  for (size_t bit = 0; bit < compressed.size() * 8; ++bit) {
    std::vector<uint8_t> flipped = compressed;
    flipped[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
    const Status status = Decompress(flipped, original.size(), &decoded);
    // Without a content checksum a flipped literal still decodes; anything else must be
    // reported, never crash or write past the output.
    ASSERT_TRUE(status.ok() || status.IsCorrupt()) << "bit " << bit << ": " << status.ToString();
    if (!status.ok()) ++corrupt;
    if (bit < 32) {
      EXPECT_TRUE(status.IsCorrupt()) << "flipped magic number bit " << bit;
    }
  }
  EXPECT_GT(corrupt, 0);
  ExpectStillWorks();
}

TEST_P(CompressionTest, GarbageIsCorrupt) {
  std::mt19937_64 generator(8);
  std::vector<uint8_t> decoded;
  for (int trial = 0; trial < 500; ++trial) {
    const std::vector<uint8_t> garbage =
        MakeBytes(Content::kRandom, 1 + generator() % 3000, generator());
    const size_t expected = generator() % 100000;
    const Status status = Decompress(garbage, expected, &decoded);
    ASSERT_TRUE(status.IsCorrupt()) << "trial " << trial << ": " << status.ToString();
  }
  ExpectStillWorks();
}

TEST_P(CompressionTest, GarbageAfterAValidHeaderIsCorruptOrExact) {
  const std::vector<uint8_t> original = MakeBytes(Content::kIntegers, 300000, 9);
  const std::vector<uint8_t> compressed = Compress(original);
  // Garbage is cut from one pool of random bytes, at random places.
  const std::vector<uint8_t> pool = MakeBytes(Content::kRandom, 2 * compressed.size(), 10);
  std::mt19937_64 generator(10);
  std::vector<uint8_t> decoded;
  for (int trial = 0; trial < 300; ++trial) {
    // Keep the first few bytes (magic, frame descriptor, length varint) and scramble the rest.
    std::vector<uint8_t> input = compressed;
    const size_t keep = 1 + generator() % 24;
    const size_t garbage = generator() % (input.size() - keep + 1);
    std::memcpy(input.data() + keep, pool.data() + generator() % compressed.size(), garbage);
    input.resize(keep + garbage);
    const Status status = Decompress(input, original.size(), &decoded);
    ASSERT_TRUE(status.ok() || status.IsCorrupt()) << status.ToString();
  }
  ExpectStillWorks();
}

INSTANTIATE_TEST_SUITE_P(Codecs, CompressionTest, ::testing::ValuesIn(kCodecCases),
                         [](const ::testing::TestParamInfo<CodecCase>& info) {
                           return std::string(info.param.name);
                         });

// ---- Compatibility with other writers and readers of the same formats ------------------------

TEST(CompressionFormatTest, Lz4FramesAreReadableByAPlainLz4fContext) {
  auto compressor = Compressor::Make(CompressionCodec::kLz4Frame).ValueOrDie();
  const std::vector<uint8_t> original = MakeBytes(Content::kText, 300000, 11);
  std::vector<uint8_t> compressed(
      static_cast<size_t>(compressor->MaxCompressedSize(static_cast<int64_t>(original.size()))));
  const int64_t size = compressor
                           ->Compress(original.data(), static_cast<int64_t>(original.size()),
                                      compressed.data(), static_cast<int64_t>(compressed.size()))
                           .ValueOrDie();

  LZ4F_dctx* context = nullptr;
  ASSERT_FALSE(LZ4F_isError(LZ4F_createDecompressionContext(&context, LZ4F_VERSION)));
  LZ4F_frameInfo_t info = {};
  size_t header_size = static_cast<size_t>(size);
  ASSERT_FALSE(LZ4F_isError(LZ4F_getFrameInfo(context, &info, compressed.data(), &header_size)));
  EXPECT_EQ(info.contentSize, original.size());
  EXPECT_EQ(info.blockSizeID, LZ4F_max64KB);
  EXPECT_EQ(info.blockMode, LZ4F_blockIndependent);
  std::vector<uint8_t> decoded(original.size());
  size_t decoded_size = decoded.size();
  size_t consumed = static_cast<size_t>(size) - header_size;
  EXPECT_EQ(LZ4F_decompress(context, decoded.data(), &decoded_size, compressed.data() + header_size,
                            &consumed, nullptr),
            0u);
  LZ4F_freeDecompressionContext(context);
  EXPECT_EQ(decoded_size, original.size());
  EXPECT_TRUE(decoded == original);
}

TEST(CompressionFormatTest, ReadsLz4FramesWrittenWithOtherPreferences) {
  // Arrow C++ (pyarrow) writes LZ4F's default frame: no content size; the lz4 tool writes 4 MiB
  // blocks; others add checksums or independent blocks.
  auto decompressor = Decompressor::Make(CompressionCodec::kLz4Frame).ValueOrDie();
  const std::vector<uint8_t> original = MakeBytes(Content::kText, 500000, 12);
  for (int variant = 0; variant < 4; ++variant) {
    LZ4F_preferences_t preferences = {};
    if (variant == 1) preferences.frameInfo.blockSizeID = LZ4F_max4MB;
    if (variant == 2) {
      preferences.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
      preferences.frameInfo.blockChecksumFlag = LZ4F_blockChecksumEnabled;
    }
    if (variant == 3) {
      preferences.frameInfo.blockMode = LZ4F_blockIndependent;
      preferences.compressionLevel = 9;
    }
    std::vector<uint8_t> compressed(LZ4F_compressFrameBound(original.size(), &preferences));
    const size_t size = LZ4F_compressFrame(compressed.data(), compressed.size(), original.data(),
                                           original.size(), &preferences);
    ASSERT_FALSE(LZ4F_isError(size));
    std::vector<uint8_t> decoded(original.size());
    const Status status =
        decompressor->Decompress(compressed.data(), static_cast<int64_t>(size), decoded.data(),
                                 static_cast<int64_t>(decoded.size()));
    ASSERT_TRUE(status.ok()) << "variant " << variant << ": " << status.ToString();
    EXPECT_TRUE(decoded == original) << "variant " << variant;
    // A content checksum catches what a missing one cannot: a flipped literal.
    if (variant == 2) {
      compressed[size / 2] ^= 1;
      EXPECT_TRUE(decompressor
                      ->Decompress(compressed.data(), static_cast<int64_t>(size), decoded.data(),
                                   static_cast<int64_t>(decoded.size()))
                      .IsCorrupt());
    }
  }
}

// A frame that fails midway leaves nothing behind for the next one. liblz4 1.9.4 keeps a failed
// frame's remaining content size across LZ4F_resetDecompressionContext, so a frame with a content
// size cut short, then a valid frame without one (and with a dictionary id, so it takes the LZ4F
// path), was refused by a reused context; decompress_fuzz found it.
TEST(CompressionFormatTest, AFrameThatFailedLeavesNothingForTheNext) {
  auto decompressor = Decompressor::Make(CompressionCodec::kLz4Frame).ValueOrDie();
  const std::vector<uint8_t> original = MakeBytes(Content::kText, 200000, 3);
  LZ4F_preferences_t preferences = {};
  preferences.frameInfo.contentSize = original.size();
  preferences.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;  // through LZ4F
  std::vector<uint8_t> compressed(LZ4F_compressFrameBound(original.size(), &preferences));
  const size_t size = LZ4F_compressFrame(compressed.data(), compressed.size(), original.data(),
                                         original.size(), &preferences);
  ASSERT_FALSE(LZ4F_isError(size));
  std::vector<uint8_t> decoded(original.size());
  EXPECT_TRUE(decompressor
                  ->Decompress(compressed.data(), static_cast<int64_t>(size / 2), decoded.data(),
                               static_cast<int64_t>(decoded.size()))
                  .IsCorrupt());
  // Magic, FLG (version 01, independent blocks, dictionary id), BD (64 KiB blocks), the
  // dictionary id, the header checksum, then the end mark: an empty frame.
  const uint8_t empty_with_dictionary_id[] = {0x04, 0x22, 0x4d, 0x18, 0x61, 0x40, 0x86, 0x01,
                                              0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
  uint8_t nothing = 0;
  const Status status = decompressor->Decompress(empty_with_dictionary_id,
                                                 sizeof(empty_with_dictionary_id), &nothing, 0);
  EXPECT_TRUE(status.ok()) << status.ToString();
  // And the context serves a whole frame again.
  const Status whole =
      decompressor->Decompress(compressed.data(), static_cast<int64_t>(size), decoded.data(),
                               static_cast<int64_t>(decoded.size()));
  EXPECT_TRUE(whole.ok()) << whole.ToString();
  EXPECT_TRUE(decoded == original);
}

// A frame may end with blocks that decode to nothing; LZ4F stops before them when the output is
// full, and the decompressor still reads the frame to its end (decompress_fuzz found it refused).
TEST(CompressionFormatTest, ReadsEmptyBlocksAfterTheOutputIsFull) {
  auto decompressor = Decompressor::Make(CompressionCodec::kLz4Frame).ValueOrDie();
  // Magic, FLG (dictionary id, so through LZ4F), BD, dictionary id, header checksum; a 1-byte
  // compressed block holding an empty sequence; the end mark.
  const uint8_t empty_block[] = {0x04, 0x22, 0x4d, 0x18, 0x61, 0x40, 0x86, 0x01, 0x00, 0x00,
                                 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00};
  uint8_t nothing = 0;
  const Status status = decompressor->Decompress(empty_block, sizeof(empty_block), &nothing, 0);
  EXPECT_TRUE(status.ok()) << status.ToString();
  // A frame of 300 bytes read as 200: the bytes past the output are Corrupt, not dropped.
  const std::vector<uint8_t> original = MakeBytes(Content::kText, 300, 4);
  LZ4F_preferences_t preferences = {};
  preferences.frameInfo.contentChecksumFlag = LZ4F_contentChecksumEnabled;
  std::vector<uint8_t> compressed(LZ4F_compressFrameBound(original.size(), &preferences));
  const size_t size = LZ4F_compressFrame(compressed.data(), compressed.size(), original.data(),
                                         original.size(), &preferences);
  ASSERT_FALSE(LZ4F_isError(size));
  std::vector<uint8_t> decoded(200);
  EXPECT_TRUE(
      decompressor->Decompress(compressed.data(), static_cast<int64_t>(size), decoded.data(), 200)
          .IsCorrupt());
}

TEST(CompressionFormatTest, ZstdFramesInteroperateWithTheSimpleApi) {
  auto compressor = Compressor::Make(CompressionCodec::kZstd, 3).ValueOrDie();
  auto decompressor = Decompressor::Make(CompressionCodec::kZstd).ValueOrDie();
  const std::vector<uint8_t> original = MakeBytes(Content::kIntegers, 200000, 13);

  std::vector<uint8_t> ours(ZSTD_compressBound(original.size()));
  const int64_t our_size = compressor
                               ->Compress(original.data(), static_cast<int64_t>(original.size()),
                                          ours.data(), static_cast<int64_t>(ours.size()))
                               .ValueOrDie();
  EXPECT_EQ(ZSTD_getFrameContentSize(ours.data(), static_cast<size_t>(our_size)), original.size());
  std::vector<uint8_t> decoded(original.size());
  EXPECT_EQ(
      ZSTD_decompress(decoded.data(), decoded.size(), ours.data(), static_cast<size_t>(our_size)),
      original.size());
  EXPECT_TRUE(decoded == original);

  // A frame with a checksum and, in a second one, no recorded content size.
  std::vector<uint8_t> theirs(ZSTD_compressBound(original.size()));
  ZSTD_CCtx* context = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 1);
  for (int content_size_flag : {1, 0}) {
    ZSTD_CCtx_setParameter(context, ZSTD_c_contentSizeFlag, content_size_flag);
    const size_t size =
        ZSTD_compress2(context, theirs.data(), theirs.size(), original.data(), original.size());
    ASSERT_FALSE(ZSTD_isError(size));
    std::fill(decoded.begin(), decoded.end(), 0);
    const Status status =
        decompressor->Decompress(theirs.data(), static_cast<int64_t>(size), decoded.data(),
                                 static_cast<int64_t>(decoded.size()));
    EXPECT_TRUE(status.ok()) << status.ToString();
    EXPECT_TRUE(decoded == original);
    // Without a recorded size, a wrong expected size is still caught while decoding.
    EXPECT_TRUE(decompressor
                    ->Decompress(theirs.data(), static_cast<int64_t>(size), decoded.data(),
                                 static_cast<int64_t>(decoded.size() - 1))
                    .IsCorrupt());
  }
  ZSTD_freeCCtx(context);
}

// ---- Factories and names ---------------------------------------------------------------------

TEST(CompressionFactoryTest, NoneHasNoContexts) {
  const auto compressor = Compressor::Make(CompressionCodec::kNone);
  EXPECT_TRUE(compressor.status().IsInvalid());
  EXPECT_NE(compressor.status().message().find("none"), std::string::npos);
  EXPECT_TRUE(Decompressor::Make(CompressionCodec::kNone).status().IsInvalid());
}

TEST(CompressionFactoryTest, RejectsZstdLevelsOutOfRange) {
  for (int level : {-5, 0, 23, 100}) {
    const auto compressor = Compressor::Make(CompressionCodec::kZstd, level);
    EXPECT_TRUE(compressor.status().IsInvalid()) << level;
    EXPECT_NE(compressor.status().message().find(std::to_string(level)), std::string::npos);
  }
  for (int level : {1, 3, 19, 22}) {
    EXPECT_TRUE(Compressor::Make(CompressionCodec::kZstd, level).ok()) << level;
  }
  // Other codecs ignore the level.
  EXPECT_TRUE(Compressor::Make(CompressionCodec::kLz4Frame, 0).ok());
}

TEST(CompressionFactoryTest, RejectsUnknownCodecValues) {
  const auto codec = static_cast<CompressionCodec>(42);
  EXPECT_TRUE(Compressor::Make(codec).status().IsInvalid());
  EXPECT_TRUE(Decompressor::Make(codec).status().IsInvalid());
}

TEST(CompressionCodecNameTest, NamesEveryCodec) {
  EXPECT_EQ(CompressionCodecName(CompressionCodec::kNone), "none");
  EXPECT_EQ(CompressionCodecName(CompressionCodec::kLz4Frame), "lz4");
  EXPECT_EQ(CompressionCodecName(CompressionCodec::kZstd), "zstd");
  for (CompressionCodec codec :
       {CompressionCodec::kNone, CompressionCodec::kLz4Frame, CompressionCodec::kZstd}) {
    int level = -1;
    EXPECT_EQ(*ParseCompressionCodec(CompressionCodecName(codec), &level), codec);
    EXPECT_EQ(level, -1);
  }
}

TEST(CompressionCodecNameTest, ParsesCodecsAndLevels) {
  struct Case {
    const char* text;
    CompressionCodec codec;
    int level;  // -1: none given
  };
  const Case cases[] = {
      {"none", CompressionCodec::kNone, -1},          {"lz4", CompressionCodec::kLz4Frame, -1},
      {"lz4_frame", CompressionCodec::kLz4Frame, -1}, {"LZ4", CompressionCodec::kLz4Frame, -1},
      {"zstd", CompressionCodec::kZstd, -1},          {"ZSTD", CompressionCodec::kZstd, -1},
      {"zstd:1", CompressionCodec::kZstd, 1},         {"zstd:6", CompressionCodec::kZstd, 6},
      {"zstd:22", CompressionCodec::kZstd, 22},       {"zstd:03", CompressionCodec::kZstd, 3}};
  for (const Case& test_case : cases) {
    int level = -1;
    const auto codec = ParseCompressionCodec(test_case.text, &level);
    ASSERT_TRUE(codec.ok()) << test_case.text << ": " << codec.status().ToString();
    EXPECT_EQ(*codec, test_case.codec) << test_case.text;
    EXPECT_EQ(level, test_case.level) << test_case.text;
  }
  EXPECT_EQ(*ParseCompressionCodec("zstd:9", nullptr), CompressionCodec::kZstd);
}

TEST(CompressionCodecNameTest, RejectsBadTextNamingIt) {
  for (const char* text : {"",         "gzip",
                           "lz4hc",    "lz",
                           "zstd:",    "zstd:0",
                           "zstd:23",  "zstd:-1",
                           "zstd:+3",  "zstd: 3",
                           "zstd:3 ",  "zstd:3x",
                           "zstd:abc", "zstd:99999999999999999999",
                           "zstd:1:2", "lz4:1",
                           "snappy",   "snappy:1",
                           "none:0",   " lz4"}) {
    int level = -1;
    const auto codec = ParseCompressionCodec(text, &level);
    ASSERT_FALSE(codec.ok()) << "'" << text << "'";
    EXPECT_TRUE(codec.status().IsInvalid());
    EXPECT_NE(codec.status().message().find(std::string("'") + text + "'"), std::string::npos)
        << codec.status().message();
    EXPECT_EQ(level, -1) << "the level is left alone on failure: '" << text << "'";
  }
}

// Snappy segments carried a codec id of Sluice's own (100); Arrow Java reads an unknown codec id
// as uncompressed and returned the compressed bytes as values. The codec is refused by name.
TEST(CompressionCodecNameTest, SnappyIsRefusedWithTheReason) {
  const auto codec = ParseCompressionCodec("snappy", nullptr);
  ASSERT_FALSE(codec.ok());
  EXPECT_NE(codec.status().message().find("LZ4_FRAME and ZSTD"), std::string::npos)
      << codec.status().message();
}

}  // namespace
}  // namespace sluice
