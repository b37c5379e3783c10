// The codec and level choices the codec tests run every case with.
#pragma once

#include "sluice/codec/compression.h"

namespace sluice::testing {

struct CodecCase {
  const char* name;
  CompressionCodec codec;
  int level;
};

inline constexpr CodecCase kCodecCases[] = {{"lz4", CompressionCodec::kLz4Frame, 1},
                                            {"zstd1", CompressionCodec::kZstd, 1},
                                            {"zstd6", CompressionCodec::kZstd, 6}};

}  // namespace sluice::testing
