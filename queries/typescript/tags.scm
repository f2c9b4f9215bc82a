; TypeScript tags: definitions, calls, type uses and imports.
; queries/tsx/tags.scm is this file plus the JSX patterns at its end; keep the two
; in step. Doc comments (/** ... */ above a definition) are read by the extractor.
; A function directly inside a class or interface becomes a method.

; ---------------------------------------------------------------------------
; Namespaces: `namespace A.B { }` and `module M { }` prefix the names inside them.
; Ambient `declare module "pkg" { }` blocks (string names) are not containers.
; ---------------------------------------------------------------------------

(internal_module
  name: [(identifier) (nested_identifier)] @name) @definition.namespace

(module
  name: [(identifier) (nested_identifier)] @name) @definition.namespace

; ---------------------------------------------------------------------------
; Types
; ---------------------------------------------------------------------------

(class_declaration
  name: (type_identifier) @name) @definition.class

(abstract_class_declaration
  name: (type_identifier) @name) @definition.class

; const Foo = class { ... }
(variable_declarator
  name: (identifier) @name
  value: (class)) @definition.class

(interface_declaration
  name: (type_identifier) @name) @definition.interface

(enum_declaration
  name: (identifier) @name) @definition.enum

(type_alias_declaration
  name: (type_identifier) @name) @definition.type

; ---------------------------------------------------------------------------
; Functions and methods
; ---------------------------------------------------------------------------

(function_declaration
  name: (identifier) @name) @definition.function

(generator_function_declaration
  name: (identifier) @name) @definition.function

; overload signatures and `declare function f(): T;` (an overload's second
; declaration gets the id suffix "#2")
(function_signature
  name: (identifier) @name) @definition.function

