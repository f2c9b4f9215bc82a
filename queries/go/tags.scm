; Go tags: types, functions, methods, calls, type uses and imports.
;
; A single `type X struct {...}` is captured on the whole type_declaration so that
; its start line and doc comment are those of the `type` keyword; inside a grouped
; `type ( ... )` each type_spec is its own definition (its doc comment sits inside
; the group, right above it).
;
; Methods (`func (c *Client) Send()`) are not inside their receiver type in the
; source: the receiver's type name is captured as `@scope`, so the method is named
; `Client.Send` and belongs to `Client` when that type is declared in the same file.

; ---- types: single declarations ---------------------------------------------

(type_declaration "type" .
  (type_spec
    name: (type_identifier) @name
    type: (struct_type))) @definition.struct

(type_declaration "type" .
  (type_spec
    name: (type_identifier) @name
    type: (interface_type))) @definition.interface

(type_declaration "type" .
  (type_spec
    name: (type_identifier) @name
    type: [(type_identifier) (qualified_type) (generic_type) (pointer_type)
           (slice_type) (array_type) (map_type) (channel_type) (function_type)])) @definition.type

(type_declaration "type" .
  (type_alias
    name: (type_identifier) @name)) @definition.type

; ---- types: grouped declarations `type ( ... )` -------------------------------

(type_declaration "("
  (type_spec
    name: (type_identifier) @name
    type: (struct_type)) @definition.struct)

(type_declaration "("
  (type_spec
    name: (type_identifier) @name
    type: (interface_type)) @definition.interface)

(type_declaration "("
  (type_spec
    name: (type_identifier) @name
    type: [(type_identifier) (qualified_type) (generic_type) (pointer_type)
           (slice_type) (array_type) (map_type) (channel_type) (function_type)]) @definition.type)

(type_declaration "("
  (type_alias
    name: (type_identifier) @name) @definition.type)

; ---- functions and methods ---------------------------------------------------

(function_declaration
  name: (identifier) @name) @definition.function

; the receiver type: T, *T, T[K], *T[K], and the same in parentheses, `(*T)`
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [(type_identifier) @scope
             (pointer_type (type_identifier) @scope)
             (generic_type type: (type_identifier) @scope)
             (pointer_type (generic_type type: (type_identifier) @scope))
             (parenthesized_type
               [(type_identifier) @scope
                (pointer_type (type_identifier) @scope)
                (generic_type type: (type_identifier) @scope)
                (pointer_type (generic_type type: (type_identifier) @scope))])]))
  name: (field_identifier) @name) @definition.method

; a method listed in an interface: `Sender.Send`
(method_elem
  name: (field_identifier) @name) @definition.method

; ---- calls: f(), pkg.F(), obj.Method(), a.b.C() -------------------------------

(call_expression
  function: (identifier) @name) @reference.call

(call_expression
  function: (selector_expression
    operand: (_) @receiver
    field: (field_identifier) @name)) @reference.call

; ---- type uses: embedded struct fields / interfaces, composite literals --------

(field_declaration
  !name
  type: [(type_identifier) @name
         (qualified_type name: (type_identifier) @name)
         (pointer_type (type_identifier) @name)
         (pointer_type (qualified_type name: (type_identifier) @name))]) @reference.class

(interface_type
  (type_elem
    [(type_identifier) @name
     (qualified_type name: (type_identifier) @name)]) @reference.class)

(composite_literal
  type: [(type_identifier) @name
         (qualified_type name: (type_identifier) @name)
         (generic_type type: (type_identifier) @name)]) @reference.class

; ---- the package clause (a fact: the package a file's import path may not name,
; `package mux` in the root folder of module github.com/gorilla/mux) ------------

(package_clause (package_identifier) @name) @reference.package

; ---- imports -----------------------------------------------------------------
; With an alias the alias is the bound name. Without one (and for `_` / `.`
; imports) the name is the import path; the extractor keeps its last path
; component (`net/http` → `http`), the name Go binds by default.

(import_spec
  name: (package_identifier) @name
  path: (interpreted_string_literal) @source) @reference.import

(import_spec
  !name
  path: (interpreted_string_literal
    (interpreted_string_literal_content) @name) @source) @reference.import

(import_spec
  name: (blank_identifier)
  path: (interpreted_string_literal
    (interpreted_string_literal_content) @name) @source) @reference.import

; `import . "pkg"` (name "."): every exported name of the package, bare
(import_spec
  name: (dot) @name
  path: (interpreted_string_literal) @source) @reference.import

; ---------------------------------------------------------------------------
; Facts for resolving calls (codeloupe.graph), not shown as references:
;   base:    @name a type embedded in a struct (its methods are promoted)
;   typed:   @name a parameter / receiver / variable / field, @source its type
;   assign:  @name := @source (the value, as text)
;   returns: @name the result type of the enclosing function
; ---------------------------------------------------------------------------

(field_declaration
  !name
  type: [(type_identifier) @name
         (qualified_type package: (_) @receiver name: (type_identifier) @name)
         (pointer_type (type_identifier) @name)
         (pointer_type (qualified_type package: (_) @receiver name: (type_identifier) @name))]) @reference.base

(parameter_declaration
  name: (identifier) @name
  type: (_) @source) @reference.typed

(var_spec
  name: (identifier) @name
  type: (_) @source) @reference.typed

(field_declaration
  name: (field_identifier) @name
  type: (_) @source) @reference.typed

(short_var_declaration
  left: (expression_list . (identifier) @name)
  right: (expression_list . (_) @source)) @reference.assign

(var_spec
  name: (identifier) @name
  value: (expression_list . (_) @source)) @reference.assign

(function_declaration
  result: (_) @name) @reference.returns

(method_declaration
  result: (_) @name) @reference.returns

; return: @name the first value the enclosing function returns
(return_statement (expression_list . (_) @name)) @reference.return

; `for _, v := range xs`: v is an element of xs (with one variable it is the index or a
; map's key: no fact)
(range_clause
  left: (expression_list . (_) . (identifier) @name .)
  right: (_) @source) @reference.elem
