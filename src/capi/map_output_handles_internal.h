// The C API's handles shared by the map-side writers: options as key-value text, and a finished
// map output.
#pragma once

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
  std::string metrics_json;
};

namespace sluice::capi {

/// Wraps a finished output for the C API.
SluiceMapOutput* NewMapOutputHandle(MapOutput output);

}  // namespace sluice::capi
