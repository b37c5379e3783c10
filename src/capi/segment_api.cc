// The C API of segment encoding and decoding.
#include <cstdlib>
#include <cstring>
#include <span>

#include "api_status_internal.h"
#include "sluice/base/aligned_buffer.h"
#include "sluice/format/c_data.h"
#include "sluice/ipc/ipc_format.h"
#include "sluice/ipc/ipc_stream_reader.h"
#include "sluice/ipc/segment_encoder.h"
#include "sluice/sluice.h"

namespace sluice::capi {
namespace {

Status EncodeStream(ArrowArrayStream* input, const char* codec_text, uint8_t** out_data,
                    int64_t* out_size) {
  if (input == nullptr || out_data == nullptr || out_size == nullptr) {
    return Status::Invalid("sluice_segment_encode: input, out_data and out_size are required");
  }
  SegmentEncoderOptions options;
  if (codec_text != nullptr) {
    SLUICE_ASSIGN_OR_RAISE(options.codec,
                           ParseCompressionCodec(codec_text, &options.compression_level));
  }
  SLUICE_ASSIGN_OR_RAISE(auto reader, ImportArrayStream(input));
  SLUICE_ASSIGN_OR_RAISE(auto encoder, SegmentEncoder::Make(reader->schema(), options));
  AlignedBuffer bytes;
  const auto schema_message = encoder->schema_message();
  bytes.Append(schema_message.data(), static_cast<int64_t>(schema_message.size()));
  while (true) {
    SLUICE_ASSIGN_OR_RAISE(auto batch, reader->Next());
    if (!batch.has_value()) break;
    SLUICE_RETURN_NOT_OK(encoder->AppendRecordBatch(*batch, &bytes));
  }
  bytes.Append(ipc::kEndOfStream.data(), static_cast<int64_t>(ipc::kEndOfStream.size()));
  auto* copy = static_cast<uint8_t*>(std::malloc(static_cast<size_t>(bytes.size()) + 1));
  if (copy == nullptr) return Status::OutOfMemory("cannot allocate ", bytes.size(), " bytes");
  std::memcpy(copy, bytes.data(), static_cast<size_t>(bytes.size()));
  *out_data = copy;
  *out_size = bytes.size();
  return Status::OK();
}

struct OwnedBytes {
  AlignedBuffer bytes;
};

Status DecodeSegment(const uint8_t* data, int64_t size, const uint8_t* first, int64_t first_size,
                     ArrowArrayStream* out) {
  if (out == nullptr || (data == nullptr && size != 0) || size < 0 ||
      (first == nullptr && first_size != 0) || first_size < 0) {
    return Status::Invalid("sluice_segment_decode: bad arguments");
  }
  auto owned = std::make_shared<OwnedBytes>();
  owned->bytes.Append(data, size);
  const uint8_t* start = owned->bytes.data();
  SLUICE_ASSIGN_OR_RAISE(
      auto reader,
      IpcStreamReader::Open(start, size, owned, "segment of " + std::to_string(size) + " bytes",
                            std::span<const uint8_t>(first, static_cast<size_t>(first_size))));
  return ExportRecordBatchReader(std::move(reader), out);
}

}  // namespace
}  // namespace sluice::capi

extern "C" {

int sluice_segment_encode(struct ArrowArrayStream* input, const char* codec, uint8_t** out_data,
                          int64_t* out_size) {
  return sluice::capi::ReportGuarded("sluice_segment_encode", [&] {
    return sluice::capi::EncodeStream(input, codec, out_data, out_size);
  });
}

int sluice_segment_decode(const uint8_t* data, int64_t size, struct ArrowArrayStream* out) {
  return sluice::capi::ReportGuarded("sluice_segment_decode", [&] {
    return sluice::capi::DecodeSegment(data, size, nullptr, 0, out);
  });
}

int sluice_segment_decode_in_map_output(const uint8_t* data, int64_t size, const uint8_t* first,
                                        int64_t first_size, struct ArrowArrayStream* out) {
  return sluice::capi::ReportGuarded("sluice_segment_decode_in_map_output", [&] {
    return sluice::capi::DecodeSegment(data, size, first, first_size, out);
  });
}

}  // extern "C"
