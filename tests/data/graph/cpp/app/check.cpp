enum Status { OK, FAILED };

bool check(const char* what, const char* expected, const char* found, bool echo = true) {
  return expected == found;
}

bool check(const char* what, Status expected, Status found, bool echo = true) {
  return check(what, "a", "b", echo);
}

bool check(const char* what, bool expected, bool found, bool echo = true) {
  return expected == found;
}

template <class T> bool check(const char* what, T expected, T found, bool echo = true) {
  return expected == found;
}

int run_checks() {
  Status result = FAILED;
  check("cast", (int)OK, result);  // int cannot become a Status, nor deduce T twice: the bool one
  unsigned v = 3;
  check("functional cast", unsigned(100), v, true);  // T = unsigned
  if (v) {
    Status result = OK;  // declared again in a block, of the same type
    check("again", result, result);
  }
  return 0;
}

struct Printer {
  const char* text() { return "x"; }
};

int print_checks() {
  Printer p;
  return check("text", p.text(), p.text());  // what text() returns: the const char* one
}
