module Actions
  class EmptyDirectory
    def invoke!
      say_status :create, :green
      exists?
    end

    def say_status(status, color)
      [status, color]
    end

    def exists?
      false
    end
  end

  class InjectIntoFile < EmptyDirectory
    def say_status(behavior, warning: nil)
      [behavior, warning]
    end
  end

  class CreateFile < EmptyDirectory
    def exists?
      true
    end
  end
end
