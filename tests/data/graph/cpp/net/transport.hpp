#pragma once
#include <string>

namespace net {

class Transport {
 public:
  explicit Transport(const std::string& host);
  virtual ~Transport() = default;
  virtual int send(const std::string& data);
  int write(const std::string& data);

 private:
  std::string host_;
};

class RetryingTransport : public Transport {
 public:
  explicit RetryingTransport(const std::string& host);
  int send(const std::string& data) override;
};

// an unscoped enum's enumerators are names of the namespace around it
enum Status { STATUS_OK = 0, STATUS_RETRY };

}  // namespace net
