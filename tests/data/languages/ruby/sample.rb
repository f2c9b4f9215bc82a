# frozen_string_literal: true

require 'json'
require_relative 'net/http_client'
require "logger"

# Transport sends messages to a server or a log.
module Transport
  VERSION = '1.0'

  # Something that can send a message.
  module Sender
    def send_all(messages)
      messages.each { |m| deliver(m) }
    end
  end

  # A client for the message server.
  class Client
    include Sender
    attr_reader :base

    # Builds a client for the base URL.
    def initialize(base)
      @base = base
      @http = Net::HttpClient.new(base)
    end

    # Posts one message.
    def deliver(msg)
      payload = JSON.generate(text: msg)
      @http.post(url('/send'), payload)
    end

    def self.default
      new('http://localhost')
    end

    private

    def url(path)
      "#{base}#{path}"
    end
  end

  class Logger < ::Logger
    include Sender

    def deliver(msg)
      info(msg)
      self.flush
    end

    def flush
      true
    end
  end

  class << self
    def broadcast(senders, msg)
      senders.map { |s| s.deliver(msg) }.count(&:itself)
    end
  end
end

def log_line(text)
  format_line = lambda do |t|
    t.strip
  end
  puts format_line.call(text)
end

client = Transport::Client.new('http://localhost')
client.deliver 'hello'
logger = Transport::Logger.new($stdout)
logger.deliver('hello')
Transport.broadcast([client, logger], 'bye')
log_line 'done'
