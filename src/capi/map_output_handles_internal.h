// The C API's handles shared by the map-side writers: options as key-value text, and a finished
// map output.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sluice/format/record_batch.h"
#include "sluice/sluice.h"
#include "sluice/write/map_writer.h"

struct SluiceMapWriterOptions {
  // Settings are kept as text and applied when a writer opens, when the schema is known.
  std::vector<std::pair<std::string, std::string>> settings;
  sluice::RecordBatch range_bounds;
  bool has_range_bounds = false;
};

struct SluiceMapOutput {
  sluice::MapOutput output;
  // Made on the first sluice_map_output_metrics_json call.
  mutable std::string metrics_json;
};

namespace sluice::capi {

/// Runs `finish` (a writer's Finish, returning Result<MapOutput>) into a handle made before it:
/// once the output is committed, nothing that can fail for memory is left to do, so a failure
/// is never reported for an output that exists.
template <typename Finish>
Status FinishIntoHandle(Finish&& finish, SluiceMapOutput** out) {
  auto handle = std::make_unique<SluiceMapOutput>();
  SLUICE_ASSIGN_OR_RAISE(handle->output, finish());
  *out = handle.release();
  return Status::OK();
}

}  // namespace sluice::capi
