module Logging
  def log(line)
    puts line
  end
end

class Transport
  def initialize(host)
    @host = host
  end

  def send_it(data)
    write(data)
  end

  def write(data)
    data.size + @host.size
  end
end

class RetryingTransport < Transport
  include Logging

  def send_it(data)
    log(data)
    super
  end
end

module Net
  module Util
    def self.pick(name)
      name
    end
  end
end

module Net
  module Plugin
    def self.included(base)
      base.extend ClassMethods
    end

    module ClassMethods
      def registry(kind = :all)
        @registry ||= {}
      end
    end
  end

  class Options
    def merge!(other)
      other
    end
  end
end

class Endpoint
  def host=(value)
    @host = value
  end

  def host
    @host
  end

  def reset
    self.host = "localhost"
  end
end
