#include "sluice/partition/partitioner.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "partition/partitioner_internal.h"

namespace sluice {

namespace internal {

Result<KeyColumns> KeyColumns::Make(std::vector<int> indices, const Schema& schema,
                                    std::string_view role) {
  KeyColumns keys;
  keys.role_ = std::string(role);
  for (const int index : indices) {
    if (index < 0 || static_cast<size_t>(index) >= schema.num_fields()) {
      return Status::Invalid(role, " column ", index, " does not exist: the schema has ",
                             schema.num_fields(), " columns");
    }
    keys.types_.push_back(schema.field(static_cast<size_t>(index)).type);
  }
  keys.indices_ = std::move(indices);
  return keys;
}

Status KeyColumns::Check(const RecordBatch& batch) const {
  for (size_t k = 0; k < indices_.size(); ++k) {
    const int index = indices_[k];
    if (static_cast<size_t>(index) >= batch.num_columns()) {
      return Status::Invalid(role_, " column ", index, " does not exist: the batch has ",
                             batch.num_columns(), " columns");
    }
    const ArrayData& column = batch.column(static_cast<size_t>(index));
    if (column.type != types_[k].get() && !column.type->Equals(*types_[k])) {
      return Status::Invalid(role_, " column ", index, " has type ", column.type->ToString(),
                             " but the partitioner was made for ", types_[k]->ToString());
    }
    if (column.length != batch.num_rows()) {
      return Status::Invalid(role_, " column ", index, " has ", column.length,
                             " rows but the batch has ", batch.num_rows());
    }
  }
  return Status::OK();
}

namespace {

// Every row to partition 0: Spark's SinglePartition.
class SinglePartitioner final : public Partitioner {
 public:
  PartitionKind kind() const override { return PartitionKind::kSingle; }
  int32_t partition_count() const override { return 1; }
  Status Partition(const RecordBatch& batch, uint32_t* partition_ids) override {
    std::fill(partition_ids, partition_ids + batch.num_rows(), 0u);
    return Status::OK();
  }
};

// Ids computed by the host in an Int32 column, checked and copied.
class GivenPartitioner final : public Partitioner {
 public:
  GivenPartitioner(KeyColumns keys, int32_t partition_count)
      : keys_(std::move(keys)), partition_count_(partition_count) {}

  PartitionKind kind() const override { return PartitionKind::kGiven; }
  int32_t partition_count() const override { return partition_count_; }

  Status Partition(const RecordBatch& batch, uint32_t* partition_ids) override {
    SLUICE_RETURN_NOT_OK(keys_.Check(batch));
    const int column_index = keys_.indices()[0];
    const ArrayData& column = batch.column(static_cast<size_t>(column_index));
    const int64_t rows = batch.num_rows();
    if (column.null_count != 0) {
      for (int64_t row = 0; row < rows; ++row) {
        if (column.IsNull(row)) {
          return Status::Invalid("partition id column ", column_index, " is null at row ", row,
                                 ": every row needs a partition id");
        }
      }
    }
    const int32_t* ids = column.values<int32_t>();
    const auto limit = static_cast<uint32_t>(partition_count_);
    // One pass that copies and remembers whether any id was out of range (negative ids become
    // large unsigned values); the failing row is looked for only when there is one.
    uint32_t out_of_range = 0;
    for (int64_t row = 0; row < rows; ++row) {
      const auto id = static_cast<uint32_t>(ids[row]);
      partition_ids[row] = id;
      out_of_range |= static_cast<uint32_t>(id >= limit);
    }
    if (out_of_range != 0) {
      for (int64_t row = 0; row < rows; ++row) {
        if (static_cast<uint32_t>(ids[row]) >= limit) {
          return Status::Invalid("partition id ", ids[row], " at row ", row, " of column ",
                                 column_index, " is outside [0, ", partition_count_, ")");
        }
      }
    }
    return Status::OK();
  }

