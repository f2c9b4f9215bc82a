#include "net/transport.hpp"

namespace net {

Transport::Transport(const std::string& host) : host_(host) {}

int Transport::send(const std::string& data) {
  return write(data);
}

int Transport::write(const std::string& data) {
  return static_cast<int>(data.size() + host_.size());
}

RetryingTransport::RetryingTransport(const std::string& host) : Transport(host) {}

int RetryingTransport::send(const std::string& data) {
  if (Transport::send(data) < 0) {
    return this->write(data);
  }
  return 0;
}

}  // namespace net
