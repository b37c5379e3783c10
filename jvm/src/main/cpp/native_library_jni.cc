// The library's identity: lets the JVM check that the library it loaded answers.
#include <jni.h>

#include "sluice/row/spark_type.h"
#include "jni_bridge.h"

extern "C" {

JNIEXPORT jstring JNICALL Java_org_apache_spark_shuffle_sluice_SluiceNative_version(JNIEnv* env,
                                                                                     jclass) {
  return env->NewStringUTF("sluice 0.1.0");
}

/// Parses a Spark catalog string and returns it as Sluice reads it back, or throws when Sluice
/// cannot carry the type; the plugin asks this on the driver before choosing Sluice for a shuffle.
JNIEXPORT jstring JNICALL Java_org_apache_spark_shuffle_sluice_SluiceNative_checkSchema(
    JNIEnv* env, jclass, jstring catalog_string) {
  const std::string text = sluice::jni::ToString(env, catalog_string);
  auto schema = sluice::SchemaFromSparkCatalogString(text);
  if (!schema.ok()) {
    sluice::jni::ThrowStatus(env, schema.status());
    return nullptr;
  }
  sluice::Status checked = sluice::CheckSparkSchema(**schema);
  if (!checked.ok()) {
    sluice::jni::ThrowStatus(env, checked);
    return nullptr;
  }
  return env->NewStringUTF(text.c_str());
}

}  // extern "C"
