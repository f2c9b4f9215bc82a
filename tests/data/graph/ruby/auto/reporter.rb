# required by a computed path: `require ROOT + '/auto/reporter'`
require "#{File.expand_path(File.dirname(__FILE__))}/prompt"

def report(message)
  prompt_puts(:green, message)
end