 private:
  KeyColumns keys_;
  int32_t partition_count_;
};

}  // namespace

Result<std::unique_ptr<Partitioner>> MakeSinglePartitioner(const PartitionerOptions& options) {
  if (options.partition_count != 0 && options.partition_count != 1) {
    return Status::Invalid("single partitioning has one partition, but partition_count is ",
                           options.partition_count);
  }
  return std::unique_ptr<Partitioner>(std::make_unique<SinglePartitioner>());
}

Result<std::unique_ptr<Partitioner>> MakeGivenPartitioner(const PartitionerOptions& options,
                                                          const Schema& schema) {
  if (options.partition_count < 1) {
    return Status::Invalid("partition_count must be at least 1, got ", options.partition_count);
  }
  if (options.key_columns.size() != 1) {
    return Status::Invalid(
        "given partitioning needs exactly one key column (the Int32 partition "
        "ids), got ",
        options.key_columns.size());
  }
  SLUICE_ASSIGN_OR_RAISE(KeyColumns keys,
                         KeyColumns::Make(options.key_columns, schema, "partition id"));
  if (keys.types()[0]->id() != TypeId::kInt32) {
    return Status::Invalid("partition id column ", keys.indices()[0], " must be int32, got ",
                           keys.types()[0]->ToString());
  }
  return std::unique_ptr<Partitioner>(
      std::make_unique<GivenPartitioner>(std::move(keys), options.partition_count));
}

}  // namespace internal

Result<std::unique_ptr<Partitioner>> MakePartitioner(const PartitionerOptions& options,
                                                     const Schema& schema) {
  switch (options.kind) {
    case PartitionKind::kHash:
      return internal::MakeHashPartitioner(options, schema);
    case PartitionKind::kRange:
      return internal::MakeRangePartitioner(options, schema);
    case PartitionKind::kRoundRobin:
      return internal::MakeRoundRobinPartitioner(options, schema);
    case PartitionKind::kSingle:
      return internal::MakeSinglePartitioner(options);
    case PartitionKind::kGiven:
      return internal::MakeGivenPartitioner(options, schema);
  }
  return Status::Invalid("unknown partition kind ", static_cast<int>(options.kind));
}

std::string_view PartitionKindName(PartitionKind kind) {
  switch (kind) {
    case PartitionKind::kHash:
      return "hash";
    case PartitionKind::kRange:
      return "range";
    case PartitionKind::kRoundRobin:
      return "round-robin";
    case PartitionKind::kSingle:
      return "single";
    case PartitionKind::kGiven:
      return "given";
  }
  return "unknown";
}

Result<PartitionKind> ParsePartitionKind(std::string_view name) {
  for (const PartitionKind kind :
       {PartitionKind::kHash, PartitionKind::kRange, PartitionKind::kRoundRobin,
        PartitionKind::kSingle, PartitionKind::kGiven}) {
    if (name == PartitionKindName(kind)) return kind;
  }
  return Status::Invalid("unknown partitioning '", name,
                         "': expected hash, range, round-robin, single or given");
}

std::string_view RoundRobinModeName(RoundRobinMode mode) {
  switch (mode) {
    case RoundRobinMode::kSpark:
      return "spark";
    case RoundRobinMode::kRowHash:
      return "row-hash";
    case RoundRobinMode::kSparkSorted:
      return "spark-sorted";
  }
  return "unknown";
}

Result<RoundRobinMode> ParseRoundRobinMode(std::string_view name) {
  if (name == "spark") return RoundRobinMode::kSpark;
  if (name == "row-hash") return RoundRobinMode::kRowHash;
  if (name == "spark-sorted") return RoundRobinMode::kSparkSorted;
  return Status::Invalid("unknown round-robin mode '", name,
                         "': expected spark, row-hash or spark-sorted");
}

Result<SortOrder> ParseSortOrder(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  SortOrder order;
  std::string_view rest = lower;
  if (rest.starts_with("asc")) {
    order = {SortDirection::kAscending, NullOrdering::kNullsFirst};
    rest.remove_prefix(3);
  } else if (rest.starts_with("desc")) {
    order = {SortDirection::kDescending, NullOrdering::kNullsLast};
    rest.remove_prefix(4);
  } else {
    return Status::Invalid("unknown sort order '", text,
                           "': expected asc or desc, optionally with nulls first or nulls last");
  }
  if (rest == " nulls first") {
    order.null_ordering = NullOrdering::kNullsFirst;
  } else if (rest == " nulls last") {
    order.null_ordering = NullOrdering::kNullsLast;
  } else if (!rest.empty()) {
    return Status::Invalid("unknown sort order '", text,
                           "': expected asc or desc, optionally with nulls first or nulls last");
  }
  return order;
}

}  // namespace sluice
