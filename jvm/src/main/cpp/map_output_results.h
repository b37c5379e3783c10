// ReturnMapOutput: how a finished map task's output crosses JNI, for both writers of the plugin.
#pragma once

#include <jni.h>

#include "sluice/base/status.h"
#include "sluice/write/map_writer.h"

namespace sluice::jni {

/// Fills `lengths` (one per partition), `checksums` (one per partition; untouched when the
/// output has none) and `metrics` (the WRITE_* slots of SluiceNative) from `output`.
Status ReturnMapOutput(JNIEnv* env, const MapOutput& output, jlongArray lengths,
                       jlongArray checksums, jlongArray metrics);

}  // namespace sluice::jni
