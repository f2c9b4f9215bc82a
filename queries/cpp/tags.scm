; C++ tags: namespaces, classes / structs / unions / enums, functions and methods,
; calls (including `new T(...)`), base classes, #includes and using-declarations.
;
; Methods defined in a class body nest under the class (`Client.send`). An
; out-of-line definition `void Client::retry() {}` captures its qualifiers as
; `@scope` (`Client`, `ns::Client` → `ns.Client`, `Client<T>` → `Client`): it is
; named `Client.retry` after any enclosing namespaces (`transport.Client.retry`)
; and becomes a method of `Client` when that class is defined in the same file.
; Overloads share a qualified name; the extractor numbers their ids (`#2`).

; ---- namespaces: containers only, they prefix the names inside ---------------

(namespace_definition
  name: [(namespace_identifier) (nested_namespace_specifier)] @name) @definition.namespace

; ---- class-like types with a body ------------------------------------------------
; A bare `class C {...};` (in a namespace, at top level, in a template, a block or
; a preprocessor conditional) is the specifier directly followed by `;`. A
; specialization `struct S<int> {...}` is named `S`.
; In a typedef the typedef name follows instead (see below).

(_
  (class_specifier
    name: [(type_identifier) @name
           (template_type name: (type_identifier) @name)]
    body: (field_declaration_list)) @definition.class
  .
  ";")

