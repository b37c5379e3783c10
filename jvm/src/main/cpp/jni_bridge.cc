#include "jni_bridge.h"

namespace sluice::jni {

void ThrowStatus(JNIEnv* env, const Status& status) {
  if (status.ok() || env->ExceptionCheck()) return;
  jclass exception_class = env->FindClass(kExceptionClass);
  if (exception_class == nullptr) return;  // FindClass has thrown NoClassDefFoundError
  env->ThrowNew(exception_class, status.ToString().c_str());
  env->DeleteLocalRef(exception_class);
}

std::string ToString(JNIEnv* env, jstring text) {
  if (text == nullptr) return std::string();
  const char* chars = env->GetStringUTFChars(text, nullptr);
  if (chars == nullptr) return std::string();
  std::string result(chars);
  env->ReleaseStringUTFChars(text, chars);
  return result;
}

std::vector<std::string> ToStrings(JNIEnv* env, jobjectArray array) {
  std::vector<std::string> result;
  if (array == nullptr) return result;
  const jsize length = env->GetArrayLength(array);
  result.reserve(static_cast<size_t>(length));
  for (jsize i = 0; i < length; ++i) {
    auto element = static_cast<jstring>(env->GetObjectArrayElement(array, i));
    result.push_back(ToString(env, element));
    env->DeleteLocalRef(element);
  }
  return result;
}

}  // namespace sluice::jni
