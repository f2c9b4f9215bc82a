; C tags: functions, structs / unions / enums, typedefs, calls and #includes.
;
; A struct, union or enum is a definition only where it has a body. When it is
; the type of a typedef (`typedef struct node {...} node_t;`) the whole typedef is
; the definition and takes the typedef name (`node_t`), so that one symbol, not
; two nested ones, stands for it. Other typedefs are `type` symbols.

; ---- struct / union / enum with a body, outside a typedef ------------------------
; A bare `struct s {...};` (at top level, in a block, a preprocessor conditional or
; an `extern "C"` list) is the specifier directly followed by `;`. In a typedef
; the typedef name follows instead, so these patterns do not fire there.

(_
  (struct_specifier
    name: (type_identifier) @name
    body: (field_declaration_list)) @definition.struct
  .
  ";")

(_
  (union_specifier
    name: (type_identifier) @name
    body: (field_declaration_list)) @definition.union
  .
  ";")

(_
  (enum_specifier
    name: (type_identifier) @name
    body: (enumerator_list)) @definition.enum
  .
  ";")

; declared together with a variable or field: `struct s {...} x;`

(declaration
  type: (struct_specifier
    name: (type_identifier) @name
    body: (field_declaration_list)) @definition.struct)

(declaration
  type: (union_specifier
    name: (type_identifier) @name
    body: (field_declaration_list)) @definition.union)

(declaration
  type: (enum_specifier
    name: (type_identifier) @name
    body: (enumerator_list)) @definition.enum)

(field_declaration
  type: (struct_specifier
    name: (type_identifier) @name
    body: (field_declaration_list)) @definition.struct)

(field_declaration
  type: (union_specifier
    name: (type_identifier) @name
    body: (field_declaration_list)) @definition.union)

(field_declaration
  type: (enum_specifier
    name: (type_identifier) @name
    body: (enumerator_list)) @definition.enum)

; ---- typedefs --------------------------------------------------------------------

(type_definition
  type: (struct_specifier body: (field_declaration_list))
  declarator: (type_identifier) @name) @definition.struct

(type_definition
  type: (union_specifier body: (field_declaration_list))
  declarator: (type_identifier) @name) @definition.union

(type_definition
  type: (enum_specifier body: (enumerator_list))
  declarator: (type_identifier) @name) @definition.enum

; typedef of anything without a body: `typedef unsigned long size;`,
; `typedef char *str;`, `typedef int (*handler)(int);`, `typedef int row[4];`
(type_definition
  type: [(primitive_type) (type_identifier) (sized_type_specifier) (macro_type_specifier)
         (struct_specifier !body) (union_specifier !body) (enum_specifier !body)]
  declarator: [(type_identifier) @name
               (pointer_declarator declarator: (type_identifier) @name)
               (array_declarator declarator: (type_identifier) @name)
               (function_declarator
                 declarator: (parenthesized_declarator
                   (pointer_declarator declarator: (type_identifier) @name)))]) @definition.type

; ---- functions (definitions only, not prototypes) ----------------------------------

(function_definition
  declarator: (function_declarator
    declarator: (identifier) @name)) @definition.function

; returning a pointer: `char *name(...)`, `char **names(...)`
(function_definition
  declarator: (pointer_declarator
    declarator: (function_declarator
      declarator: (identifier) @name))) @definition.function

(function_definition
  declarator: (pointer_declarator
    declarator: (pointer_declarator
      declarator: (function_declarator
        declarator: (identifier) @name)))) @definition.function

; ---- calls -----------------------------------------------------------------------

; f(x); function-like macros look the same
(call_expression
  function: (identifier) @name) @reference.call

; through a function pointer member: obj->send(...), obj.send(...)
(call_expression
  function: (field_expression
    argument: (_) @receiver
    field: (field_identifier) @name)) @reference.call

; ---- includes --------------------------------------------------------------------
; the source drops the quotes / angle brackets; the name keeps `<...>` for system
; headers (it is the whole token).

(preproc_include
  path: (string_literal (string_content) @name) @source) @reference.import

(preproc_include
  path: (system_lib_string) @name @source) @reference.import

; ---- facts for resolving calls (codeloupe.graph), not shown as references ----------
;   typed: @name a parameter or a local, @source its declared type: a call of a
;          function pointer held by one is a call of that variable, not of a
;          function of the same name

(parameter_declaration
  type: (_) @source
  declarator: [(identifier) @name
               (pointer_declarator declarator: (identifier) @name)
               (function_declarator
                 declarator: (parenthesized_declarator
                   (pointer_declarator declarator: (identifier) @name)))]) @reference.typed

; locals only (a header read with the C grammar may hold C++ that parses as odd
; declarations: top-level ones, `using a::b;`)
(compound_statement
  (declaration
    type: (_) @source
    declarator: [(identifier) @name
                 (pointer_declarator declarator: (identifier) @name)
                 (init_declarator
                   declarator: [(identifier) @name
                                (pointer_declarator declarator: (identifier) @name)])
                 (function_declarator
                   declarator: (parenthesized_declarator
                     (pointer_declarator declarator: (identifier) @name)))]
    (#not-eq? @source "using")) @reference.typed)
