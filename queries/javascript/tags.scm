; JavaScript (and JSX) tags: definitions, calls, type uses and imports.
; Doc comments (/** ... */ above a definition) are read by the extractor.
; A function directly inside a class becomes a method.

; ---------------------------------------------------------------------------
; Definitions
; ---------------------------------------------------------------------------

(class_declaration
  name: (identifier) @name) @definition.class

; const Foo = class { ... }
(variable_declarator
  name: (identifier) @name
  value: (class)) @definition.class

(function_declaration
  name: (identifier) @name) @definition.function

(generator_function_declaration
  name: (identifier) @name) @definition.function

; Class methods, getters/setters, and object-literal shorthand methods `{ m() {} }`.
; Inside a class they become methods; the constructor gets its own kind.
((method_definition
  name: [(property_identifier) (private_property_identifier)] @name) @definition.function
  (#not-eq? @name "constructor"))

((method_definition
  name: (property_identifier) @name) @definition.constructor
  (#eq? @name "constructor"))

; const fetchUser = async (id) => { ... }   /   var f = function () { ... }
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

; class fields: handleClick = () => { ... }
(field_definition
  property: [(property_identifier) (private_property_identifier)] @name
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

; new Foo(), new ns.Foo()
(new_expression
  constructor: (identifier) @name) @reference.call

(new_expression
  constructor: (member_expression
    object: (_) @receiver
    property: (property_identifier) @name)) @reference.call

; JSX: rendering <Button /> or <Ui.Button> calls the component. Lower-case names
; are intrinsic elements (div, span) and are not references.
((jsx_opening_element
  name: (identifier) @name) @reference.call
  (#match? @name "^[A-Z]"))

((jsx_self_closing_element
  name: (identifier) @name) @reference.call
  (#match? @name "^[A-Z]"))

(jsx_opening_element
  name: (member_expression
    object: (_) @receiver
    property: (property_identifier) @name)) @reference.call

(jsx_self_closing_element
  name: (member_expression
    object: (_) @receiver
    property: (property_identifier) @name)) @reference.call

; ---------------------------------------------------------------------------
; Type uses: class A extends B / extends ns.B
; ---------------------------------------------------------------------------

(class_heritage
  (identifier) @name) @reference.class

(class_heritage
  (member_expression
    object: (_) @receiver
    property: (property_identifier) @name)) @reference.class

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

; import { a } from 'm'   /   import { a as b } from 'm'
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
;   base:   @name the class this one extends, @receiver its qualifier
;   typed:  @name a parameter or loop variable (declared, type unknown)
;   assign: @name = @source (the value, as text); @receiver "this" for fields
; ---------------------------------------------------------------------------

(class_heritage
  [(identifier) @name
   (member_expression object: (_) @receiver property: (property_identifier) @name)]) @reference.base

(formal_parameters (identifier) @name @reference.typed)
(formal_parameters (assignment_pattern left: (identifier) @name) @reference.typed)
(for_in_statement left: (identifier) @name) @reference.typed

(variable_declarator
  name: (identifier) @name
  value: [(new_expression) (call_expression) (await_expression) (identifier)
          (member_expression) (string) (template_string) (number) (array)
          (subscript_expression) (ternary_expression)] @source) @reference.assign

(field_definition
  property: (property_identifier) @name
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
      parameters: (formal_parameters . (identifier) @name)))) @reference.elem
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
      parameters: (formal_parameters . (_) . (identifier) @name)))) @reference.elem
  (#eq? @_method "sort"))

(for_in_statement
  left: (identifier) @name
  "of"
  right: (_) @source) @reference.elem
