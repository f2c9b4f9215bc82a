; PHP tags: namespaces, classes / interfaces / traits / enums, functions and methods,
; calls (including `new Foo()`), base types, `use` imports and require / include.
;
; A namespace prefixes the names inside it (`A\B` → `A.B`): the braced form
; `namespace A { ... }` its body, the statement form `namespace A;` (which contains
; nothing in the tree) everything up to the next namespace or the end of the file.

; ---- namespaces ---------------------------------------------------------------------

(namespace_definition
  name: (namespace_name) @name) @definition.namespace

; ---- class-like types ------------------------------------------------------------------

(class_declaration
  name: (name) @name) @definition.class

(interface_declaration
  name: (name) @name) @definition.interface

(trait_declaration
  name: (name) @name) @definition.trait

(enum_declaration
  name: (name) @name) @definition.enum

; ---- functions and methods ----------------------------------------------------------

(function_definition
  name: (name) @name) @definition.function

(method_declaration
  name: (name) @name
  (#not-eq? @name "__construct")) @definition.method

(method_declaration
  name: (name) @name
  (#eq? @name "__construct")) @definition.constructor

; ---- calls ------------------------------------------------------------------------------

; f(x), \ns\f(x)
(function_call_expression
  function: [(name) @name
             (qualified_name (name) @name .)]) @reference.call

; $obj->m(x), $obj?->m(x), $this->m(x)
(member_call_expression
  object: (_) @receiver
  name: (name) @name) @reference.call

(nullsafe_member_call_expression
  object: (_) @receiver
  name: (name) @name) @reference.call

; Foo::m(x), self::m(x), parent::__construct()
(scoped_call_expression
  scope: (_) @receiver
  name: (name) @name) @reference.call

; new Foo(x), new \ns\Foo(x): a call named Foo (`new self` / `new static` name no class)
(object_creation_expression
  [(name) @name
   (qualified_name (name) @name .)]
  (#not-match? @name "^(self|static|parent)$")) @reference.call

; ---- type uses: extends / implements / trait use ----------------------------------------

(base_clause
  [(name) @name
   (qualified_name (name) @name .)] @reference.class)

(class_interface_clause
  [(name) @name
   (qualified_name (name) @name .)] @reference.class)

(use_declaration
  [(name) @name
   (qualified_name (name) @name .)] @reference.class)

; ---- imports ---------------------------------------------------------------------------
; `use A\B\C;` binds C (source A\B\C), `use A\B as D;` binds D; in a group
; `use A\{B, C as D};` the source is the group prefix `A`.

(namespace_use_declaration
  (namespace_use_clause
    !alias
    [(name) @name @source
     (qualified_name (name) @name .) @source]) @reference.import)

(namespace_use_declaration
  (namespace_use_clause
    [(name) (qualified_name)] @source @original
    alias: (name) @name) @reference.import)

(namespace_use_declaration
  (namespace_name) @source
  body: (namespace_use_group
    (namespace_use_clause
      !alias
      (name) @name) @reference.import))

(namespace_use_declaration
  (namespace_name) @source
  body: (namespace_use_group
    (namespace_use_clause
      .
      (name) @original
      alias: (name) @name) @reference.import))

; require 'x.php'; include_once "y.php"; (only a literal path)
(require_expression
  [(string (string_content) @name)
   (encapsed_string (string_content) @name)] @source) @reference.import

(require_once_expression
  [(string (string_content) @name)
   (encapsed_string (string_content) @name)] @source) @reference.import

(include_expression
  [(string (string_content) @name)
   (encapsed_string (string_content) @name)] @source) @reference.import

(include_once_expression
  [(string (string_content) @name)
   (encapsed_string (string_content) @name)] @source) @reference.import

; base: @name a parent class, interface or trait (codeloupe.graph resolves
; $this-> and parent:: calls through it)
(base_clause [(name) @name (qualified_name (name) @name .)]) @reference.base
(class_interface_clause [(name) @name (qualified_name (name) @name .)]) @reference.base
(use_declaration [(name) @name (qualified_name (name) @name .)]) @reference.base

; ---- facts for resolving calls (codeloupe.graph), not shown as references ----------
;   typed:   @name a parameter (`$x`) / property (`x`), @source its declared type
;   assign:  @name = @source (the value, as text); @receiver `$this` for properties
;   returns: @name the declared return type of the enclosing function
;   return:  @name a value the enclosing function returns
;   typedoc: @name a property its `/** @var T */` comment types; elem: a loop's variable

(simple_parameter
  type: (_) @source
  name: (variable_name) @name) @reference.typed

(property_declaration
  type: (_) @source
  (property_element name: (variable_name (name) @name))) @reference.typed

; typedoc: a `/** @var T */` comment (@source) right above a property (@name)
((comment) @source
  .
  (property_declaration
    (property_element name: (variable_name (name) @name))) @reference.typedoc
  (#match? @source "^/\\*\\*"))

(assignment_expression
  left: (variable_name) @name
  right: (_) @source) @reference.assign

(assignment_expression
  left: (member_access_expression
    object: (variable_name) @receiver
    name: (name) @name)
  right: (_) @source) @reference.assign

; item: @source is put into @name, a variable or a property of @receiver (`$this->loaders[] =
; $loader`, `$this->nodes[$name] = $node`: a PHP array's foreach takes its values either way)
(assignment_expression
  left: (subscript_expression
    (member_access_expression object: (variable_name) @receiver name: (name) @name))
  right: (_) @source) @reference.item
(assignment_expression
  left: (subscript_expression . (variable_name) @name)
  right: (_) @source) @reference.item

; elem: @name takes the elements of @source (`foreach ($xs as $x)`, `as $k => $x`)
(foreach_statement
  .
  (_) @source
  .
  (variable_name) @name) @reference.elem
(foreach_statement
  .
  (_) @source
  .
  (pair (variable_name) . (variable_name) @name .)) @reference.elem

(method_declaration
  return_type: (_) @name) @reference.returns

(function_definition
  return_type: (_) @name) @reference.returns

(return_statement (_) @name) @reference.return
