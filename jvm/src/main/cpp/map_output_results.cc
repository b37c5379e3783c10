#include "map_output_results.h"

#include <vector>

#include "native_slots.h"

namespace sluice::jni {

Status ReturnMapOutput(JNIEnv* env, const MapOutput& output, jlongArray lengths,
                       jlongArray checksums, jlongArray metrics) {
  const auto partition_count = static_cast<jsize>(output.lengths.size());
  if (env->GetArrayLength(lengths) != partition_count) {
    return Status::Invalid("Finish: ", partition_count, " partitions, lengths array differs");
  }
  env->SetLongArrayRegion(lengths, 0, partition_count,
                          reinterpret_cast<const jlong*>(output.lengths.data()));
  if (!output.checksums.empty() && checksums != nullptr &&
      env->GetArrayLength(checksums) == partition_count) {
    std::vector<jlong> values(output.checksums.begin(), output.checksums.end());
    env->SetLongArrayRegion(checksums, 0, partition_count, values.data());
  }
  const MapWriterMetrics& m = output.metrics;
  jlong values[kWriteMetricSlots] = {};
  values[kWriteOutputBytes] = m.output_bytes;
  values[kWriteSpills] = m.spills;
  values[kWriteSpillBytes] = m.spill_bytes;
  values[kWriteBlocks] = m.blocks;
  values[kWriteRows] = m.rows;
  values[kWriteWriteNanos] = m.write_nanos;
  values[kWriteTotalNanos] = m.total_nanos;
  env->SetLongArrayRegion(metrics, 0, kWriteMetricSlots, values);
  return Status::OK();
}

}  // namespace sluice::jni
