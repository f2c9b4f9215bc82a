; C# tags: definitions, calls, type uses and imports.
; XML doc comments (/// above a declaration) are read by the extractor.
; Overloads share a qualified name; the extractor suffixes the second one's id "#2".

; ---------------------------------------------------------------------------
; Namespaces prefix the names inside them. A file-scoped `namespace A.B;` node
; ends at its semicolon, so it only prefixes once the extractor extends it to the
; end of the file.
; ---------------------------------------------------------------------------

(namespace_declaration
  name: (_) @name) @definition.namespace

(file_scoped_namespace_declaration
  name: (_) @name) @definition.namespace

; ---------------------------------------------------------------------------
; Types
; ---------------------------------------------------------------------------

(class_declaration
  name: (identifier) @name) @definition.class

; record R(...) and record struct R(...)
(record_declaration
  name: (identifier) @name) @definition.class

(struct_declaration
  name: (identifier) @name) @definition.struct

(interface_declaration
  name: (identifier) @name) @definition.interface

(enum_declaration
  name: (identifier) @name) @definition.enum

; ---------------------------------------------------------------------------
; Methods, constructors, local functions
; ---------------------------------------------------------------------------

(method_declaration
  name: (identifier) @name) @definition.method

(constructor_declaration
  name: (identifier) @name) @definition.constructor

; int Helper(int x) => x; inside a method body
(local_function_statement
  name: (identifier) @name) @definition.function

; ---------------------------------------------------------------------------
; Calls. The function of an invocation is an identifier, a generic name, a member
; access or a conditional access, so each call matches one pattern only.
; ---------------------------------------------------------------------------

; Foo(), Foo<T>()
(invocation_expression
  function: [(identifier) @name
             (generic_name (identifier) @name)]) @reference.call

; obj.Foo(), this.Foo(), base.Foo(), a.b.Foo() (receiver "a.b"), obj.Foo<T>().
; `this` and `base` are unnamed tokens here, hence the `_` wildcard.
(invocation_expression
  function: (member_access_expression
    expression: _ @receiver
    name: [(identifier) @name
           (generic_name (identifier) @name)])) @reference.call

; obj?.Foo()
(invocation_expression
  function: (conditional_access_expression
    condition: (_) @receiver
    (member_binding_expression
      name: [(identifier) @name
             (generic_name (identifier) @name)]))) @reference.call

; : base(...) / : this(...) before a constructor body
(constructor_initializer
  ["base" "this"] @name) @reference.call

; new Foo(), new List<int>(), new A.B.Foo()
(object_creation_expression
  type: [(identifier) @name
         (generic_name (identifier) @name)]) @reference.call

(object_creation_expression
  type: (qualified_name
    qualifier: (_) @receiver
    name: [(identifier) @name
           (generic_name (identifier) @name)])) @reference.call

; ---------------------------------------------------------------------------
; Type uses: base types, and the declared types of fields, locals, parameters,
; properties and method results (Foo and the head of Foo<T>; `var` is implicit_type)
; ---------------------------------------------------------------------------

(base_list
  [(identifier) @name
   (generic_name (identifier) @name)
   (qualified_name name: (identifier) @name)]) @reference.class

(variable_declaration
  type: [(identifier) @name
         (generic_name (identifier) @name)]) @reference.class

(parameter
  type: [(identifier) @name
         (generic_name (identifier) @name)]) @reference.class

(property_declaration
  type: [(identifier) @name
         (generic_name (identifier) @name)]) @reference.class

(method_declaration
  returns: [(identifier) @name
            (generic_name (identifier) @name)]) @reference.class

; ---------------------------------------------------------------------------
; Imports: @name is the bound (last) name or the alias, @source the full path
; ---------------------------------------------------------------------------

; using System;
(using_directive
  . (identifier) @name @source .) @reference.import

; using System.Collections.Generic;   using static System.Math;
(using_directive
  !name
  (qualified_name
    name: (identifier) @name) @source) @reference.import

; using Json = Newtonsoft.Json;
(using_directive
  name: (identifier) @name
  [(identifier) (qualified_name) (generic_name)] @source @original) @reference.import

; base: @name a class / interface this one derives from (codeloupe.graph resolves
; base.M() and inherited this-calls through it)
(base_list
  [(identifier) @name
   (generic_name (identifier) @name)
   (qualified_name name: (identifier) @name)]) @reference.base

; ---------------------------------------------------------------------------
; Facts for resolving calls (codeloupe.graph), not shown as references:
;   typed:   @name a parameter / local / field, @source its type (`var`: none)
;   assign:  @name = @source (the value, as text); @receiver `this` for fields
;   returns: @name the return type of the enclosing method
;   return:  @name a value the enclosing method returns
; ---------------------------------------------------------------------------

(parameter
  type: (_) @source
  name: (identifier) @name) @reference.typed

(variable_declaration
  type: (_) @source
  (variable_declarator name: (identifier) @name)) @reference.typed

; a property's declared type, in a class or an interface (`IMessageDisplay MessageDisplay { get; }`):
; `view.MessageDisplay.Error()` reaches IMessageDisplay's Error
(property_declaration
  type: (_) @source
  name: (identifier) @name) @reference.typed

(variable_declarator
  name: (identifier) @name
  [(object_creation_expression) (invocation_expression) (member_access_expression)] @source) @reference.assign

(assignment_expression
  left: (member_access_expression expression: _ @receiver name: (identifier) @name)
  right: [(object_creation_expression) (invocation_expression) (identifier) (member_access_expression)] @source) @reference.assign

(method_declaration
  returns: (_) @name) @reference.returns

(return_statement (_) @name) @reference.return

; a class's or a method's type parameters (`class A<T>`, `void M<TKey>()`): names bound
; there (declared, of no type), so a local typed `T` is not taken for an outside type
(type_parameter_list (type_parameter (identifier) @name)) @reference.typed

; a class's or a method's type parameters (`class A<T>`, `void M<TKey>()`): names bound
; there (declared, of no type), so a local typed `T` is not taken for an outside type
(type_parameter_list (type_parameter (identifier) @name)) @reference.typed
