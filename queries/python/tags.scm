; Python tags: definitions, calls, type uses and imports.
; Docstrings are read by the extractor (first string statement of a body), so no
; @doc capture is needed here. A function directly inside a class becomes a method.

; ---------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------

(class_definition
  name: (identifier) @name) @definition.class

(function_definition
  name: (identifier) @name) @definition.function

; `handler = lambda event: ...` is a function named `handler`
(assignment
  left: (identifier) @name
  right: (lambda)) @definition.function

; ---------------------------------------------------------------------------
; Calls: f(), obj.method(), a.b.c() (receiver "a.b"), super().m() (receiver "super()")
; Each call node matches exactly one of the two patterns (the function is either
; an identifier or an attribute), so no call is reported twice.
; ---------------------------------------------------------------------------

(call
  function: (identifier) @name) @reference.call

(call
  function: (attribute
    object: (_) @receiver
    attribute: (identifier) @name)) @reference.call

; ---------------------------------------------------------------------------
; Type uses: base classes and annotations
; ---------------------------------------------------------------------------

; class A(Base, mod.Mixin, metaclass=M): keyword arguments are not bases
(class_definition
  superclasses: (argument_list
    [(identifier) @name
     (attribute attribute: (identifier) @name)])) @reference.class

; x: Foo, -> mod.Foo, Optional[Foo] (both Optional and Foo); the inner types of a
; generic are `type` nodes again, so they match the first alternative
(type
  [(identifier) @name
   (attribute object: (_) @receiver attribute: (identifier) @name)
   (generic_type (identifier) @name)]) @reference.class

; ---------------------------------------------------------------------------
; Imports: @name is the name bound in this file, @source the module
; ---------------------------------------------------------------------------

; import os.path  -> binds `os`, source "os.path"; a whole-module import has
; @original equal to @source (a `from` import's @original is the name in the module)
(import_statement
  name: (dotted_name . (identifier) @name) @source @original) @reference.import

; import numpy as np
(import_statement
  name: (aliased_import
    name: (dotted_name) @source @original
    alias: (identifier) @name)) @reference.import

; from .x import y   /   from . import y
(import_from_statement
  module_name: (_) @source
  name: (dotted_name) @name) @reference.import

; from .x import y as z   (@original: the name in the source module)
(import_from_statement
  module_name: (_) @source
  name: (aliased_import
    name: (dotted_name) @original
    alias: (identifier) @name)) @reference.import

; from x import *   (name "*": every public name of the module)
(import_from_statement
  module_name: (_) @source
  (wildcard_import) @name) @reference.import

; ---------------------------------------------------------------------------
; Facts for resolving calls (codeloupe.graph), not shown as references:
;   base:    @name a base class of the enclosing class, @receiver its qualifier
;   typed:   @name a parameter / variable / attribute (@receiver "self"), @source
;            its annotation; no @source: declared with no known type (shadows
;            outer names)
;   assign:  @name = @source (the right-hand side, as text)
;   returns: @name the return annotation of the enclosing function
; ---------------------------------------------------------------------------

(class_definition
  superclasses: (argument_list
    [(identifier) @name
     (attribute object: (_) @receiver attribute: (identifier) @name)])) @reference.base

(parameters (identifier) @name @reference.typed)
(lambda_parameters (identifier) @name @reference.typed)
(default_parameter name: (identifier) @name) @reference.typed
(typed_parameter (identifier) @name type: (type) @source) @reference.typed
(typed_default_parameter name: (identifier) @name type: (type) @source) @reference.typed
(list_splat_pattern (identifier) @name @reference.typed)
(dictionary_splat_pattern (identifier) @name @reference.typed)

(assignment
  left: (identifier) @name
  type: (type) @source) @reference.typed
(assignment
  left: (attribute object: (identifier) @receiver attribute: (identifier) @name)
  type: (type) @source) @reference.typed

(assignment
  left: (identifier) @name
  right: (_) @source) @reference.assign
(assignment
  left: (attribute object: (identifier) @receiver attribute: (identifier) @name)
  right: (_) @source) @reference.assign
(with_item
  value: (as_pattern
    (_) @source
    alias: (as_pattern_target (identifier) @name))) @reference.assign
(for_statement left: (identifier) @name) @reference.typed
(for_statement left: (pattern_list (identifier) @name)) @reference.typed
(assignment left: (pattern_list (identifier) @name)) @reference.typed

(function_definition
  return_type: (type) @name) @reference.returns

; return: @name a value the enclosing function returns (its type when nothing
; declares one)
(return_statement (_) @name) @reference.return

; elem: @name takes the elements of @source (`for x in xs`)
(for_statement
  left: (identifier) @name
  right: (_) @source) @reference.elem

; second: @name takes the second item of each element of @source (`for k, v in d.items()`)
(for_statement
  left: (pattern_list . (identifier) . (identifier) @name .)
  right: (_) @source) @reference.second

; a comprehension's variables, as a loop's (`[h.run() for h in self.handlers]`)
(for_in_clause
  left: (identifier) @name
  right: (_) @source) @reference.elem
(for_in_clause
  left: (pattern_list . (identifier) . (identifier) @name .)
  right: (_) @source) @reference.second

; item: @source is put into @name, a variable or an attribute of @receiver
; (`self.items.append(x)`, `seen.add(x)`, `xs.insert(0, x)`)
(call
  function: (attribute
    object: [(identifier) @name
             (attribute object: (identifier) @receiver attribute: (identifier) @name)]
    attribute: (identifier) @_put)
  arguments: (argument_list . (_) @source .)
  (#any-of? @_put "append" "add" "appendleft")) @reference.item
(call
  function: (attribute
    object: [(identifier) @name
             (attribute object: (identifier) @receiver attribute: (identifier) @name)]
    attribute: (identifier) @_put)
  arguments: (argument_list . (_) . (_) @source .)
  (#eq? @_put "insert")) @reference.item

; keyed: @source is stored under a key of @name (`self.handlers[name] = h`,
; `d.setdefault(k, x)`)
(assignment
  left: (subscript
    value: [(identifier) @name
            (attribute object: (identifier) @receiver attribute: (identifier) @name)])
  right: (_) @source) @reference.keyed
(call
  function: (attribute
    object: [(identifier) @name
             (attribute object: (identifier) @receiver attribute: (identifier) @name)]
    attribute: (identifier) @_put)
  arguments: (argument_list . (_) . (_) @source .)
  (#eq? @_put "setdefault")) @reference.keyed
