#include "sluice/write/map_writer_settings.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <string>

#include "sluice/base/byte_size.h"

namespace sluice {

namespace {

std::vector<std::string_view> SplitList(std::string_view text) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t comma = text.find(',', start);
    const size_t end = comma == std::string_view::npos ? text.size() : comma;
    std::string_view part = text.substr(start, end - start);
    while (!part.empty() && std::isspace(static_cast<unsigned char>(part.front()))) {
      part.remove_prefix(1);
    }
    while (!part.empty() && std::isspace(static_cast<unsigned char>(part.back()))) {
      part.remove_suffix(1);
    }
    if (!part.empty()) parts.push_back(part);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return parts;
}

Result<int64_t> ParseInteger(std::string_view key, std::string_view text, int64_t minimum) {
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) {
    return Status::Invalid("setting '", key, "': '", text, "' is not an integer");
  }
  if (value < minimum) {
    return Status::Invalid("setting '", key, "': ", value, " is below the minimum ", minimum);
  }
  return value;
}

Status WithKey(Status status, std::string_view key) {
  if (status.ok()) return status;
  return status.WithContext("setting '" + std::string(key) + "'");
}

}  // namespace

Result<int> ResolveColumn(const Schema& schema, std::string_view text) {
  const int by_name = schema.FieldIndex(text);
  if (by_name >= 0) return by_name;
  std::string_view digits = text;
  if (!digits.empty() && (digits.front() == 'c' || digits.front() == 'C')) digits.remove_prefix(1);
  int index = -1;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
  if (error == std::errc() && end == digits.data() + digits.size() && index >= 0 &&
      index < static_cast<int>(schema.num_fields())) {
    return index;
  }
  std::string names;
  for (const auto& field : schema.fields()) names += (names.empty() ? "" : ", ") + field.name;
  return Status::Invalid("no column '", text, "' (columns: ", names, "; or c0..c",
                         static_cast<int>(schema.num_fields()) - 1, ")");
}

