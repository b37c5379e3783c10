// JniBridge: what every JNI entry point of libsluice_jni.so shares.
//
// The Spark plugin calls Sluice through the static natives of
// org.apache.spark.shuffle.sluice.SluiceNative. Each entry point turns a failed Status into a
// Java exception (SluiceException, an IOException, carrying Sluice's message) and returns a
// neutral value; the JVM sees the exception as soon as the native method returns. Native objects
// cross the boundary as jlong handles that the JVM closes exactly once.
#pragma once

#include <jni.h>

#include <string>
#include <vector>

#include "sluice/base/failure_guard.h"
#include "sluice/base/status.h"

namespace sluice::jni {

/// The Java class every native failure is thrown as.
inline constexpr const char* kExceptionClass = "org/apache/spark/shuffle/sluice/SluiceException";

/// Throws `status` as a SluiceException ("<code>: <message>"). Does nothing for OK.
void ThrowStatus(JNIEnv* env, const Status& status);

/// Runs `body` (returning a Status) with GuardFailures, so no C++ exception reaches the JVM (a
/// failed allocation fails the task with a SluiceException instead of ending the executor), and
/// throws a failure as a SluiceException. Returns whether `body` succeeded.
template <typename Body>
bool Run(JNIEnv* env, const char* where, Body&& body) {
  const Status status = GuardFailures(where, std::forward<Body>(body));
  if (status.ok()) return true;
  ThrowStatus(env, status);
  return false;
}

/// Returns the UTF-8 contents of `text` ("" for null).
std::string ToString(JNIEnv* env, jstring text);

/// Returns the strings of `array` (empty for null).
std::vector<std::string> ToStrings(JNIEnv* env, jobjectArray array);

/// Returns the object behind a handle the JVM holds.
template <typename T>
T* FromHandle(jlong handle) {
  return reinterpret_cast<T*>(static_cast<intptr_t>(handle));
}

/// Returns the handle of `object`.
template <typename T>
jlong ToHandle(T* object) {
  return static_cast<jlong>(reinterpret_cast<intptr_t>(object));
}

}  // namespace sluice::jni
