#include <cstdint>

namespace util {

// overloads: a call goes to the one its arguments fit
void ToStr(int v, char* buf, int size) {}
void ToStr(unsigned v, char* buf, int size) {}
void ToStr(double v, char* buf, int size) {}
void ToStr(bool v, char* buf, int size) {}

void PushText(const char* text, bool cdata = false) {}
void PushText(int value) {}

bool Check(const char* what, const char* expected, const char* found, bool echo = true) { return true; }
bool Check(const char* what, int expected, int found, bool echo = true) { return true; }
template <class T> bool Check(const char* what, T expected, T found) { return true; }

void Format(int n, unsigned u, double d, bool flag) {
    char buf[32];
    ToStr(n, buf, 32);
    ToStr(u, buf, 32);
    ToStr(d, buf, 32);
    ToStr(flag, buf, 32);
    PushText("text", true);
    PushText(7);
    Check("strings", "a", "b");
    Check("numbers", 1, 2);
    Check("names", n, n, false);
    Check("unknown", Compute(), Compute());
}

template <class T, class U> bool Pair(const char* what, T a, U b) { return true; }
bool Pair(const char* what, int a, int b) { return true; }

void Deduce() {
    Check("one known", 1, Compute());
    Pair("two kinds", 1, Compute());
    PushText(Compute() ? "yes" : "no");
}

}
