#include "sluice/ipc/compact_segment_encoder.h"

#include <utility>
#include <vector>

#include "sluice/base/stopwatch.h"
#include "sluice/ipc/batch_concatenator.h"
#include "sluice/ipc/compact_segment.h"
#include "sluice/ipc/ipc_format.h"
#include "sluice/ipc/segment_decoder.h"

namespace sluice {

class CompactSegmentEncoder::Impl {
 public:
  Status Init(SchemaPtr schema, const SegmentEncoderOptions& options) {
    if (options.codec == CompressionCodec::kNone) {
      return Status::Invalid("compact segments need a codec (lz4 or zstd)");
    }
    SegmentEncoderOptions plain_options = options;
    plain_options.codec = CompressionCodec::kNone;
    SLUICE_ASSIGN_OR_RAISE(plain_, SegmentEncoder::Make(schema, plain_options));
    SLUICE_ASSIGN_OR_RAISE(merged_, SegmentEncoder::Make(schema, plain_options));
    SLUICE_ASSIGN_OR_RAISE(compressed_, SegmentEncoder::Make(schema, options));
    SLUICE_ASSIGN_OR_RAISE(compressor_, Compressor::Make(options.codec, options.compression_level));
    const std::span<const uint8_t> schema_message = plain_->schema_message();
    SLUICE_ASSIGN_OR_RAISE(
        schema_compressor_,
        Compressor::Make(options.codec, options.compression_level, schema_message));
    schema_dictionary_ = CompactSegmentDictionary::Of(schema_message);
    codec_ = options.codec;
    compression_level_ = options.compression_level;
    SLUICE_ASSIGN_OR_RAISE(concatenator_, BatchConcatenator::Make(std::move(schema)));
    return Status::OK();
  }

  SegmentEncoder* plain_encoder() { return plain_.get(); }
  int64_t compress_nanos() const { return compress_nanos_ + compressed_->metrics().compress_nanos; }

  Status AppendSegment(std::span<const std::span<const uint8_t>> messages,
                       CompactSegmentSchema schema_form, AlignedBuffer* out) {
    stream_.Clear();
    const std::span<const uint8_t> schema = plain_->schema_message();
    stream_.Append(schema.data(), static_cast<int64_t>(schema.size()));
    if (messages.size() == 1) {
      SLUICE_RETURN_NOT_OK(CheckAligned(messages[0]));
      stream_.Append(messages[0].data(), static_cast<int64_t>(messages[0].size()));
    } else {
      SLUICE_RETURN_NOT_OK(DecodePieces(messages));
      std::vector<const RecordBatch*> pieces;
      pieces.reserve(batches_.size());
      for (const RecordBatch& batch : batches_) pieces.push_back(&batch);
      SLUICE_ASSIGN_OR_RAISE(RecordBatch merged, concatenator_->Concatenate(pieces));
      batches_.clear();
      SLUICE_RETURN_NOT_OK(merged_->AppendRecordBatch(merged, &stream_));
    }
    stream_.Append(ipc::kEndOfStream.data(), static_cast<int64_t>(ipc::kEndOfStream.size()));

    const int64_t start = out->size();
    Compressor* compressor = compressor_.get();
    if (schema_form == CompactSegmentSchema::kReferred) {
      AppendDictionaryReference(schema_dictionary_, out);
      compressor = schema_compressor_.get();
    } else if (schema_form == CompactSegmentSchema::kGiven) {
      MakeGivenSchemaCompressor();
      AppendDictionaryReference(given_dictionary_, out);
      compressor =
          given_compressor_ != nullptr ? given_compressor_.get() : schema_compressor_.get();
    }
    const int64_t frame_start = out->size();
    const int64_t bound = compressor->MaxCompressedSize(stream_.size());
    uint8_t* frame = out->AppendUninitialized(bound);
    const auto compress_start = SteadyClock::now();
    Result<int64_t> written = compressor->Compress(stream_.data(), stream_.size(), frame, bound);
    compress_nanos_ += NanosSince(compress_start);
    if (!written.ok()) {
      out->Resize(start);
      return written.status();
    }
    out->Resize(frame_start + *written);
    return Status::OK();
  }

  Status AppendCompressed(std::span<const std::span<const uint8_t>> messages, AlignedBuffer* out) {
    SLUICE_RETURN_NOT_OK(DecodePieces(messages));
    Status status;
    for (const RecordBatch& batch : batches_) {
      status = compressed_->AppendRecordBatch(batch, out);
      if (!status.ok()) break;
    }
    batches_.clear();
    return status;
  }

