#include "sluice/partition/positive_modulo.h"

namespace sluice {

void PositiveModulo::PmodInPlace(uint32_t* values, int64_t count) const {
  for (int64_t i = 0; i < count; ++i) values[i] = Pmod(static_cast<int32_t>(values[i]));
}

}  // namespace sluice
