HERE = File.expand_path(File.dirname(__FILE__)) + '/'
require HERE + 'helper'

include TaskHelpers

task :unit do
  run_tests Dir['test/*.rb']
end