; Class methods, getters/setters, and object-literal shorthand methods `{ m() {} }`.
((method_definition
  name: [(property_identifier) (private_property_identifier)] @name) @definition.function
  (#not-eq? @name "constructor"))

((method_definition
  name: (property_identifier) @name) @definition.constructor
  (#eq? @name "constructor"))

; method overload signatures (and declared constructors, as in .d.ts files) and
; abstract methods in classes, method signatures in interfaces (object types in
; type aliases are left out)
((class_body
  (method_signature
    name: (property_identifier) @name) @definition.method)
  (#not-eq? @name "constructor"))

((class_body
  (method_signature
    name: (property_identifier) @name) @definition.constructor)
  (#eq? @name "constructor"))

(class_body
  (abstract_method_signature
    name: (property_identifier) @name) @definition.method)

(interface_body
  (method_signature
    name: (property_identifier) @name) @definition.method)

; const fetchUser = async (id: string): Promise<User> => { ... }
; The whole declaration is the definition, so its line range and signature start
; at `const` and the doc comment above it is found.
(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function

(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])) @definition.function

; class fields: private handleClick = () => { ... }
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @name
  value: [(arrow_function) (function_expression)]) @definition.function

; CommonJS / prototype style: Foo.prototype.bar = () => { ... },
; exports.baz = function () { ... }. The statement is the definition (for its doc).
(expression_statement
  (assignment_expression
    left: (member_expression
      property: (property_identifier) @name)
    right: [(arrow_function) (function_expression !name)])) @definition.function

; module.exports = function createApplication() { ... }: a named function
; expression is known by its own name
(expression_statement
  (assignment_expression
    left: (member_expression)
    right: (function_expression
      name: (identifier) @name))) @definition.function

; object literal: { onClick: () => {}, render: function () {} }
(pair
  key: (property_identifier) @name
  value: [(arrow_function) (function_expression)]) @definition.function

; ---------------------------------------------------------------------------
; Calls. The function of a call is either an identifier, a member expression or
; `super`, so each call node matches one pattern only.
; ---------------------------------------------------------------------------

; f(), f<T>()
(call_expression
  function: (identifier) @name) @reference.call

; obj.m(), this.#m(), a.b.c() (receiver "a.b"), super.m() (receiver "super"), a?.m()
(call_expression
  function: (member_expression
    object: (_) @receiver
    property: [(property_identifier) (private_property_identifier)] @name)) @reference.call

; super(...) in a constructor
(call_expression
  function: (super) @name) @reference.call

; new Foo(), new Map<K, V>(), new ns.Foo()
(new_expression
  constructor: (identifier) @name) @reference.call

(new_expression
  constructor: (member_expression
    object: (_) @receiver
    property: (property_identifier) @name)) @reference.call

; ---------------------------------------------------------------------------
; Type uses
; ---------------------------------------------------------------------------

; class A extends B / extends ns.B
(extends_clause
  value: (identifier) @name) @reference.class

(extends_clause
  value: (member_expression
    object: (_) @receiver
    property: (property_identifier) @name)) @reference.class

; class A implements I, J<T>   (generic ones: see generic_type below)
(implements_clause
  (type_identifier) @name) @reference.class

; interface I extends J, K<T>
(extends_type_clause
  type: (type_identifier) @name) @reference.class

; x: Foo, x: Foo[], x: Foo | Bar, <T extends Foo>
(type_annotation
  (type_identifier) @name) @reference.class

(array_type
  (type_identifier) @name) @reference.class

(union_type
  (type_identifier) @name) @reference.class

(constraint
  (type_identifier) @name) @reference.class

; ns.Foo in any type position
(nested_type_identifier
  name: (type_identifier) @name) @reference.class

; Foo<...> anywhere, and the plain type arguments inside <...>
(generic_type
  name: (type_identifier) @name) @reference.class

(type_arguments
  (type_identifier) @name) @reference.class

; ---------------------------------------------------------------------------
; Imports: @name is the name bound in this file, @source the module
; ---------------------------------------------------------------------------

; export * from 'm'   (a `*` import: every name m exports is this module's too)
(export_statement
  "*" @name
  source: (string) @source) @reference.import

; export { a } from 'm'   /   export { a as b } from 'm'   (re-exports: bound here too)
(export_statement
  (export_clause
    (export_specifier
      name: (_) @name
      !alias))
  source: (string) @source) @reference.import

(export_statement
  (export_clause
    (export_specifier
      name: (_) @original
      alias: (_) @name))
  source: (string) @source) @reference.import

; import x from 'm'
(import_statement
  (import_clause
    (identifier) @name)
  source: (string) @source) @reference.import

; import { a } from 'm'   /   import { a as b } from 'm'   /   import type { T } ...
(import_statement
  (import_clause
    (named_imports
      (import_specifier
        name: (_) @name
        !alias)))
  source: (string) @source) @reference.import

(import_statement
  (import_clause
    (named_imports
      (import_specifier
        name: (_) @original
        alias: (identifier) @name)))
  source: (string) @source) @reference.import

; import * as ns from 'm'   (@original "* as ns": the module itself)
(import_statement
  (import_clause
    (namespace_import
      (identifier) @name) @original)
  source: (string) @source) @reference.import

; import fs = require('fs')
(import_statement
  (import_require_clause
    (identifier) @name
    source: (string) @source)) @reference.import

; const x = require('m')
((variable_declarator
  name: (identifier) @name
  value: (call_expression
    function: (identifier) @_require
    arguments: (arguments . (string) @source .))) @reference.import
  (#eq? @_require "require"))

; const { a, b } = require('m')
((variable_declarator
  name: (object_pattern
    (shorthand_property_identifier_pattern) @name)
  value: (call_expression
    function: (identifier) @_require
    arguments: (arguments . (string) @source .))) @reference.import
  (#eq? @_require "require"))

; const { a: b } = require('m')   (@original: the name in the module)
((variable_declarator
  name: (object_pattern
    (pair_pattern key: (property_identifier) @original value: (identifier) @name))
  value: (call_expression
    function: (identifier) @_require
    arguments: (arguments . (string) @source .))) @reference.import
  (#eq? @_require "require"))

; const x = require('m').y   (@original: the member of the module)
((variable_declarator
  name: (identifier) @name
  value: (member_expression
    object: (call_expression
      function: (identifier) @_require
      arguments: (arguments . (string) @source .))
    property: (property_identifier) @original)) @reference.import
  (#eq? @_require "require"))

; ---------------------------------------------------------------------------
; Facts for resolving calls (codeloupe.graph), not shown as references:
;   base:    @name a class / interface this one extends or implements
;   typed:   @name a parameter / variable / field, @source its type; no @source:
;            declared with no known type; a parameter property's modifier is its
;            @receiver (`constructor(private t: T)` is a field)
;   assign:  @name = @source (the value, as text); @receiver "this" for fields
;   returns: @name the return type of the enclosing function
; ---------------------------------------------------------------------------

(class_heritage
  (extends_clause
    value: [(identifier) @name
            (member_expression object: (_) @receiver property: (property_identifier) @name)])) @reference.base

(class_heritage
  (implements_clause
    [(type_identifier) @name
     (generic_type name: (type_identifier) @name)])) @reference.base

(interface_declaration
  (extends_type_clause
    type: [(type_identifier) @name
           (generic_type name: (type_identifier) @name)])) @reference.base

(required_parameter
  (accessibility_modifier)? @receiver
  pattern: (identifier) @name
  type: (type_annotation (_) @source)?) @reference.typed

(optional_parameter
  pattern: (identifier) @name
  type: (type_annotation (_) @source)?) @reference.typed

; `function f(this: Annotation, ...)`: what `this` is in the function's body
(required_parameter
  pattern: (this) @name
  type: (type_annotation (_) @source)) @reference.typed

(variable_declarator
  name: (identifier) @name
  type: (type_annotation (_) @source)) @reference.typed

(public_field_definition
  name: (property_identifier) @name
  type: (type_annotation (_) @source)) @reference.typed

(variable_declarator
  name: (identifier) @name
  value: [(new_expression) (call_expression) (await_expression) (identifier)
          (member_expression) (string) (template_string) (number) (array)
          (as_expression)
          (subscript_expression) (ternary_expression)] @source) @reference.assign

(public_field_definition
  name: (property_identifier) @name
  value: [(new_expression) (call_expression) (identifier) (member_expression)] @source) @reference.assign

; this.x = ...: a function expression too (this.parse = (v) => ...: a call of
; x.parse() on an instance calls that function)
(assignment_expression
  left: (member_expression object: (this) @receiver property: (property_identifier) @name)
  right: [(new_expression) (call_expression) (await_expression) (identifier)
          (member_expression) (subscript_expression) (ternary_expression)
          (arrow_function) (function_expression)] @source) @reference.assign

; x = ... (a variable assigned again: `let found = null; ... found = a ? b : null`)
(assignment_expression
  left: (identifier) @name
  right: [(new_expression) (call_expression) (await_expression) (identifier)
          (member_expression) (subscript_expression) (ternary_expression)] @source) @reference.assign

(for_in_statement left: (identifier) @name) @reference.typed

(function_declaration return_type: (type_annotation (_) @name)) @reference.returns
(method_definition return_type: (type_annotation (_) @name)) @reference.returns
(method_signature return_type: (type_annotation (_) @name)) @reference.returns
(function_signature return_type: (type_annotation (_) @name)) @reference.returns
(arrow_function return_type: (type_annotation (_) @name)) @reference.returns

; return: @name a value the enclosing function returns (its type when nothing
; declares one)
(return_statement (_) @name) @reference.return

; typedoc: a `/** @type {T} */` comment (@source) right above a field or variable
; (@name); elem: @name takes the elements of @source (a callback of an array
; method, `for (const x of xs)`)
((comment) @source
  .
  (expression_statement
    (assignment_expression
      left: (member_expression object: (this) @receiver property: (property_identifier) @name))) @reference.typedoc
  (#match? @source "^/\\*\\*"))

((comment) @source
  .
  (lexical_declaration
    (variable_declarator name: (identifier) @name)) @reference.typedoc
  (#match? @source "^/\\*\\*"))

((call_expression
  function: (member_expression object: (_) @source property: (property_identifier) @_method)
  arguments: (arguments .
    (arrow_function
      parameters: (formal_parameters . (required_parameter pattern: (identifier) @name))))) @reference.elem
  (#match? @_method "^(forEach|map|filter|find|findLast|findIndex|some|every|flatMap|sort)$"))

((call_expression
  function: (member_expression object: (_) @source property: (property_identifier) @_method)
  arguments: (arguments .
    (arrow_function
      parameter: (identifier) @name))) @reference.elem
  (#match? @_method "^(forEach|map|filter|find|findLast|findIndex|some|every|flatMap)$"))

((call_expression
  function: (member_expression object: (_) @source property: (property_identifier) @_method)
  arguments: (arguments .
    (arrow_function
      parameters: (formal_parameters . (_) . (required_parameter pattern: (identifier) @name))))) @reference.elem
  (#eq? @_method "sort"))

(for_in_statement
  left: (identifier) @name
  "of"
  right: (_) @source) @reference.elem
