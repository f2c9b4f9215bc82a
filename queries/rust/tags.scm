; Rust tags: items, impl blocks, calls, type uses and `use` imports.
;
; An `impl Foo { ... }` / `impl Trait for Foo { ... }` block is a container named
; after the implementing type, so the functions inside it come out as `Foo.bar`.
; Doc comments (`///`) are line_comment siblings above the item; the extractor
; reads them (attributes such as #[derive] in between do not break the doc).

; ---- type-like items -----------------------------------------------------------

(struct_item
  name: (type_identifier) @name) @definition.struct

(enum_item
  name: (type_identifier) @name) @definition.enum

(union_item
  name: (type_identifier) @name) @definition.union

(trait_item
  name: (type_identifier) @name) @definition.trait

(type_item
  name: (type_identifier) @name) @definition.type

; `mod name { ... }`; a body-less `mod name;` only points at another file.
(mod_item
  name: (identifier) @name
  body: (declaration_list)) @definition.module

; impl blocks, named after the implementing type (`impl<T> Foo<T>`, `impl a::Foo`)
(impl_item
  type: [(type_identifier) @name
         (generic_type type: (type_identifier) @name)
         (scoped_type_identifier name: (type_identifier) @name)
         (generic_type type: (scoped_type_identifier name: (type_identifier) @name))]) @definition.impl

; ---- functions (methods when inside an impl or trait) ----------------------------

(function_item
  name: (identifier) @name) @definition.function

; a trait method without a default body
(function_signature_item
  name: (identifier) @name) @definition.function

; ---- calls -----------------------------------------------------------------------
; Calls written inside macro arguments (`println!("{}", f(x))`) are token trees,
; not expressions, and are not seen.

; f(x)
(call_expression
  function: (identifier) @name) @reference.call

; obj.method(x)
(call_expression
  function: (field_expression
    value: (_) @receiver
    field: (field_identifier) @name)) @reference.call

; Type::new(x), module::f(x)
(call_expression
  function: (scoped_identifier
    path: (_) @receiver
    name: (identifier) @name)) @reference.call

; turbofish: f::<T>(x), obj.collect::<T>(), Vec::<T>::new()
(call_expression
  function: (generic_function
    function: (identifier) @name)) @reference.call

(call_expression
  function: (generic_function
    function: (field_expression
      value: (_) @receiver
      field: (field_identifier) @name))) @reference.call

(call_expression
  function: (generic_function
    function: (scoped_identifier
      path: (_) @receiver
      name: (identifier) @name))) @reference.call

; macro invocations: name!(...), path::name!(...)
(macro_invocation
  macro: (identifier) @name) @reference.call

(macro_invocation
  macro: (scoped_identifier
    path: (_) @receiver
    name: (identifier) @name)) @reference.call

; ---- type uses -------------------------------------------------------------------

; the trait of `impl Trait for Type`
(impl_item
  trait: [(type_identifier) @name
          (scoped_type_identifier name: (type_identifier) @name)
          (generic_type type: (type_identifier) @name)
          (generic_type type: (scoped_type_identifier name: (type_identifier) @name))]) @reference.class

; struct literals: Foo { .. }, a::Foo { .. }
(struct_expression
  name: [(type_identifier) @name
         (scoped_type_identifier name: (type_identifier) @name)]) @reference.class

; ---- imports ---------------------------------------------------------------------
; `use a::b::c;` binds c (source a::b::c); `use a::b as d;` binds d (original: the
; path a::b). Inside a list `use a::{b, c::d, e as f, self}` the source is the
; list's prefix `a` and the original the item's path below it (`c::d`, `e`); for
; `self`, the prefix itself is bound.

(use_declaration
  argument: (identifier) @name @source) @reference.import

(use_declaration
  argument: (scoped_identifier
    name: (identifier) @name) @source) @reference.import

(use_declaration
  argument: (use_as_clause
    path: (_) @source @original
    alias: (identifier) @name)) @reference.import

(scoped_use_list
  path: (_) @source
  list: (use_list
    [(identifier) @name
     (scoped_identifier name: (identifier) @name) @original] @reference.import))

(scoped_use_list
  path: (_) @source
  list: (use_list
    (use_as_clause
      path: (_) @original
      alias: (identifier) @name) @reference.import))

(scoped_use_list
  path: [(identifier) @name
         (scoped_identifier name: (identifier) @name)] @source
  list: (use_list (self) @reference.import))

; `use a::b::*` (name "*": every public item of the module), also inside a list
(use_declaration
  argument: (use_wildcard (_) @source "*" @name)) @reference.import
(scoped_use_list
  path: (_) @source
  list: (use_list (use_wildcard "*" @name) @reference.import))

; `mod util;`: binds `util`, the module file beside this one (`self::util`)
(mod_item
  name: (identifier) @name @source
  !body) @reference.import

; ---- facts for resolving calls (codeloupe.graph), not shown as references ----------
;   base:    @name the trait an impl block implements
;   typed:   @name a parameter / `let` / struct field, @source its type
;   assign:  @name = @source (a `let` value, as text)
;   returns: @name the return type of the enclosing function
;   return:  @name a value the enclosing function returns

(impl_item
  trait: [(type_identifier) @name
          (scoped_type_identifier name: (type_identifier) @name)
          (generic_type type: (type_identifier) @name)
          (generic_type type: (scoped_type_identifier name: (type_identifier) @name))]) @reference.base

(parameter
  pattern: [(identifier) @name (mut_pattern (identifier) @name)]
  type: (_) @source) @reference.typed

(let_declaration
  pattern: [(identifier) @name (mut_pattern (identifier) @name)]
  type: (_) @source) @reference.typed

(let_declaration
  pattern: [(identifier) @name (mut_pattern (identifier) @name)]
  value: (_) @source) @reference.assign

(field_declaration
  name: (field_identifier) @name
  type: (_) @source) @reference.typed

(function_item
  return_type: (_) @name) @reference.returns

; a trait method without a body declares what its impls return (`fn chunk_mut(&mut self) -> &mut UninitSlice;`)
(function_signature_item
  return_type: (_) @name) @reference.returns

; a trait method without a body declares what its impls return (`fn chunk_mut(&mut self) -> &mut UninitSlice;`)
(function_signature_item
  return_type: (_) @name) @reference.returns

(return_expression (_) @name) @reference.return

; `for x in xs { ... }`: x is an element of xs
(for_expression
  pattern: [(identifier) @name (mut_pattern (identifier) @name)]
  value: (_) @source) @reference.elem

; `if let Some(x) = e` / `while let Ok(x) = e`: x is the value e holds
(let_condition
  pattern: (tuple_struct_pattern
    type: (identifier) @_wrapper
    [(identifier) @name (mut_pattern (identifier) @name)])
  value: (_) @source
  (#any-of? @_wrapper "Some" "Ok")) @reference.unwrap

; `xs.iter().for_each(|x| ...)`: the first parameter of an iterator method's closure
; is an element of what the method is called on
(call_expression
  function: (field_expression
    value: (_) @source
    field: (field_identifier) @_method)
  arguments: (arguments . (closure_expression
    parameters: (closure_parameters . [(identifier) @name (mut_pattern (identifier) @name)])))
  (#any-of? @_method "for_each" "map" "filter" "any" "all" "find" "position" "flat_map" "filter_map"
                     "take_while" "skip_while" "inspect" "max_by_key" "min_by_key" "find_map"
                     "partition" "retain" "sort_by_key")) @reference.elem

; `fn f<V: Vector<u64>>(...)` / `where V: Vector<u64>`: the type parameter stands for
; its (first) bound in the function (a type, read by the resolver as an alias)
(type_parameter
  name: (type_identifier) @name
  bounds: (trait_bounds . (_) @source)) @reference.assign

(where_predicate
  left: (type_identifier) @name
  bounds: (trait_bounds . (_) @source)) @reference.assign