Status ApplyMapWriterSetting(MapWriterOptions* options, std::string_view key,
                             std::string_view value) {
  if (key == "partitioning") {
    SLUICE_ASSIGN_OR_RAISE(options->partitioning.kind, ParsePartitionKind(value));
    return Status::OK();
  }
  if (key == "partitions") {
    SLUICE_ASSIGN_OR_RAISE(int64_t count, ParseInteger(key, value, 1));
    if (count > (int64_t{1} << 24)) {
      return Status::Invalid("setting 'partitions': ", count, " exceeds 16,777,216 (2^24)");
    }
    options->partitioning.partition_count = static_cast<int32_t>(count);
    return Status::OK();
  }
  if (key == "keys") {
    options->partitioning.key_columns.clear();
    for (std::string_view column : SplitList(value)) {
      if (options->schema == nullptr) {
        SLUICE_ASSIGN_OR_RAISE(int64_t index, ParseInteger(key, column, 0));
        options->partitioning.key_columns.push_back(static_cast<int>(index));
      } else {
        auto index = ResolveColumn(*options->schema, column);
        if (!index.ok()) return WithKey(index.status(), key);
        options->partitioning.key_columns.push_back(*index);
      }
    }
    return Status::OK();
  }
  if (key == "map-id") {
    SLUICE_ASSIGN_OR_RAISE(int64_t id, ParseInteger(key, value, 0));
    options->partitioning.map_partition_id = static_cast<int32_t>(id);
    return Status::OK();
  }
  if (key == "sort-orders") {
    options->partitioning.sort_orders.clear();
    for (std::string_view text : SplitList(value)) {
      auto order = ParseSortOrder(text);
      if (!order.ok()) return WithKey(order.status(), key);
      options->partitioning.sort_orders.push_back(*order);
    }
    return Status::OK();
  }
  if (key == "round-robin-mode") {
    auto mode = ParseRoundRobinMode(value);
    if (!mode.ok()) return WithKey(mode.status(), key);
    options->partitioning.round_robin_mode = *mode;
    return Status::OK();
  }
  if (key == "codec") {
    auto codec = ParseCompressionCodec(value, &options->encoding.compression_level);
    if (!codec.ok()) return WithKey(codec.status(), key);
    options->encoding.codec = *codec;
    return Status::OK();
  }
  if (key == "compression-threads") {
    SLUICE_ASSIGN_OR_RAISE(int64_t threads, ParseInteger(key, value, 0));
    if (threads > 1) {
      return Status::Invalid("setting 'compression-threads': ", threads,
                             " is above the maximum 1 (one background thread)");
    }
    options->compression_threads = static_cast<int32_t>(threads);
    return Status::OK();
  }
  if (key == "block-rows") {
    SLUICE_ASSIGN_OR_RAISE(options->target_block_rows, ParseInteger(key, value, 1));
    return Status::OK();
  }
  if (key == "block-bytes" || key == "memory-budget" || key == "flush-bytes") {
    auto bytes = ParseByteSize(value);
    if (!bytes.ok()) return WithKey(bytes.status(), key);
    if (key == "memory-budget") {
      options->memory_limit = *bytes;
    } else if (*bytes < 1) {
      return Status::Invalid("setting '", key, "' must be a positive size");
    } else if (key == "block-bytes") {
      options->target_block_bytes = *bytes;
    } else {
      options->file.flush_bytes = *bytes;
    }
    return Status::OK();
  }
  if (key == "max-held-bytes") {
    if (value == "auto") {
      options->max_held_bytes = MapWriterOptions::kAutoMaxHeldBytes;
      return Status::OK();
    }
    auto bytes = ParseByteSize(value);
    if (!bytes.ok()) return WithKey(bytes.status(), key);
    if (*bytes < 0) return Status::Invalid("setting 'max-held-bytes' must be auto, 0 or a size");
    options->max_held_bytes = *bytes;
    return Status::OK();
  }
  if (key == "compact-segment-bytes") {
    auto bytes = ParseByteSize(value);
    if (!bytes.ok()) return WithKey(bytes.status(), key);
    if (*bytes < 0) return Status::Invalid("setting '", key, "' must be 0 (off) or a size");
    options->compact_segment_bytes = *bytes;
    return Status::OK();
  }
  if (key == "spill-dirs") {
    options->spill_directories.clear();
    for (std::string_view directory : SplitList(value)) {
      options->spill_directories.emplace_back(directory);
    }
    return Status::OK();
  }
  if (key == "checksum") {
    auto algorithm = ParseChecksumAlgorithm(value);
    if (!algorithm.ok()) return WithKey(algorithm.status(), key);
    options->checksum = *algorithm;
    return Status::OK();
  }
  if (key == "data-path") {
    options->data_path = std::string(value);
    return Status::OK();
  }
  if (key == "index-path") {
    options->index_path = std::string(value);
    return Status::OK();
  }
  if (key == "checksum-path") {
    options->checksum_path = std::string(value);
    return Status::OK();
  }
  if (key == "spark-files" || key == "overwrite" || key == "sync" || key == "validate-utf8" ||
      key == "compact-schema-dictionary" || key == "readers-have-schema" ||
      key == "unpack-dictionaries") {
    auto flag = ParseBoolean(value);
    if (!flag.ok()) return WithKey(flag.status(), key);
    (key == "spark-files"                 ? options->write_spark_files
     : key == "overwrite"                 ? options->overwrite
     : key == "sync"                      ? options->sync
     : key == "validate-utf8"             ? options->validate_utf8
     : key == "compact-schema-dictionary" ? options->compact_schema_dictionary
     : key == "readers-have-schema"       ? options->readers_have_schema
                                          : options->unpack_dictionaries) = *flag;
    return Status::OK();
  }
  return Status::Invalid(
      "unknown map writer setting '", key,
      "' (known: partitioning, partitions, keys, map-id, round-robin-mode, "
      "codec, compression-threads, block-rows, block-bytes, memory-budget, "
      "max-held-bytes, compact-segment-bytes, compact-schema-dictionary, readers-have-schema, "
      "spill-dirs, checksum, data-path, "
      "spark-files, index-path, "
      "checksum-path, overwrite, sync, flush-bytes, validate-utf8, "
      "unpack-dictionaries)");
}

}  // namespace sluice
