#include "net/transport.hpp"

using net::RetryingTransport;

class Mailer {
 public:
  int send(const std::string& msg) { return transport_->send(msg); }
  void flush() { send("bye"); }

 private:
  net::Transport* transport_ = new net::Transport("smtp");
};

static int deliver(net::Transport& t, const std::string& msg) {
  return t.send(msg);
}

int main() {
  Mailer m;
  m.send("hi");
  auto t = net::Transport("smtp");
  t.write("raw");
  RetryingTransport* r = new RetryingTransport("backup");
  r->send("again");
  deliver(t, "x");
  std::string s = "x";
  s.size();
  return 0;
}

net::Transport make_transport() { return net::Transport("smtp"); }

int use_factory() { return make_transport().send("x"); }

using Link = net::Transport;

int use_alias(Link& link) { return link.write("y"); }

// overloads told apart by an enumerator of the header's enum: the one taking the enum
bool Report(const char* what, const char* a, const char* b) { return true; }
bool Report(const char* what, net::Status a, net::Status b) { return true; }
template <class T> bool Report(const char* what, T a, T b) { return true; }

void report_all(net::Status got) {
  using namespace net;
  Report("status", STATUS_OK, got);
  Report("text", "a", "b");
}

// the repository's only `size()`: not what `items.size()` on a template's parameter calls
class Queue {
 public:
  int size() const { return 0; }
};

template <class T> int count_of(const T& items) { return items.size(); }
