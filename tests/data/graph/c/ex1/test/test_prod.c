#include "prod.h"

int test_find(void) {
  return find_it(3);
}
