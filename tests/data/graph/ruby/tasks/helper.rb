ROOT = File.expand_path(File.dirname(__FILE__)) + '/..'
require ROOT + '/auto/reporter'

module TaskHelpers
  def run_tests(files)
    files.each { |f| report "running #{f}" }
  end
end
