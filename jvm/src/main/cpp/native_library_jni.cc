// The library's identity: lets the JVM check that the library it loaded answers.
#include <jni.h>

#include <cerrno>

#include "jni_bridge.h"
#include "native_slots.h"
#include "sluice/base/allocation_faults.h"
#include "sluice/io/io_fault_injection.h"
#include "sluice/row/spark_type.h"

extern "C" {

JNIEXPORT jstring JNICALL Java_org_apache_spark_shuffle_sluice_SluiceNative_version(JNIEnv* env,
                                                                                    jclass) {
  return env->NewStringUTF("sluice 0.1.0");
}

/// Parses a Spark catalog string and returns it as Sluice reads it back, or throws when Sluice
/// cannot carry the type; the plugin asks this on the driver before choosing Sluice for a shuffle.
JNIEXPORT jstring JNICALL Java_org_apache_spark_shuffle_sluice_SluiceNative_checkSchema(
    JNIEnv* env, jclass, jstring catalog_string) {
  jstring checked = nullptr;
  sluice::jni::Run(env, "checkSchema", [&] {
    const std::string text = sluice::jni::ToString(env, catalog_string);
    SLUICE_ASSIGN_OR_RAISE(sluice::SchemaPtr schema, sluice::SchemaFromSparkCatalogString(text));
    SLUICE_RETURN_NOT_OK(sluice::CheckSparkSchema(*schema));
    checked = env->NewStringUTF(text.c_str());
    return sluice::Status::OK();
  });
  return checked;
}

/// The fault tests' switch (SluiceFaults.scala): the process's next native allocations or file
/// writes fail until it is turned off again.
JNIEXPORT void JNICALL Java_org_apache_spark_shuffle_sluice_SluiceNative_injectFault(JNIEnv*,
                                                                                     jclass,
                                                                                     jint fault) {
  const bool allocation = fault == org_apache_spark_shuffle_sluice_SluiceNative_FAULT_ALLOCATION;
  const bool disk_full = fault == org_apache_spark_shuffle_sluice_SluiceNative_FAULT_DISK_FULL;
  sluice::allocation_faults::FailAllocationsAfter(allocation ? 0 : -1);
  sluice::io_faults::FailWritesAfter(disk_full ? 0 : -1, ENOSPC);
}

}  // extern "C"
