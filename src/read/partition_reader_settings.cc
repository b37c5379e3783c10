#include "sluice/read/partition_reader_settings.h"

#include <charconv>
#include <limits>
#include <string>

#include "sluice/base/boolean_text.h"
#include "sluice/base/byte_size.h"

namespace sluice {

namespace {

Result<int64_t> ParseCount(std::string_view key, std::string_view text, int64_t minimum,
                           int64_t maximum) {
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    return Status::Invalid("setting '", key, "': '", text, "' is not an integer");
  }
  if (value < minimum || value > maximum) {
    return Status::Invalid("setting '", key, "': ", value, " is outside [", minimum, ", ", maximum,
                           "]");
  }
  return value;
}

Result<int64_t> ParseSize(std::string_view key, std::string_view text) {
  auto bytes = ParseByteSize(text);
  if (!bytes.ok()) return bytes.status().WithContext("setting '" + std::string(key) + "'");
  if (*bytes < 1) return Status::Invalid("setting '", key, "' must be a positive size");
  return *bytes;
}

Result<bool> ParseFlag(std::string_view key, std::string_view text) {
  auto flag = ParseBoolean(text);
  if (!flag.ok()) return flag.status().WithContext("setting '" + std::string(key) + "'");
  return *flag;
}

}  // namespace

Status ApplyPartitionReaderSetting(PartitionReaderSettings* settings, std::string_view key,
                                   std::string_view value) {
  PartitionReaderOptions& options = settings->options;
  constexpr int64_t kMaxInt32 = std::numeric_limits<int32_t>::max();
  if (key == "coalesce") {
    SLUICE_ASSIGN_OR_RAISE(options.coalesce, ParseFlag(key, value));
  } else if (key == "batch-rows") {
    SLUICE_ASSIGN_OR_RAISE(options.target_batch_rows,
                           ParseCount(key, value, 1, std::numeric_limits<int64_t>::max()));
  } else if (key == "batch-bytes") {
    SLUICE_ASSIGN_OR_RAISE(options.target_batch_bytes, ParseSize(key, value));
  } else if (key == "read-ahead") {
    SLUICE_ASSIGN_OR_RAISE(int64_t batches, ParseCount(key, value, 0, kMaxInt32));
    options.read_ahead_batches = static_cast<int32_t>(batches);
  } else if (key == "max-read-bytes") {
    SLUICE_ASSIGN_OR_RAISE(options.max_read_bytes, ParseSize(key, value));
  } else if (key == "pooled-read-bytes") {
    auto bytes = ParseByteSize(value);
    if (!bytes.ok() || *bytes < 0) {
      return Status::Invalid("setting 'pooled-read-bytes': '", value,
                             "' is not a byte size of zero or more");
    }
    options.pooled_read_bytes = *bytes;
  } else if (key == "partitions") {
    SLUICE_ASSIGN_OR_RAISE(int64_t count, ParseCount(key, value, 1, kMaxInt32));
    options.partition_count = static_cast<int32_t>(count);
  } else if (key == "skip-failed") {
    SLUICE_ASSIGN_OR_RAISE(options.skip_failed_sources, ParseFlag(key, value));
  } else if (key == "validate-utf8") {
    SLUICE_ASSIGN_OR_RAISE(options.validate_utf8, ParseFlag(key, value));
  } else if (key == "max-block-bytes") {
    SLUICE_ASSIGN_OR_RAISE(options.decoder.max_block_bytes, ParseSize(key, value));
  } else if (key == "checksum") {
    auto algorithm = ParseChecksumAlgorithm(value);
    if (!algorithm.ok()) return algorithm.status().WithContext("setting 'checksum'");
    settings->verify_checksum = *algorithm;
  } else {
    return Status::Invalid(
        "unknown reader setting '", key,
        "' (known: coalesce, batch-rows, batch-bytes, read-ahead, max-read-bytes, "
        "pooled-read-bytes, partitions, skip-failed, validate-utf8, max-block-bytes, checksum)");
  }
  return Status::OK();
}

}  // namespace sluice
