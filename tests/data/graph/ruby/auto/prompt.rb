def prompt_puts(colour, line)
  $stdout.puts "#{colour}: #{line}"
end