(_
  (struct_specifier
    name: [(type_identifier) @name
           (template_type name: (type_identifier) @name)]
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

; nested in a class body (a field_declaration), or declared with a variable:
; `struct S {...} s;`

(field_declaration
  type: (class_specifier
    name: [(type_identifier) @name
           (template_type name: (type_identifier) @name)]
    body: (field_declaration_list)) @definition.class)

(field_declaration
  type: (struct_specifier
    name: [(type_identifier) @name
           (template_type name: (type_identifier) @name)]
    body: (field_declaration_list)) @definition.struct)

(field_declaration
  type: (union_specifier
    name: (type_identifier) @name
    body: (field_declaration_list)) @definition.union)

(field_declaration
  type: (enum_specifier
    name: (type_identifier) @name
    body: (enumerator_list)) @definition.enum)

(declaration
  type: (class_specifier
    name: [(type_identifier) @name
           (template_type name: (type_identifier) @name)]
    body: (field_declaration_list)) @definition.class)

(declaration
  type: (struct_specifier
    name: [(type_identifier) @name
           (template_type name: (type_identifier) @name)]
    body: (field_declaration_list)) @definition.struct)

(declaration
  type: (union_specifier
    name: (type_identifier) @name
    body: (field_declaration_list)) @definition.union)

(declaration
  type: (enum_specifier
    name: (type_identifier) @name
    body: (enumerator_list)) @definition.enum)

; ---- typedefs and aliases -----------------------------------------------------------
; `typedef struct {...} name;` is the struct `name`; other typedefs and
; `using Name = ...;` are `type` symbols.

(type_definition
  type: [(class_specifier body: (field_declaration_list))
         (struct_specifier body: (field_declaration_list))]
  declarator: (type_identifier) @name) @definition.struct

(type_definition
  type: (union_specifier body: (field_declaration_list))
  declarator: (type_identifier) @name) @definition.union

(type_definition
  type: (enum_specifier body: (enumerator_list))
  declarator: (type_identifier) @name) @definition.enum

(type_definition
  type: [(primitive_type) (type_identifier) (sized_type_specifier) (qualified_identifier)
         (template_type) (class_specifier !body) (struct_specifier !body)
         (union_specifier !body) (enum_specifier !body)]
  declarator: [(type_identifier) @name
               (pointer_declarator declarator: (type_identifier) @name)
               (array_declarator declarator: (type_identifier) @name)
               (function_declarator
                 declarator: (parenthesized_declarator
                   (pointer_declarator declarator: (type_identifier) @name)))]) @definition.type

(alias_declaration
  name: (type_identifier) @name) @definition.type

; ---- functions and methods ------------------------------------------------------
; The declarator names the function: `f`, a member `f` (field_identifier),
; `~T`, `operator==`, or a qualified `T::f` / `ns::T::f` whose last part is the
; name. Returning a pointer or reference wraps the function_declarator.

(function_definition
  declarator: [
    (function_declarator
      declarator: [(identifier) (field_identifier) (destructor_name) (operator_name)] @name)
    (pointer_declarator
      declarator: (function_declarator
        declarator: [(identifier) (field_identifier) (operator_name)] @name))
    (pointer_declarator
      declarator: (pointer_declarator
        declarator: (function_declarator
          declarator: [(identifier) (field_identifier) (operator_name)] @name)))
    (reference_declarator
      (function_declarator
        declarator: [(identifier) (field_identifier) (operator_name)] @name))
  ]) @definition.function

; out-of-line definitions: T::f, T<U>::f, T::f<U>, ns::T::f, a::b::T::f. The name
; is the last part; each qualifier before it (a template's name without its
; arguments) is a @scope. One pattern per depth; returning a pointer or a
; reference wraps the function_declarator.

; T::f
(function_definition
  declarator: [
    (function_declarator
      declarator: (qualified_identifier
        scope: [(namespace_identifier) @scope (template_type name: (type_identifier) @scope)]
        name: [(identifier) @name (destructor_name) @name (operator_name) @name (template_function name: (identifier) @name)]))
    (pointer_declarator
      declarator: (function_declarator
        declarator: (qualified_identifier
          scope: [(namespace_identifier) @scope (template_type name: (type_identifier) @scope)]
          name: [(identifier) @name (destructor_name) @name (operator_name) @name (template_function name: (identifier) @name)])))
    (reference_declarator
      (function_declarator
        declarator: (qualified_identifier
          scope: [(namespace_identifier) @scope (template_type name: (type_identifier) @scope)]
          name: [(identifier) @name (destructor_name) @name (operator_name) @name (template_function name: (identifier) @name)])))
  ]) @definition.function

; ns::T::f
(function_definition
  declarator: [
    (function_declarator
      declarator: (qualified_identifier
        scope: [(namespace_identifier) @scope (template_type name: (type_identifier) @scope)]
        name: (qualified_identifier
          scope: [(namespace_identifier) @scope (template_type name: (type_identifier) @scope)]
          name: [(identifier) @name (destructor_name) @name (operator_name) @name (template_function name: (identifier) @name)])))
    (pointer_declarator
      declarator: (function_declarator
        declarator: (qualified_identifier
          scope: [(namespace_identifier) @scope (template_type name: (type_identifier) @scope)]
          name: (qualified_identifier
            scope: [(namespace_identifier) @scope (template_type name: (type_identifier) @scope)]
            name: [(identifier) @name (destructor_name) @name (operator_name) @name (template_function name: (identifier) @name)]))))
    (reference_declarator
      (function_declarator
        declarator: (qualified_identifier
          scope: [(namespace_identifier) @scope (template_type name: (type_identifier) @scope)]
          name: (qualified_identifier
            scope: [(namespace_identifier) @scope (template_type name: (type_identifier) @scope)]
            name: [(identifier) @name (destructor_name) @name (operator_name) @name (template_function name: (identifier) @name)]))))
  ]) @definition.function

; a::b::T::f
(function_definition
  declarator: [
    (function_declarator
      declarator: (qualified_identifier
        scope: [(namespace_identifier) @scope (template_type name: (type_identifier) @scope)]
        name: (qualified_identifier
          scope: [(namespace_identifier) @scope (template_type name: (type_identifier) @scope)]
          name: (qualified_identifier
            scope: [(namespace_identifier) @scope (template_type name: (type_identifier) @scope)]
            name: [(identifier) @name (destructor_name) @name (operator_name) @name (template_function name: (identifier) @name)]))))
    (pointer_declarator
      declarator: (function_declarator
        declarator: (qualified_identifier
          scope: [(namespace_identifier) @scope (template_type name: (type_identifier) @scope)]
          name: (qualified_identifier
            scope: [(namespace_identifier) @scope (template_type name: (type_identifier) @scope)]
            name: (qualified_identifier
              scope: [(namespace_identifier) @scope (template_type name: (type_identifier) @scope)]
              name: [(identifier) @name (destructor_name) @name (operator_name) @name (template_function name: (identifier) @name)])))))
    (reference_declarator
      (function_declarator
        declarator: (qualified_identifier
          scope: [(namespace_identifier) @scope (template_type name: (type_identifier) @scope)]
          name: (qualified_identifier
            scope: [(namespace_identifier) @scope (template_type name: (type_identifier) @scope)]
            name: (qualified_identifier
              scope: [(namespace_identifier) @scope (template_type name: (type_identifier) @scope)]
              name: [(identifier) @name (destructor_name) @name (operator_name) @name (template_function name: (identifier) @name)])))))
  ]) @definition.function

; `::f` (explicitly global): no scope
(function_definition
  declarator: (function_declarator
    declarator: (qualified_identifier
      !scope
      name: (identifier) @name))) @definition.function

; constructors: a plain name inside a class body, or an out-of-line `T::T`,
; `ns::T::T`, `T<U>::T`
(field_declaration_list
  (function_definition
    declarator: (function_declarator
      declarator: (identifier) @name)) @definition.constructor)

(function_definition
  declarator: (function_declarator
    declarator: [
      (qualified_identifier
        scope: [(namespace_identifier) @scope @_class
                (template_type name: (type_identifier) @scope @_class)]
        name: (identifier) @name)
      (qualified_identifier
        scope: [(namespace_identifier) @scope (template_type name: (type_identifier) @scope)]
        name: (qualified_identifier
          scope: [(namespace_identifier) @scope @_class
                  (template_type name: (type_identifier) @scope @_class)]
          name: (identifier) @name))
      (qualified_identifier
        scope: [(namespace_identifier) @scope (template_type name: (type_identifier) @scope)]
        name: (qualified_identifier
          scope: [(namespace_identifier) @scope (template_type name: (type_identifier) @scope)]
          name: (qualified_identifier
            scope: [(namespace_identifier) @scope @_class
                    (template_type name: (type_identifier) @scope @_class)]
            name: (identifier) @name)))
    ])
  (#eq? @_class @name)) @definition.constructor

; a pure virtual member declaration `virtual void f() = 0;` (no body elsewhere)
(field_declaration
  declarator: (function_declarator
    declarator: (field_identifier) @name)
  default_value: (number_literal)) @definition.method

; ---- calls -------------------------------------------------------------------------

; f(x), f<T>(x)
(call_expression
  function: (identifier) @name) @reference.call

(call_expression
  function: (template_function
    name: (identifier) @name)) @reference.call

; obj.f(x), ptr->f(x), this->f(x), obj.template f<T>(x)
(call_expression
  function: (field_expression
    argument: (_) @receiver
    field: [(field_identifier) @name
            (template_method name: (field_identifier) @name)
            (dependent_name (template_method name: (field_identifier) @name))])) @reference.call

; T::f(x), ns::f<T>(x); for ns::T::f the receiver is the innermost scope (`T`)
(call_expression
  function: (qualified_identifier
    scope: (_) @receiver
    name: [(identifier) @name
           (template_function name: (identifier) @name)])) @reference.call

(call_expression
  function: (qualified_identifier
    name: (qualified_identifier
      scope: (_) @receiver
      name: [(identifier) @name
             (template_function name: (identifier) @name)]))) @reference.call

(call_expression
  function: (qualified_identifier
    name: (qualified_identifier
      name: (qualified_identifier
        scope: (_) @receiver
        name: [(identifier) @name
               (template_function name: (identifier) @name)])))) @reference.call

; new T(x), new ns::T(x), new T<U>(x): a call named T
(new_expression
  type: [(type_identifier) @name
         (template_type name: (type_identifier) @name)]) @reference.call

(new_expression
  type: (qualified_identifier
    scope: (_) @receiver
    name: [(type_identifier) @name
           (template_type name: (type_identifier) @name)])) @reference.call

; ---- type uses: base classes ----------------------------------------------------------

(base_class_clause
  [(type_identifier) @name
   (template_type name: (type_identifier) @name)
   (qualified_identifier name: (type_identifier) @name)
   (qualified_identifier name: (template_type name: (type_identifier) @name))] @reference.class)

; ---- imports ---------------------------------------------------------------------

(preproc_include
  path: (string_literal (string_content) @name) @source) @reference.import

(preproc_include
  path: (system_lib_string) @name @source) @reference.import

; using std::string;  (binds `string`)
(using_declaration "using" .
  (qualified_identifier
    name: (identifier) @name) @source) @reference.import

; using namespace std;
(using_declaration "namespace" .
  [(identifier) (qualified_identifier)] @name @source) @reference.import

; base: @name a base class (codeloupe.graph resolves inherited calls through it)
(base_class_clause
  [(type_identifier) @name
   (qualified_identifier name: (type_identifier) @name)
   (template_type name: (type_identifier) @name)]) @reference.base

; ---- facts for resolving calls (codeloupe.graph), not shown as references ----------
;   typed:   @name a local / parameter / field, @source its declared type (the type
;            without the `*` / `&` of the declarator; `auto`: none)
;   assign:  @name = @source (an initializer, as text)
;   returns: @name the return type of the enclosing function
;   return:  @name a value the enclosing function returns

(declaration
  type: (_) @source
  declarator: [(identifier) @name
               (pointer_declarator declarator: (identifier) @name)
               (reference_declarator (identifier) @name)
               (init_declarator
                 declarator: [(identifier) @name
                              (pointer_declarator declarator: (identifier) @name)
                              (reference_declarator (identifier) @name)])]) @reference.typed

(parameter_declaration
  type: (_) @source
  declarator: [(identifier) @name
               (pointer_declarator declarator: (identifier) @name)
               (reference_declarator (identifier) @name)]) @reference.typed

(field_declaration
  type: (_) @source
  declarator: [(field_identifier) @name
               (pointer_declarator declarator: (field_identifier) @name)
               (reference_declarator (field_identifier) @name)]) @reference.typed

(init_declarator
  declarator: [(identifier) @name
               (pointer_declarator declarator: (identifier) @name)
               (reference_declarator (identifier) @name)]
  value: [(call_expression) (new_expression) (field_expression) (qualified_identifier)] @source) @reference.assign

(field_declaration
  declarator: [(field_identifier) @name
               (pointer_declarator declarator: (field_identifier) @name)]
  default_value: [(call_expression) (new_expression)] @source) @reference.assign

; an unscoped enum's enumerators: constants of the enum's type, at the file's top level
; (`XMLTest("...", XML_SUCCESS, r)` picks the overload taking an `XMLError`)
(enum_specifier
  name: (type_identifier) @source
  body: (enumerator_list (enumerator name: (identifier) @name) @reference.typed))

; `using Link = net::Transport;` / `typedef net::Transport Link;`: an alias of a type
(alias_declaration
  name: (type_identifier) @name
  type: (type_descriptor type: (_) @source)) @reference.assign

(type_definition
  type: [(type_identifier) (qualified_identifier) (template_type)] @source
  declarator: (type_identifier) @name) @reference.assign

(function_definition
  type: (_) @name) @reference.returns

(return_statement (_) @name) @reference.return
