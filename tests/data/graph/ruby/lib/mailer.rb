require_relative "net/transport"

class Mailer
  def initialize
    @transport = Transport.new("smtp")
  end

  def send_it(msg)
    @transport.send_it(msg)
  end

  def run
    m = Mailer.new
    m.send_it("hi")
    r = RetryingTransport.new("backup")
    r.send_it("again")
    r.write("raw")
    self.send_it("y")
    s = "x".upcase
    s.strip
  end
end

Link = Transport

def use_alias
  link = Link.new("alias")
  link.send_it("z")
end

module Net
  class Client
    def fetch
      Net::Util.pick("a")
    end
  end
end

module Net
  class Server
    include Plugin

    def self.boot(opts)
      registry(:all)
      opts.merge!(retries: 1)
    end
  end
end
