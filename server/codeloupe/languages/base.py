"""``Language``: everything the engine knows about one language, in one object.

Extraction (``codeloupe.extract``) and call resolution (``codeloupe.graph``) never
test a language's name: they read these attributes and call these methods. A new
language is one module in this package with one subclass, added to ``LANGUAGES`` in
``languages/__init__.py`` (docs/architecture.md walks through one).

The defaults are those of a language with none of the rules: a file's top-level
names are its own, a class's methods are defined in its body, an import names a
module whose path looks like its source. A language turns a rule on by overriding
the attribute.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum
from typing import Any, Protocol

from .modules import path_matches


class ModuleFacts(StrEnum):
    """What becomes of a resolution fact (a variable and its type or value) that the
    tags query finds at a file's top level."""

    KEEP = "keep"  # a variable of the file
    DROP = "drop"  # C: every fact is a function's (a prototype's parameter, not a variable)
    DROP_PARAMETERS = "drop_parameters"  # C++: a prototype's parameters are dropped


class ImplicitClasses(StrEnum):
    """Which classes a file names without importing them (after its own)."""

    NONE = "none"  # Python: what a file uses is defined in it or imported
    UNIQUE = "unique"  # JavaScript: JSDoc names a class it does not import: the only one of that name
    NEARBY = "nearby"  # a namespace it is in or imports, a file it includes, its folder, else the only one


class MethodsApart(StrEnum):
    """Where a class's methods may be defined outside its body (Go methods, Rust
    ``impl`` blocks, C++ ``int Foo::bar() {}``)."""

    SAME_FILE = "same_file"
    SAME_FOLDER = "same_folder"  # Go: any file of the package
    ANYWHERE = "anywhere"  # Rust, C, C++


class PackageScope(StrEnum):
    """What a bare name sees of the other files of its folder without an import."""

    NONE = "none"
    CLASSES = "classes"  # Java, C#: the classes of the package
    DEFINITIONS = "definitions"  # Go: every top-level definition of the package


class ImportContext(Protocol):
    """What a language's import rule may ask of the resolver (``codeloupe.graph``
    implements it). Values are the resolver's own and opaque here: a rule returns
    what these methods give, ``external_value``, ``module(files)``, a list of symbols, or
    None (not found)."""

    external_value: Any  # the value "known to lie outside the repository"

    def module(self, files: Sequence[str]) -> Any:
        """The value of a module made of these files."""

    def module_files(self, modpath: str, exact: bool = False) -> list[str]:
        """The files of the module at this slash path (or, unless ``exact``, of a path
        ending with it)."""

    def package_files(self, source: str) -> list[str]:
        """The files of the folder an import path names (a Go package)."""

    def module_member(self, files: tuple[str, ...], name: str, depth: int) -> Any:
        """``name`` in the module made of ``files``; None when it has none."""

    def top_level(self, path: str, name: str) -> list[Any]:
        """The top-level definitions named ``name`` in one file."""

    def qualified(self, dotted: str, language: Language) -> list[Any]:
        """The definitions whose qualified name is (or ends with) this dotted name."""

    def symbols_named(self, name: str) -> list[Any]:
        """Every definition named ``name`` in the repository."""

    def namespace_defined(self, head: str) -> bool:
        """Does the repository define anything in a namespace starting with ``head``?"""

    def assigned_texts(self, path: str, name: str) -> list[str]:
        """The expressions assigned to a top-level variable of a file."""


def dotted(name: str) -> str:
    """Namespace paths in one notation: ``a::b`` and ``A\\B`` become ``a.b`` / ``A.B``."""
    return name.replace("::", ".").replace("\\", ".").strip(".")


def use_path(source: str, original: str) -> list[str]:
    """The parts of the qualified name a ``use`` / ``using`` names: ``a::b::C``, and an
    item of a ``use`` list below its prefix (``use a::{b::C as D}``: source ``a``,
    original ``b::C``)."""
    path = dotted(source)
    item = dotted(original)
    if item and item != path and not path.endswith("." + item):
        path = f"{path}.{item}"
    return [p for p in path.split(".") if p]