 private:
  // Makes the compressor against the given-schema dictionary at the first kGiven segment (a
  // writer whose readers are not given the schema never pays for the template). Where the
  // template cannot be made, kGiven segments refer to the Schema message alone, which readers
  // given the schema know as well: given_compressor_ stays null.
  void MakeGivenSchemaCompressor() {
    if (given_made_) return;
    given_made_ = true;
    given_dictionary_ = schema_dictionary_;
    AlignedBuffer dictionary;
    if (!AppendGivenSchemaDictionary(plain_->schema(), &dictionary).ok()) return;
    const std::span<const uint8_t> bytes(dictionary.data(), static_cast<size_t>(dictionary.size()));
    Result<std::unique_ptr<Compressor>> compressor =
        Compressor::Make(codec_, compression_level_, bytes);
    if (!compressor.ok()) return;
    given_compressor_ = std::move(*compressor);
    given_dictionary_ = CompactSegmentDictionary::Of(bytes);
  }

  static Status CheckAligned(std::span<const uint8_t> message) {
    if (message.size() % ipc::kBufferAlignment == 0) return Status::OK();
    return Status::Invalid("a plain RecordBatch message of ", message.size(),
                           " bytes, not a multiple of 8");
  }

  // Decodes `messages` into batches_, which view pieces_ until they are cleared.
  Status DecodePieces(std::span<const std::span<const uint8_t>> messages) {
    batches_.clear();
    pieces_.Clear();
    const std::span<const uint8_t> schema = plain_->schema_message();
    pieces_.Append(schema.data(), static_cast<int64_t>(schema.size()));
    for (const std::span<const uint8_t> message : messages) {
      SLUICE_RETURN_NOT_OK(CheckAligned(message));
      pieces_.Append(message.data(), static_cast<int64_t>(message.size()));
    }
    pieces_.Append(ipc::kEndOfStream.data(), static_cast<int64_t>(ipc::kEndOfStream.size()));
    SLUICE_RETURN_NOT_OK(
        decoder_.Begin(pieces_.data(), pieces_.size(), nullptr, "the plain pieces of a partition"));
    while (true) {
      SLUICE_ASSIGN_OR_RAISE(std::optional<RecordBatch> batch, decoder_.Next());
      if (!batch.has_value()) return Status::OK();
      batches_.push_back(std::move(*batch));
    }
  }

  std::unique_ptr<SegmentEncoder> plain_;   // the writer's, bound to its held batches
  std::unique_ptr<SegmentEncoder> merged_;  // encodes merged batches (binding each in turn)
  std::unique_ptr<SegmentEncoder> compressed_;
  std::unique_ptr<Compressor> compressor_;
  std::unique_ptr<Compressor> schema_compressor_;  // against the Schema message
  CompactSegmentDictionary schema_dictionary_;
  bool given_made_ = false;
  std::unique_ptr<Compressor> given_compressor_;  // against the given-schema dictionary
  CompactSegmentDictionary given_dictionary_;     // what kGiven segments name
  CompressionCodec codec_ = CompressionCodec::kNone;
  int compression_level_ = 1;
  std::unique_ptr<BatchConcatenator> concatenator_;
  SegmentDecoder decoder_;
  AlignedBuffer pieces_;  // plain pieces as one stream, for the decoder
  AlignedBuffer stream_;  // the plain stream a compact segment's frame holds
  std::vector<RecordBatch> batches_;
  int64_t compress_nanos_ = 0;
};

CompactSegmentEncoder::CompactSegmentEncoder(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CompactSegmentEncoder::~CompactSegmentEncoder() = default;

Result<std::unique_ptr<CompactSegmentEncoder>> CompactSegmentEncoder::Make(
    SchemaPtr schema, const SegmentEncoderOptions& options) {
  auto impl = std::make_unique<Impl>();
  SLUICE_RETURN_NOT_OK(impl->Init(std::move(schema), options));
  return std::unique_ptr<CompactSegmentEncoder>(new CompactSegmentEncoder(std::move(impl)));
}

SegmentEncoder* CompactSegmentEncoder::plain_encoder() {
  return impl_->plain_encoder();
}
Status CompactSegmentEncoder::AppendSegment(std::span<const std::span<const uint8_t>> messages,
                                            CompactSegmentSchema schema_form, AlignedBuffer* out) {
  return impl_->AppendSegment(messages, schema_form, out);
}
Status CompactSegmentEncoder::AppendCompressed(std::span<const std::span<const uint8_t>> messages,
                                               AlignedBuffer* out) {
  return impl_->AppendCompressed(messages, out);
}
int64_t CompactSegmentEncoder::compress_nanos() const {
  return impl_->compress_nanos();
}

}  // namespace sluice
