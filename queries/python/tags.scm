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
   (attribute attribute: (identifier) @name)
   (generic_type (identifier) @name)]) @reference.class

; ---------------------------------------------------------------------------
; Imports: @name is the name bound in this file, @source the module
; ---------------------------------------------------------------------------

; import os.path  -> binds `os`, source "os.path"
(import_statement
  name: (dotted_name . (identifier) @name) @source) @reference.import

; import numpy as np
(import_statement
  name: (aliased_import
    name: (dotted_name) @source
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
