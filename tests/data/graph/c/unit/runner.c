#include "unit.h"

void run_all(void) {
  setUp();
  unit_color();
}
