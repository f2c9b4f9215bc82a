#include "unit.h"

void setUp(void) {
  unit_color();
}
