def top_pick(xs)
  ::Net::Util.pick(xs)
end

module Term
  class Readline
    def readline(prompt)
      ::Readline.readline(prompt, true)
    end
  end
end
