"""Ruby: ``require`` names files, ``include M`` mixes a module in, ``Foo.new``,
``super``, ``@attr``, constants naming classes, bare calls on ``self``."""

from __future__ import annotations

from .base import Language


class Ruby(Language):
    """Ruby."""

    self_dispatch = True

    name = grammar = "ruby"
    type_tests = "(if condition: (_) @cond consequence: (_) @body)"
    extensions = (".rb", ".rake", ".gemspec")
    aliases = ("rb",)
    module_functions_are_methods = True  # `def` in a `module` is a method of it
    instance_names = frozenset({"self"})
    implicit_this = True
    constructor_names = ("initialize",)
    instance_factory = "new"
    super_method_calls = frozenset({"super"})
    mixin_modules = True
    dynamic_members = True
    type_aliases_as_variables = True
    includes_files = True
    constant_paths = True
    setter_assignment_node = "assignment"
    # arity: positional parameters only; a call passing `k: v` (keywords, or an options
    # hash the method may take positionally), a splat or a block argument: unknown
    parameters_field = "parameters"
    optional_parameter_nodes = frozenset({"optional_parameter"})
    variadic_parameter_nodes = frozenset({"splat_parameter"})
    skipped_parameter_nodes = frozenset({"keyword_parameter", "block_parameter", "hash_splat_parameter",
                                         "hash_splat_nil", "comment"})
    argument_list_nodes = frozenset({"argument_list"})
    spread_argument_nodes = frozenset({"pair", "splat_argument", "hash_splat_argument", "block_argument",
                                       "forward_argument"})
    # the core classes and modules, and the standard library's most used: a constant of
    # these names that the repository does not define is Ruby's (`Regexp.escape(s)`,
    # `Mutex.new`: never a repository method called by name)
    builtin_calls = frozenset("""
    Object BasicObject Kernel Module Class Comparable Enumerable Enumerator Array Hash String
    Symbol Integer Float Numeric Rational Complex Range Regexp MatchData Proc Method
    UnboundMethod Struct Time Dir File IO Process Thread Mutex Queue SizedQueue
    ConditionVariable Fiber Signal Exception StandardError RuntimeError ArgumentError
    TypeError NameError NoMethodError KeyError IndexError IOError EOFError SystemExit
    NotImplementedError Errno Marshal ObjectSpace GC Math Random Encoding ENV ARGV STDIN
    STDOUT STDERR NilClass TrueClass FalseClass Binding Warning Logger Set URI StringIO
    Tempfile Socket TCPSocket TCPServer UNIXSocket UNIXServer OpenSSL Base64 JSON YAML Zlib
    CGI ERB Pathname FileUtils Shellwords SecureRandom Benchmark Timeout OpenStruct Date
    DateTime Etc Forwardable Singleton Monitor MonitorMixin Open3 OptionParser Ripper
    """.split())
    standard_methods = frozenset("""
    merge merge! key? has_key? value? include? member? empty? any? all? none? each each_pair
    each_key each_value each_with_index each_with_object select select! reject reject! detect
    find_all inject sum min max min_by max_by sort_by group_by partition flat_map compact
    compact! uniq uniq! flatten zip first last size length to_s to_sym to_a to_h to_i to_f
    to_str to_proc dup clone freeze frozen? nil? is_a? kind_of? instance_of? respond_to?
    public_send tap fetch dig store delete_if keep_if transform_values transform_keys invert
    sub sub! gsub gsub! chomp chop squeeze start_with? end_with? upcase downcase capitalize
    ljust rjust center scan unpack pack each_line lines chars bytes succ times upto downto
    """.split())

    def names_file(self, source: str) -> bool:
        """Always: a ``require`` names a file."""
        return True  # `require 'x'` / `require_relative 'x'`: always a file

    def fact_target(self, name: str, receiver: str) -> tuple[str, str]:
        """``@x = ...``: the attribute ``x`` of the instance."""
        if name.startswith("@") and not name.startswith("@@"):
            return name[1:], "self"
        return name, receiver


RUBY = Ruby()