class Language:
    """One language's rules. Subclasses set the attributes; one instance each is
    registered in ``codeloupe.languages.LANGUAGES``."""

    # --- files and grammar ---------------------------------------------------------------
    name: str = ""  # our name, also the folder of its query under queries/
    # a compiled bytes pattern whose group 1 is a macro the grammar cannot read where it
    # stands, blanked before parsing (C++ `class TINYXML2_LIB StrPair {`: an export macro)
    blanked_macros: Any = None
    grammar: str = ""  # the name tree-sitter-language-pack knows it by
    extensions: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()  # names people type for it (``--lang js``)
    # languages whose symbols call each other (a call in a .ts file may be of a .js
    # function, C and C++ share headers); by default the language alone
    family: str = ""
    # a file stem that stands for its folder (Python ``__init__``, JS ``index``, Rust
    # ``mod``), and whether it does at the top of the repository too
    entry_stem: str | None = None
    entry_stem_at_root: bool = False

    # --- extraction ----------------------------------------------------------------------
    body_docstrings = False  # a definition's doc is the first string of its body (Python)
    module_functions_are_methods = False  # a function inside a `module` is a method (Ruby)
    module_facts = ModuleFacts.KEEP
    parameter_nodes: frozenset[str] = frozenset()  # parameter declarations (ModuleFacts.DROP_PARAMETERS)
    # arity (``extract.arity``): the field of a definition holding its parameter list
    # ("": arity unknown in the language, no call narrowed by it); parameters with a
    # default, variadic ones (``*args``, ``...T``), nodes that are no parameter (``*``,
    # ``/``); a definition wrapped in one of ``arity_opaque_parents`` (a decorator) takes
    # what its wrapper takes. A call's ``arguments`` field of one of ``argument_list_nodes``
    # counts its named children; a spread among them makes the count unknown.
    parameters_field = ""
    optional_parameter_nodes: frozenset[str] = frozenset()
    variadic_parameter_nodes: frozenset[str] = frozenset()
    varargs_are_arrays = False  # a variadic parameter's type is an array of the one written (Java `T... xs`)
    # a call's arguments wrapped one node each (C#'s `argument`: `name: value`, `ref x`)
    argument_wrapper_nodes: frozenset[str] = frozenset()
    # parameters with a default value shown by an `=` among their children (C#), not by
    # a node type of their own (``optional_parameter_nodes``)
    defaults_by_equals = False
    # a parameter modifier that makes the method callable on its first argument (C#'s
    # extension methods, `this string s`): its argument count is unknown
    receiver_parameter_modifier: str | None = None
    # a cast argument's type is its type for overloads (Java `(Object[]) row`, C++
    # `(int)XML_SUCCESS`, `unsigned(100)`)
    cast_argument_types = False
    # a number converts to an enum parameter (C); not in C++ or Java, where an
    # overload taking an enum cannot take `(int)x`
    enum_from_number = True
    this_pointer = False  # `this` is a pointer to the class (C++), not a reference to it
    skipped_parameter_nodes: frozenset[str] = frozenset()
    arity_opaque_parents: frozenset[str] = frozenset()
    argument_list_nodes: frozenset[str] = frozenset()
    spread_argument_nodes: frozenset[str] = frozenset()
    # C++: the parameter list sits in the definition's declarator (``declarator_field``,
    # followed through pointer / reference declarators); a `...` token makes it variadic
    declarator_field = ""
    variadic_tokens: frozenset[str] = frozenset()
    # overloads: functions of one name told apart by their parameter types. A call goes
    # to those its arguments fit (``resolve.narrow``): each parameter's type is a fact
    # (``ptypes``), and each argument's type as far as the call shows it (a literal's
    # node type in ``argument_literals``, a name: its declared type)
    overloads = False
    argument_literals: dict[str, str] = {}
    # Rust macros (``extract.macros``): an invocation node's call is of the macro `name!`,
    # and the calls in its token trees (this node type) are read from their tokens
    macro_invocation_node = ""
    token_tree_node = ""
    # C function-like macros (``extract.macros``): a call of one defined in the file is
    # also a call of what its body calls, from the same line (`PUT(e, c)` expanding to
    # `FLUSH(e)` and on to `yaml_emitter_flush(e)`); the query that finds the definitions
    function_macros = ""
    # every type a declaration names is a class declared somewhere (Java, C#): a plain
    # name the repository does not define, nor a type parameter, is an outside type
    closed_types = False
    # a file's declared package (a ``package`` fact) makes the package, not its folder
    # (Java: src/main/java/a/b and src/test/java/a/b are one package)
    declared_packages = False
    # C/C++ conditional compilation (``extract.preproc``): the macros a definition needs
    # (``guard`` facts) and those a file defines (``defines``): an include does not offer
    # a file a definition its translation unit leaves out
    preprocessor = False
    jsdoc = False  # `@param {T} x` / `@returns {T}` in docs are typing facts
    phpdoc = False  # `@param T $x` / `@return T` in docs are typing facts
    # an overload's class argument fits a primitive parameter only by unboxing (Java, C#)
    primitives_box_only = False
    # a query of the branches a type test guards (``extract.narrowing``: ``@cond`` the
    # condition, ``@body`` the branch it guards): `x instanceof T`, `isinstance(x, T)`…
    type_tests = ""
    type_switches = ""  # a query of Go's type switches (``@switch``): each case's alias of its type
    # an inline callback's parameters take the types of the function type it is passed
    # as (``extract.callbacks``: TypeScript)
    callback_types = False
    # tree-sitter node types for the facts of a local closure's parameters (JS/TS):
    # declarations that define one, function nodes, argument nodes worth following
    closure_declarations: frozenset[str] = frozenset()
    function_nodes: frozenset[str] = frozenset()
    argument_nodes: frozenset[str] = frozenset()
    # receivers and keywords as the resolver reads them; the resolver uses the union of
    # every language's sets (codeloupe.languages: SELF_RECEIVERS, ...), as it always has
    instance_names: frozenset[str] = frozenset()  # the instance a method runs on: `self`, `this`
    class_names: frozenset[str] = frozenset()  # the class itself: `cls`, `Self`
    self_aliases: frozenset[str] = frozenset()  # receivers read as the instance in calls: `me`
    super_receivers: frozenset[str] = frozenset()  # `super`, `base`, `parent`
    super_call_prefixes: tuple[str, ...] = ()  # `super(Cls, self)`
    untyped_declarations: frozenset[str] = frozenset()  # `var`, `auto`: a declaration without a type
    # receivers of a fact that name a constructor parameter property (TS `private x: T`)
    parameter_property_receivers: frozenset[str] = frozenset()

    # --- scopes and classes --------------------------------------------------------------
    class_body_is_scope = True  # names of a class body are seen by its methods (not in Python)
    implicit_this = False  # a bare call in a method is a call on the instance (Java, C#, C++, Ruby)
    constructor_names: tuple[str, ...] | None = None  # None: a member named like its class
    own_constructor_calls: frozenset[str] = frozenset()  # `this(...)` in a constructor
    base_constructor_calls: frozenset[str] = frozenset()  # `super(...)`, C# `base(...)`
    super_method_calls: frozenset[str] = frozenset()  # Ruby `super`: the same method in a base
    instance_factory: str | None = None  # Ruby `Foo.new`: a class method that makes an instance
    class_qualified_super = False  # C++ `Base::send()` from a method of a derived class
    methods_apart = MethodsApart.SAME_FILE
    out_of_line_methods = False  # C++ `void Foo::bar() {}` in a file without the class
    impl_blocks = False  # Rust: an `impl` block sees its type's fields and other impls
    mixin_modules = False  # Ruby: `include M` names a module, a base of the class
    # a method missing from a repository class may still exist at run time (Python, PHP,
    # Ruby): a call of it falls back to name matching
    dynamic_members = False
    # a call with a receiver may be of a plain function (JS functions set on objects,
    # Go functions of a package)
    functions_as_methods = False
    # ... but only through an imported package (Go): a call on any other receiver is
    # a method's, never a plain function's of the same name
    package_functions_imported = False
    type_aliases_as_variables = False  # `Link = Transport` (Ruby), `using Link = T;` (C++)
    # a function's type parameter is its bound (an `assign` fact of the function): Rust
    # `fn f<V: Vector<u64>>(v: &mut V)`, `where V: Vector<u64>`
    bounded_type_parameters = False
    # a type implements an interface by having its methods, named nowhere (Go)
    structural_interfaces = False
    # JS objects and prototypes: `app.set = function () {}` / `View.prototype.render = ...`
    # at a file's top level make `set` a member of `app` (``extract.expando``), with
    # these tree-sitter node types and names
    expando_members = False
    assignment_node = "assignment_expression"
    member_node = "member_expression"
    prototype_property = "prototype"  # `View.prototype.render`: a member of `View`
    proto_properties: frozenset[str] = frozenset()  # `X.__proto__ = Y`: X takes Y's members
    # object literals as containers (`var app = {set: function () {}, get() {}}`,
    # `X.prototype = {...}`, `module.exports = {...}`): their node types, and the name of
    # the object a module exports as a literal
    object_node = "object"
    pair_node = "pair"
    literal_method_node = "method_definition"
    shorthand_node = "shorthand_property_identifier"  # `{stringify}`: the pair `stringify: stringify`
    exports_object = "exports"
    # `X.prototype = Object.create(Base.prototype)`: calls whose first argument is a base
    prototype_calls: frozenset[str] = frozenset()
    lexical_this_functions: frozenset[str] = frozenset()  # arrow functions: `this` of the scope around
    # `Object.assign(X, Y)`, `mixin(X, Y)`: calls that lend the members of every later
    # argument to the first
    merge_calls: frozenset[str] = frozenset()
    export_targets: frozenset[str] = frozenset()  # `module.exports = X`: the module's value
    # the module-level variable (a fact) naming the object a module exports, read by
    # the resolver for a member of the module
    exports_variable: str | None = None

    # --- names, imports, modules ---------------------------------------------------------
    implicit_classes = ImplicitClasses.NEARBY
    package_scope = PackageScope.NONE
    namespaced = False  # qualified names carry namespaces / module paths (`a::b::C`, `A\B\C`)
    # a receiver written as a constant path (Ruby's `Thor::Util.find(...)`) names the module
    # or class of that qualified name, wherever it is reopened
    constant_paths = False
    # method names of the language's core types besides ``COMMON_METHODS`` (Ruby's Hash,
    # Array, String, Enumerable): never the only repository method of a name on a
    # receiver of unknown type (``unique``)
    standard_methods: frozenset[str] = frozenset()
    # a call on the left of this node is its setter (Ruby: `self.scheme = x` calls `scheme=`)
    setter_assignment_node = ""
    # a function any file may call through a header's declaration: the only function of a
    # name in the repository is what a bare call of it names (C's one namespace of functions)
    global_functions = False
    includes_files = False  # a file names the files it uses (#include, require)
    path_roots: frozenset[str] = frozenset()  # Rust `crate::`, `self::`, `super::`: no part of a name
    ternaries = True  # `c ? a : b` is either value
    module_loader: str | None = None  # JS `require(`: its value is a module, not a class
    sequence_copy: Any = None  # a compiled pattern of calls copying a sequence (Python `list(xs)`)
    element_call: Any = None  # a compiled pattern of calls taking one element (Python `next(it)`)
    pairs_call: Any = None  # a compiled pattern of calls pairing indexes and elements (`enumerate(xs)`)
    container_literals = False  # `[a, b]`, `{k: v}`, `{a}` (comprehensions too): their elements' values
    inline_conditional = False  # `a if c else b` is either value
    builtin_calls: frozenset[str] = frozenset()  # callables every program has (not the repository's)
    allocator_calls: frozenset[str] = frozenset()  # Go `new(T)`: a builtin whose value is a T
    type_assertions = False  # Go `x.(T)`: the value is a T (``text.asserted_type``)
    external_types: frozenset[str] = frozenset()  # standard types (never a repository class)
    # generic types holding a value that `?` or an unwrapping method opens (Rust
    # `Option<T>`, `Result<T, E>`); the methods that open it and those that keep it
    wrapper_types: frozenset[str] = frozenset()
    unwrap_methods: frozenset[str] = frozenset()
    wrapper_same_methods: frozenset[str] = frozenset()
    pointer_types: frozenset[str] = frozenset()  # generic types whose methods are their pointee's (`Box<T>`)
    # every method is virtual: `self.m()` also runs the overrides of m in the subclasses
    # of the class it is called in (a method named with ``private_prefix`` and not
    # ending in it, Python's mangled `__m`, is the class's own)
    self_dispatch = False
    private_prefix = ""

    def __init__(self) -> None:
        if not self.family:
            self.family = self.name
        # a bare name known to lie outside the repository: a builtin, or in a namespaced
        # language a standard type (computed by the registry, which knows every language)
        self.external_names: frozenset[str] = self.builtin_calls

    def __repr__(self) -> str:
        return f"<Language {self.name or '(none)'}>"

    # --- extraction hooks ----------------------------------------------------------------

    def module_qualified_name(self, path: str) -> str:
        """The qualified name of a file's module unit: its path, unless the language
        names modules otherwise."""
        return path

    def sees(self, path: str, target_path: str) -> bool:
        """Can code in file ``path`` call a definition of file ``target_path``? Default:
        yes (every file of the repository is one program)."""
        return True

    def import_binding(self, name: str) -> str:
        """The name an import binds, from the text of its ``@name`` capture."""
        return name

    def fact_target(self, name: str, receiver: str) -> tuple[str, str]:
        """(name, receiver) of the variable a fact is about, from the captures."""
        return name, receiver

    def drops_module_fact(self, in_parameter: bool) -> bool:
        """Is a fact found at a file's top level (``in_parameter``: inside a parameter
        declaration) no variable of the file?"""
        if self.module_facts is ModuleFacts.DROP:
            return True
        return self.module_facts is ModuleFacts.DROP_PARAMETERS and in_parameter

    # --- resolution hooks ----------------------------------------------------------------

    def names_file(self, source: str) -> bool:
        """Does an import's source name a file to look into (``includes_files``)?"""
        return False

    def star_module_path(self, source: str, path: str) -> str | None:
        """The slash path of the module a ``*`` import in ``path`` names; None when it
        names none in the repository."""
        return None

    def is_package_entry(self, path: str) -> bool:
        """Is this file a package's entry, whose submodules are its members (Python
        ``__init__.py``)?"""
        return False

    def import_value(self, ctx: ImportContext, path: str, bound: str, source: str,
                     original: str, depth: int) -> Any:
        """What the import binding ``bound`` (``original`` in module ``source``) of file
        ``path`` holds. Default: the definitions of that name in files whose path looks
        like the source (``pkg.x`` / ``./x`` / ``pkg/x``)."""
        found = [s for s in ctx.symbols_named(original) if path_matches(s.path, source)]
        return found or None

    def qualified_import(self, ctx: ImportContext, source: str, original: str) -> Any:
        """A namespaced language's ``use`` / ``using``: the definitions of that
        qualified name; None when there are none."""
        parts = use_path(source, original)
        found = ctx.qualified(".".join(parts), self) if parts else []
        return found or None
