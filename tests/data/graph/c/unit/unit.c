#define UNIT_INCLUDE_STUBS
#include "unit.h"

void unit_run(void) {
  setUp();
  unit_color();
}
