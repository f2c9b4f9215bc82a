// Message transport: an HTTP client and a logger.
#include <iostream>
#include <string>
#include "net/http.hpp"

using std::string;
using Request = net::http::Request;

namespace transport {

/// Something that can send a message.
class Sender {
public:
    virtual ~Sender() = default;
    /// Sends one message.
    virtual bool send(const string& msg) = 0;
};

/// A client for the message server.
class Client : public Sender {
public:
    explicit Client(string base) : base_(std::move(base)) {}

    bool send(const string& msg) override {
        Request req = Request::post(url("/send"), msg);
        return req.execute();
    }

    // Overloads: with and without a retry count.
    void retry(const string& msg);
    void retry(const string& msg, int times);

private:
    string url(const string& path) const { return base_ + path; }

    struct Stats {
        int sent = 0;
        void bump() { ++sent; }
    };

    string base_;
    Stats stats_;
};

struct Logger : Sender {
    bool send(const string& msg) override {
        std::cout << msg << std::endl;
        this->count();
        return true;
    }
    int count() { return ++lines; }
    int count(int by) { return lines += by; }
    int lines = 0;
};

void Client::retry(const string& msg) {
    retry(msg, 3);
}

void Client::retry(const string& msg, int times) {
    for (int i = 0; i < times && !this->send(msg); ++i) {
        stats_.bump();
    }
}

namespace detail {
int broadcast(Sender* senders[], int n, const string& msg) {
    int ok = 0;
    for (int i = 0; i < n; ++i) {
        ok += senders[i]->send(msg) ? 1 : 0;
    }
    return ok;
}
}  // namespace detail

}  // namespace transport

/// Creates a T on the heap.
template <typename T>
T* make(const string& arg) {
    return new T(arg);
}

static auto* global_client = make<transport::Client>("http://example.com");

int main() {
    auto* client = new transport::Client("http://localhost");
    transport::Logger logger;
    client->send("hello");
    logger.send("hello");
    transport::Sender* all[] = {client, &logger};
    int n = transport::detail::broadcast(all, 2, "bye");
    std::cout << n << std::endl;
    delete client;
    return 0;
}

namespace store {
template <typename T>
struct Box {
    explicit Box(T v);
    T get() const;
    T value;
};
}  // namespace store

template <typename T>
store::Box<T>::Box(T v) : value(v) {}

/// Returns the boxed value.
template <typename T>
T store::Box<T>::get() const {
    return value;
}
