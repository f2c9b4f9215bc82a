#include "prod.h"

int find_it(int x) {
  return x;
}
